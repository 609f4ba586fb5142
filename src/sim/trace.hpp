// The event trace of one chip: what every RISC did, as Chrome/Perfetto
// trace-event JSON (docs/trace.md), streamed to a TraceFile.
//
// Tracks. The chip is one process of the file; each RISC of each core is a
// thread named "core (x,y) BRISC" / "NCRISC" / "COMPUTE"; each core's L1 is
// one more ("core (x,y) L1": the far end of NoC transfers other RISCs made to
// or from it) and each DRAM bank one ("DRAM bank b").
//
// Events, all recorded on the RISC's own fiber into its own TraceBuffer:
//  - a kernel span per kernel run, named by the kernel, whose args sum what
//    the kernel did (waits, NoC bytes, CB pages, tiles);
//  - a wait span for every blocking wait (Chip::block), saying what for;
//  - a span per NoC transfer on the issuing RISC and a 0-length span on the
//    far end's track, joined by a flow arrow from the issuer;
//  - compute spans, one per run of consecutive compute calls (matmul,
//    eltwise, SFPU, pack, unpack) that no other event interrupts;
//  - DPRINT lines as instant events;
//  - a span per persistent-dispatch command on each RISC that ran it.
//
// Times. The RISC's clock (trace_clock) counts steps, and many events of a
// RISC share a step (a wait that no time passed in, DPRINT lines, a kernel
// that makes no timed call). So a step is shown as 1 us, and each event the
// RISC stamps within one step gets the next nanosecond of it (up to
// kSubSteps - 1): the RISC's stamps are strictly increasing, which keeps
// Perfetto's nesting (it orders spans that start together longest first)
// the RISC's own order. Stamps round back to steps (tessel stats).
// While the chip is timed (timing.hpp) a step is an estimated cycle, shown
// as 1 ns whatever the arch's clock (the file says its time base is
// "estimated" and what a cycle is in ns): a stamp is then a picosecond, and
// the events within one cycle get its first kTimedSubSteps of them. Perfetto
// keeps whole nanoseconds, rounding a span's start and its duration each to
// the nearest: stamps under half a nanosecond past their cycle round to it
// from both, so a span ends in Perfetto where the next one on its track
// begins, never after (a cycle shown as its real 0.741 ns on Blackhole made
// back-to-back spans overlap there, and Perfetto dropped them).
//
// Invariants, per RISC:
//  - Spans on a RISC's own track nest: a kernel span holds everything the
//    RISC recorded while it ran; the others follow one another (each begins
//    at or after the end of the one before: `last_end`).
//  - At most one span is pending (a wait, or a compute run still growing);
//    it is written before any other event of the RISC, at the kernel's end,
//    or at finish(). A wait that blocks again at the same place with no
//    time in between continues the pending one.
//  - Every event is whole in one commit, so a ring drops whole events.
//
// Thread-safety: a RISC's state is touched only by its fiber (one OS thread
// at a time), so the RISCs of different cores record concurrently without
// locks; they meet only in TraceFile::write, which takes the file's lock
// once per full buffer. finish() (and the destructor) run on the host thread
// while no run is active.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/trace_buffer.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::base {
class TraceFile;
}

namespace tessel::sim {

class Chip;
struct Fiber;

// The RISC's clock as the trace reads it: the one place the trace takes its
// times from (profiler.hpp, "The clock").
inline uint64_t trace_clock(const tessel_kernel_ctx& k) { return k.clock; }

inline constexpr uint64_t kSubSteps = 1000;     // stamps per clock step: the file's ns per step, or ps per cycle
inline constexpr uint64_t kTimedSubSteps = 500; // timed: the stamps (ps) a cycle's events may use (see "Times")

struct TraceOptions {
  std::shared_ptr<base::TraceFile> file;
  uint64_t ring_events = 0; // 0: stream every event; else keep the last ring_events per RISC
  std::string label;        // the process's name in the trace, e.g. "blackhole 12x10"
};

// Compute calls as the trace groups them (the compute span's args).
enum class ComputeKind : uint8_t { Matmul, Eltwise, Sfpu, Pack, Unpack, Count };

// Spans' begin and end are stamps (see "Times"); the `*_clock` fields steps.
struct PendingWait {
  uint8_t kind = 0; // WaitKind
  uint32_t cb = 0, pages = 0, value = 0;
  uint32_t sem_offset = 0; // the semaphore's L1 offset
  const char* file = nullptr;
  uint32_t line = 0;
  uint64_t begin = 0, end = 0;
  uint64_t blocked_clock = 0, end_clock = 0; // of the latest block, and when the wait ended
  bool ended = false;                        // wait_end ran for it
  bool stopped = false;                      // the run stopped in it (it never ended)
  // The state it began in, for its `what`: the CB's pages, the semaphore's value.
  uint32_t visible = 0, reserved = 0, num_pages = 0, sem_value = 0;
};

struct PendingCompute {
  uint64_t begin = 0, end = 0;
  uint32_t calls = 0;
  uint64_t tiles[size_t(ComputeKind::Count)] = {};
  const char* names[4] = {}; // the calls' names, in order of first use
  uint32_t name_count = 0;
  bool more_names = false;
};

// What a RISC's kernel did, summed into its kernel span's args.
struct KernelTotals {
  uint64_t wait = 0, waits = 0;
  uint64_t noc_read_bytes = 0, noc_write_bytes = 0, noc_transfers = 0;
  uint64_t cb_pages_pushed = 0, cb_pages_popped = 0;
  uint64_t tiles[size_t(ComputeKind::Count)] = {};
  uint64_t commands = 0, dprints = 0;
};

struct RiscTrace {
  RiscTrace(base::TraceFile* file, uint64_t ring_events) : out(file, ring_events) {}
  TraceBuffer out;
  uint32_t tid = 0;
  char name[40] = {}; // "core (x,y) BRISC"
  enum class Pending : uint8_t { None, Wait, Compute } pending = Pending::None;
  PendingWait wait;
  PendingCompute compute;
  bool in_kernel = false;
  uint64_t kernel_begin = 0;
  uint32_t kernel_run = 0;
  char kernel_path[256] = {}; // as the program named the kernel; the span is named by its file
  KernelTotals totals;
  uint64_t last_end = 0;      // end of the latest span on this RISC's track (a stamp)
  uint64_t flow_sequence = 0; // this RISC's flow ids
  uint64_t taken = 0;         // reader: when it took its current command (a stamp)
  uint64_t popped[64] = {};   // per CB: when this RISC last popped it (a stamp)
  uint64_t stamp_step = 0, stamp_sub = 0;
  uint64_t last_sub = kSubSteps - 1; // the last stamp of a step its events may take: logical, or timed

  // The next stamp at `clock` (see "Times").
  uint64_t stamp(uint64_t clock) {
    if (clock > stamp_step) stamp_step = clock, stamp_sub = 0;
    const uint64_t s = stamp_step * kSubSteps + (stamp_sub < last_sub ? stamp_sub : last_sub);
    ++stamp_sub;
    return s;
  }
};

class Tracer {
public:
  Tracer(Chip& chip, TraceOptions options);
  ~Tracer(); // finish()
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  uint32_t process_id() const { return pid_; }
  // Stamps per microsecond of the file (a step is kSubSteps stamps): 1000
  // (logical: a step shown as 1 us), or timed 1e6 (a cycle shown as 1 ns).
  uint64_t stamps_per_us() const { return stamps_per_us_; }
  uint64_t ring_events() const { return ring_events_; }
  const base::TraceFile& file() const { return *file_; }

  // On a RISC's fiber.
  void kernel_begin(Fiber& f);
  void kernel_end(Fiber& f);
  void wait_begin(Fiber& f);
  void wait_end(Fiber& f);
  // A transfer `call` made: `bytes` from/to the NoC address (a core's L1 or a
  // DRAM bank) over [begin, now]. reads: the data came from `noc_addr`.
  void noc_unicast(tessel_kernel_ctx& k, const char* call, uint64_t begin, uint64_t noc_addr, uint32_t bytes,
                   bool read);
  // A multicast write to the rectangle of `mcast` (loopback: the sender too).
  void noc_multicast(tessel_kernel_ctx& k, const char* call, uint64_t begin, uint64_t mcast, uint32_t bytes,
                     bool loopback);
  void compute_call(tessel_kernel_ctx& k, const char* call, ComputeKind kind, uint64_t tiles, uint64_t begin);
  void cb_pages(tessel_kernel_ctx& k, uint32_t cb, uint32_t pages, bool pushed);
  // A fabric packet sent by this RISC (begin: its clock before the send):
  // a span on its track, and one on the track of every link the packet
  // crossed, in the process of the chip the link leaves from (fabric.hpp).
  struct LinkCrossing {
    const Chip* from = nullptr; // the chip the link leaves (its tracer's process; null: not traced)
    uint32_t direction = 0, link = 0;
    uint64_t begin = 0, end = 0; // clock steps (timed: when the link carried it)
  };
  void fabric_packet(tessel_kernel_ctx& k, uint64_t begin, uint32_t bytes, std::span<const LinkCrossing> links,
                     const std::string& to);
  void dprint(tessel_kernel_ctx& k, const char* text, uint32_t length);
  // Persistent dispatch (dispatch/dispatcher.cpp): the reader took a
  // command; a RISC finished one. token_cb: the CB the RISC took the command
  // from (its pop starts the command there), or >= 64 for the reader.
  void command_taken(tessel_kernel_ctx& k);
  void command_done(tessel_kernel_ctx& k, uint32_t handler, uint32_t sequence, uint32_t slot, uint32_t token_cb);

  // A run that stopped (deadlock, failure, fault, interrupt): the kernels it
  // left open on `fibers` are written now, as not ended, with their pending
  // wait, while the strings they point into (the kernels' source file names)
  // are still loaded. Host thread, before the fibers are reset.
  void run_stopped(std::span<Fiber* const> fibers);
  // Writes every pending event and buffer (the ring's kept events); kernels
  // still open are written as ended at their last event. Host thread, no
  // run active. Idempotent.
  void finish();

  RiscTrace& risc(const tessel_kernel_ctx& k);

private:
  void write_metadata();
  void flush_pending(RiscTrace& r);
  void end_wait(RiscTrace& r, uint64_t clock); // the pending wait ends at `clock` (>= its latest block)
  void write_wait(RiscTrace& r);
  void write_compute(RiscTrace& r);
  void write_kernel(RiscTrace& r, uint64_t end, bool ended);
  uint64_t next_flow_id(RiscTrace& r, uint32_t risc_index);

  Chip& chip_;
  std::shared_ptr<base::TraceFile> file_;
  uint64_t ring_events_;
  uint32_t pid_;
  uint32_t named_links_ = 0; // link tracks whose names were written (bit direction * 4 + link)
  std::string label_;
  uint64_t stamps_per_us_ = 1000; // logical: a stamp is a ns (a step shown as 1 us); timed: a ps (a cycle as 1 ns)
  std::vector<std::unique_ptr<RiscTrace>> riscs_; // core_index * TESSEL_RISC_COUNT + risc
  bool finished_ = false;
};

// Turns the trace on for `chip` (attaching a Tracer it owns) with the
// kernel API's traced function table on every RISC. With a null file it
// turns it off: the tracer is finished and dropped.
void set_chip_trace(Chip& chip, TraceOptions options);

// The kernel API's function table with the traced calls (trace_api.cpp),
// over the plain calls or over the timed ones (timing.hpp).
const tessel_sim_api* traced_api_table();
const tessel_sim_api* traced_timed_api_table();

} // namespace tessel::sim
