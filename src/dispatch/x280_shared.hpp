// The memory an X280 thread's process (tessel-x280-runner) shares with the
// host: one memfd, mapped MAP_SHARED by both, laid out by the host before the
// runner starts. Both sides include this header; it is the whole protocol.
//
//   offset 0                 Header (below): identity, control words, fault
//                            record, park word, the three rings
//   Header::words_offset     word_count uint32_t: the thread's `words`
//   Header::regions_offset   region_count RegionEntry records
//   RegionEntry::offset      each region's bytes (64-byte aligned)
//   Header::block_bytes      the end (a whole number of pages)
//
// Who writes what
//  W1 The identity fields, the words, the region table and the regions'
//     initial bytes are written by the host before the spawn and never again
//     by it; the runner only reads them (and writes region bytes).
//  W2 `state` moves Starting -> Running -> Done | Failed, written only by the
//     runner; `result` (Done) and `failure` (Failed) are written before the
//     release store of `state`, so a reader that acquires Done or Failed
//     sees them. `fault` is written by the runner's fatal-signal handler just
//     before the process dies; the host reads it only after reaping.
//  W3 `stop` is written only by the host (0 -> 1, never back).
//
// Rings (single producer, single consumer; head and tail are free-running
// counters, slot = counter % capacity; the producer writes the slot, then
// stores head with release; the consumer loads head with acquire, reads the
// slot, then stores tail with release):
//  R1 submit: thread -> card. The thread keeps at most KM_X280_INFLIGHT
//     commands submitted and not completed, fewer than kSubmitSlots, so the
//     ring never fills.
//  R2 completion: card -> thread, one line per command taken. At most
//     KM_X280_INFLIGHT are outstanding, so it never fills either.
//  R3 log: thread -> host. Bounded; a line that finds it full is dropped and
//     counted in log_dropped.
//
// Waking (P1): the thread, to wait, stores thread_parked = 1, checks its
// condition again, then FUTEX_WAITs (shared, not private: the word is in
// another process's mapping too) on thread_parked while it is 1, for at most
// kParkTimeoutUs. The host, after publishing a completion or the stop flag,
// issues a seq_cst fence and swaps thread_parked to 0, waking the thread if
// it was 1. The timeout bounds the cost of any lost wake.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tessel/x280.h"

namespace tessel::dispatch::x280_shared {

inline constexpr uint32_t kMagic = 0x30383258u; // "X280"
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kSubmitSlots = 64;
inline constexpr uint32_t kCompletionSlots = 64;
inline constexpr uint32_t kLogSlots = 64;
inline constexpr uint32_t kRegionNameBytes = 48; // with the terminating NUL
inline constexpr uint32_t kFailureBytes = 1024;
inline constexpr uint32_t kRegionAlignBytes = 64;
inline constexpr uint32_t kParkTimeoutUs = 2000;
// The file descriptors the runner inherits (its command line names them too).
inline constexpr int kBlockFd = 3;  // the shared block (memfd)
inline constexpr int kObjectFd = 4; // the thread's shared object, opened and verified by the host
inline constexpr int kLifeFd = 5;   // a pipe's read end: end of file when the host process is gone
// The runner's exit status when it cannot set itself up (bad arguments, a
// block that does not map or check); its reason is on its stderr.
inline constexpr int kRunnerSetupExit = 125;

static_assert(KM_X280_INFLIGHT < kSubmitSlots && KM_X280_INFLIGHT <= kCompletionSlots);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

enum State : uint32_t {
  kStarting = 0, // spawned; the runner is loading the thread
  kRunning = 1,  // the thread's function runs
  kDone = 2,     // it returned `result`
  kFailed = 3,   // the runner stopped it: `failure` says why (load error, API misuse, x280::fail)
};

struct SubmitLine {
  uint32_t handler, flags, first, count, arg_count;
  uint32_t args[KM_ARGS_MAX];
  uint32_t ticket;
};
static_assert(sizeof(SubmitLine) == 64);

struct CompletionLine {
  uint32_t ticket, result;
};

struct LogLine {
  uint32_t length_bytes;
  char text[KM_X280_LOG_LINE_BYTES];
};

struct RegionEntry {
  char name[kRegionNameBytes];
  uint64_t offset_bytes; // from the start of the block
  uint64_t size_bytes;
};
static_assert(sizeof(RegionEntry) == 64);

// What the runner's handler of a fatal signal saw.
struct FaultRecord {
  uint32_t valid;        // 1 once written
  uint32_t signal;       // SIGSEGV, SIGABRT, ...
  int32_t code;          // si_code
  uint32_t has_location; // 1: `object_offset` is meaningful
  uint64_t address;      // si_addr
  uint64_t pc;           // the interrupted instruction
  // The innermost frame inside the thread's shared object, as an offset from
  // its load base (for addr2line); for a return address, already minus one.
  uint64_t object_offset;
};

struct Header {
  // Identity (W1).
  uint32_t magic;
  uint32_t version;
  uint64_t block_bytes;
  uint32_t cluster;
  uint32_t word_count;
  uint32_t region_count;
  uint32_t reserved;
  uint64_t words_offset;
  uint64_t regions_offset;
  int64_t clock_base_ns; // CLOCK_MONOTONIC at the spawn: ticks() counts from it

  // Control (W2, W3).
  alignas(64) std::atomic<uint32_t> state;
  std::atomic<uint32_t> stop;
  uint32_t result;
  FaultRecord fault;
  char failure[kFailureBytes];

  // Park word (P1).
  alignas(64) std::atomic<uint32_t> thread_parked;

  // Rings (R1..R3): each counter on its own line, written by one side.
  alignas(64) std::atomic<uint32_t> submit_head;     // thread
  alignas(64) std::atomic<uint32_t> submit_tail;     // card
  alignas(64) std::atomic<uint32_t> completion_head; // card
  alignas(64) std::atomic<uint32_t> completion_tail; // thread
  alignas(64) std::atomic<uint32_t> log_head;        // thread
  std::atomic<uint32_t> log_dropped;                 // thread
  alignas(64) std::atomic<uint32_t> log_tail;        // host
  alignas(64) SubmitLine submit[kSubmitSlots];
  CompletionLine completion[kCompletionSlots];
  LogLine log[kLogSlots];
};

inline constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

inline const uint32_t* words_of(const Header& h) {
  return reinterpret_cast<const uint32_t*>(reinterpret_cast<const uint8_t*>(&h) + h.words_offset);
}
inline RegionEntry* regions_of(Header& h) {
  return reinterpret_cast<RegionEntry*>(reinterpret_cast<uint8_t*>(&h) + h.regions_offset);
}
inline const RegionEntry* regions_of(const Header& h) {
  return reinterpret_cast<const RegionEntry*>(reinterpret_cast<const uint8_t*>(&h) + h.regions_offset);
}

inline int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// P1, the waiter's half: parks while `parked` is 1, at most timeout_us.
template <typename Ready>
inline void park_shared(std::atomic<uint32_t>& parked, uint32_t timeout_us, Ready ready) {
  parked.store(1, std::memory_order_seq_cst);
  if (!ready()) {
    timespec ts{time_t(timeout_us / 1000000), long(timeout_us % 1000000) * 1000};
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&parked), FUTEX_WAIT, 1u, &ts, nullptr, 0);
  }
  parked.store(0, std::memory_order_relaxed);
}

// P1, the waker's half: call after publishing what the waiter waits for.
inline void unpark_shared(std::atomic<uint32_t>& parked) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (parked.load(std::memory_order_relaxed) != 0 && parked.exchange(0) == 1)
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&parked), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

} // namespace tessel::dispatch::x280_shared
