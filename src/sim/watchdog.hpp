// Watchdog: stops a kernel that runs for a long time without making
// progress, with a report, instead of hanging the host.
//
// Progress is what another RISC or the host could observe: CB pages pushed or
// popped, a semaphore or L1 word changed, NoC transfers completed (retired by
// a barrier), a blocked RISC woken, a kernel finished, a persistent kernel's
// command taken or reported (dispatcher.cpp). Kernel calls that only
// look (a barrier with nothing outstanding, a cb_wait_front that is already
// satisfied, a transfer not yet waited for, compute and DPRINT calls) are
// not progress, and neither is a fiber switch: a loop of such calls, or of
// RISCs polling each other, spins forever on silicon too.
//
// Each host thread that runs fibers has a WatchSlot. The simulator bumps its
// progress counter on every progress event (a relaxed increment: no lock, no
// fence). A background thread samples the counters. When a thread inside
// Chip::run shows no progress for the timeout, it marks the slot stalled:
//  W1 `stalled` holds progress + 1 as sampled, so it means "no progress since"
//     only while the counter has not moved; a later progress event ends the
//     stall without anyone clearing it.
//  W2 A looking call checks stalled() (two relaxed loads) and, when set, stops
//     its fiber with a report naming the call and its source line.
//  W3 A fiber that calls nothing at all (a raw spin loop on L1) cannot check:
//     after a short grace the thread is sent kWatchdogSignal, which the fault
//     handler turns into a fault of the running fiber.
//  W4 A run that must stop by a time (a persistent run's card publishes the
//     earliest deadline of the commands in flight; a parallel run asked to
//     stop publishes "now" on every worker) sets `stop_at_ns`. A thread still
//     inside Chip::run a grace period after it is marked `stopping` and sent
//     kWatchdogSignal: the fiber it runs is stopped (kStoppedSignal), not
//     failed, and the run decides what that means (a missed deadline, a stop).
//     `stopping` is consumed by the signal's handler, so a signal that lands
//     outside a fiber is dropped.
// A slot is signalled only while its thread is inside Chip::run, and only
// under the registry lock, which the thread's exit also takes.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>

#include "tessel/kernel_abi.h"

namespace tessel::sim {

inline constexpr int kWatchdogSignal = SIGUSR2;

struct WatchSlot {
  // progress, and stalled (W1: progress + 1 when stalled); kernels' inline
  // fast paths read them too (tessel_stalled). Accessed atomically only.
  tessel_watch_words words = {0, 0};
  std::atomic<uint32_t> running{0};
  std::atomic<uint32_t> timeout_ms{0};
  // For the progress line (progress.hpp): CB pages pushed by this thread's
  // fibers in its current run (its own thread writes, a load and a store),
  // when that run started, and whether it shows progress at all.
  std::atomic<uint64_t> pages{0};
  std::atomic<int64_t> run_start_ns{0};
  std::atomic<uint32_t> shows_progress{0};
  // W4: stop this thread's fiber when steady_ns() passes stop_at_ns (0: no
  // such time); `stopping` tells the signal's handler why it came.
  std::atomic<int64_t> stop_at_ns{0};
  std::atomic<uint32_t> stopping{0};
  // 0: the run goes on through an interrupt request (a card that keeps
  // running on interrupt, card_agent.hpp): the watchdog does not signal it.
  std::atomic<uint32_t> interruptible{1};

  uint64_t progress() const { return __atomic_load_n(&words.progress, __ATOMIC_RELAXED); }
  uint64_t stalled() const { return __atomic_load_n(&words.stalled, __ATOMIC_RELAXED); }
  void mark_stalled(uint64_t progress) { __atomic_store_n(&words.stalled, progress + 1, __ATOMIC_RELAXED); }
};

// This thread's slot, registered on first use.
WatchSlot& watch_slot();

// Only the slot's own thread counts progress: a load and a store, no read-modify-write.
inline void note_progress(WatchSlot& slot) {
  __atomic_store_n(&slot.words.progress, slot.progress() + 1, __ATOMIC_RELAXED);
}

inline bool is_stalled(const WatchSlot& slot) { return slot.stalled() == slot.progress() + 1; }

inline void note_pages(WatchSlot& slot, uint32_t pages) {
  slot.pages.store(slot.pages.load(std::memory_order_relaxed) + pages, std::memory_order_relaxed);
}

// Marks this thread as running kernels for the guard's lifetime.
class WatchScope {
public:
  // timeout_ms == 0 disables the watchdog for this run; `progress`: the run
  // may show a progress line (progress.hpp).
  WatchScope(WatchSlot& slot, uint32_t timeout_ms, bool progress = true);
  ~WatchScope();
  WatchScope(const WatchScope&) = delete;
  WatchScope& operator=(const WatchScope&) = delete;

private:
  WatchSlot& slot_;
};

// TESSEL_WATCHDOG_S (seconds, may be fractional; 0 disables), default 10.
// Throws ValidationError when it is set but not a number of seconds.
uint32_t watchdog_timeout_ms_from_env();

} // namespace tessel::sim
