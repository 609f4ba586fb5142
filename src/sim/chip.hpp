// The simulated chip: cores with L1, circular buffers and semaphores, DRAM
// banks, the NoC, and the fibers that run kernels on every RISC.
//
// Execution model (design §1.4)
//  - Each RISC of each core has one fiber, created on the first launch that
//    uses it and reused for every later launch. Its body is a firmware loop:
//    wait for a launch, run the kernel's entry, report done.
//  - Chip::run() runs one launch set on the calling thread. A fiber runs until
//    it finishes or blocks; a blocking kernel call parks the fiber on the
//    object it waits for (a CB's front or back, an L1 word) and the call that
//    changes that object makes it ready again.
//  - Invariant: a fiber is in the ready queue iff its state is Ready.
//  - When nothing is ready, L1-word waiters are re-polled (a kernel may have
//    stored to a semaphore with a plain pointer store); if still nothing can
//    run while fibers remain blocked, that is a deadlock: the run stops with a
//    DeadlockError describing every blocked RISC.
//  - Under the parallel policy (parallel_run.hpp) the cores of a run are
//    spread over several host threads, each with its own ready queue; the
//    RISCs of one core always run on one thread, so a core's CBs, DST and
//    waiters are only touched by it.
//  - A failing kernel call or a fault in kernel code stops the whole launch:
//    every fiber of it is reset to a fresh firmware loop (its stack abandoned,
//    never unwound) and the error is thrown on the host thread. The chip stays
//    usable.
//
// Thread-safety: a Chip is driven by one host thread at a time (a parallel
// run's worker threads act only inside Chip::run).
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "sim/arch.hpp"
#include "sim/card_agent.hpp"
#include "sim/checked_noc.hpp"
#include "sim/compute.hpp"
#include "sim/fiber_sanitizers.hpp"
#include "sim/l1_window.hpp"
#include "sim/memory.hpp"
#include "sim/memory_map.hpp"
#include "sim/profiler.hpp"
#include "sim/run_queue.hpp"
#include "sim/watchdog.hpp"
#include "tessel/error.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

namespace bctx = boost::context::detail;

class Chip;
struct Core;
class Timing;
struct CoreTiming;
class Tracer;

using KernelEntry = int (*)();

enum class FiberState : uint8_t { Idle, Ready, Running, Blocked, Done, Failed, Faulted };

enum class WaitKind : uint8_t { None, CbFront, CbBack, SemEqual, SemAtLeast, Card };

struct WaitInfo {
  WaitKind kind = WaitKind::None;
  uint32_t cb = 0;
  uint32_t pages = 0;
  volatile uint32_t* sem = nullptr;
  uint32_t value = 0;
  const char* file = nullptr;
  uint32_t line = 0;
};

enum class FailKind : uint8_t { Kernel, Deadlock };

// NoC transfers a RISC has issued and not yet waited for with a barrier.
// Transfers complete when issued (eager mode), but the kernel may not rely on
// that: pushing CB pages a read is still landing in, popping pages a write is
// still reading from, and ending with transfers outstanding are reported.
// Up to kSlots ranges are kept exactly; beyond that the last slot grows to
// cover the newcomers.
struct InFlight {
  static constexpr uint32_t kSlots = 16;
  struct Range {
    uint32_t lo, hi; // L1 offsets of this core, [lo, hi)
    const char* file;
    uint32_t line;
  };
  Range ranges[kSlots];
  uint32_t count = 0; // used slots
  uint64_t total = 0; // transfers since the last barrier

  void add(uint32_t lo, uint32_t hi, const char* file, uint32_t line) {
    ++total;
    if (count < kSlots) {
      ranges[count++] = {lo, hi, file, line};
    } else {
      Range& r = ranges[kSlots - 1];
      r.lo = lo < r.lo ? lo : r.lo;
      r.hi = hi > r.hi ? hi : r.hi;
    }
  }
  const Range* overlapping(uint32_t lo, uint32_t hi) const {
    for (uint32_t i = 0; i < count; ++i)
      if (ranges[i].lo < hi && lo < ranges[i].hi) return &ranges[i];
    return nullptr;
  }
  void clear() { count = 0, total = 0; }
};

// A NoC address made from coordinates that do not fit (kernel_abi.h,
// TESSEL_NOC_POISON_BIT): what a poisoned address's token names.
struct BadNocCoord {
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool multicast = false;
  const char* file = nullptr;
  uint32_t line = 0;
};

struct Fiber {
  bctx::fcontext_t ctx = nullptr;        // this fiber, suspended
  bctx::fcontext_t return_ctx = nullptr; // the scheduler that resumed it
  uint8_t* slot = nullptr;               // stack slot (see kernel_abi.h)
  Core* core = nullptr;
  uint32_t risc = 0;
  FiberState state = FiberState::Idle;
  WaitInfo wait;
  KernelEntry entry = nullptr;
  const char* kernel_name = nullptr;
  InFlight reads;  // destinations of reads without a read barrier yet
  InFlight writes; // sources of writes without a write barrier (or flush) yet
  // Poisoned NoC addresses made in this launch; token t names bad_coords[t - 1].
  BadNocCoord bad_coords[TESSEL_NOC_POISON_TOKENS];
  uint32_t bad_coord_count = 0; // records made (the table is reused round-robin)
  MemoryCheckCache mem_cache;   // memory_check.hpp
  fiber_san::State san;         // fiber_sanitizers.hpp
  ProfilerBuffer profiler;      // profiler.hpp
  // Set when the fiber failed, or crashed without a signal: the whole report.
  std::string error_message;
  // Set when the fiber faulted (by the signal handler; plain values only).
  // kCrashSignal marks a crash reported by the simulator itself (fail_report).
  int fault_signal = 0;
  uintptr_t fault_address = 0;
  L1WindowRefusal l1_window_refusal = L1WindowRefusal::None; // why a low address was not mapped
  uintptr_t fault_pc = 0;
  uintptr_t fault_sp = 0;
  // A parallel run's inbox link: made ready by another thread
  // (parallel_run.cpp), with the waker's clock, which its owner applies.
  std::atomic<Fiber*> posted_next{nullptr};
  uint64_t posted_clock = 0;
  // Set by block_releasing(): the lock its scheduler releases once the fiber
  // has switched out.
  std::atomic<bool>* release_after_switch = nullptr;
  // Its memory wait was cancelled (cancel_memory_wait) by another thread.
  std::atomic<bool> wait_cancelled{false};
  // The checked NoC mode (checked_noc.hpp): transfers issued and not landed,
  // in issue order; the kernel's code (its access faults are its own); and,
  // when it touched a transfer's range, which (in_flight_write: it stored 1,
  // loaded 0, unknown -1) and the issuing RISC.
  std::vector<PendingTransfer> pending;
  uintptr_t code_lo = 0, code_hi = 0;
  PendingTransfer in_flight;
  uint32_t in_flight_issuer = 0;
  int in_flight_write = -1;
};

inline constexpr int kCrashSignal = -1;
inline constexpr int kInFlightSignal = -2; // stopped by CheckedNoc: touched a transfer in flight
// Stopped by the watchdog because its run must stop (watchdog.hpp, W4): not a
// fault of the kernel; the run ends as stopped.
inline constexpr int kStoppedSignal = -3;

struct Core {
  Chip* chip = nullptr;
  CoreTiming* timing = nullptr; // this core's cycle-estimate state, while the chip is timed
  uint32_t index = 0;
  uint32_t logical_x = 0, logical_y = 0;
  uint32_t noc_x = 0, noc_y = 0;
  uint8_t* l1 = nullptr;
  tessel_cb_iface cbs[TESSEL_MAX_CBS] = {};
  uint64_t cb_configured_mask = 0; // indices whose cbs[] entry is configured
  // Of those, the CBs whose memory is a buffer's (set_globally_allocated_address):
  // their pages hold the buffer's data whether or not anything pushed them.
  uint64_t cb_global_mask = 0;
  uint32_t semaphore_mask = 0; // bit i: the program created semaphore i here
  // The Chip::configuration() this core's CBs and semaphores were set for:
  // they are live (memory_check.hpp) while the two are equal.
  uint64_t configuration = 0;
  tessel_kernel_ctx ctx[TESSEL_RISC_COUNT] = {};
  Fiber* fibers[TESSEL_RISC_COUNT] = {};
  // Per launch: which RISC (+1) produced / consumed each CB; 0 = none yet.
  uint8_t cb_producer[TESSEL_MAX_CBS] = {};
  uint8_t cb_consumer[TESSEL_MAX_CBS] = {};
  // Where each role was first claimed (for the message of a second claimant); valid while the role is set.
  struct RoleSite {
    const char* file = nullptr;
    uint32_t line = 0;
  };
  RoleSite cb_producer_site[TESSEL_MAX_CBS];
  RoleSite cb_consumer_site[TESSEL_MAX_CBS];
  Fiber* cb_front_waiter[TESSEL_MAX_CBS] = {};
  Fiber* cb_back_waiter[TESSEL_MAX_CBS] = {};
  // Fibers parked on an L1 word of this core; `waiting` mirrors its size for
  // other threads of a parallel run, which may only read that.
  std::vector<Fiber*> mem_waiters;
  std::atomic<uint32_t> waiting{0};
  // Under the parallel policy, per semaphore: the latest clock of a RISC on
  // another thread whose store into it poked this core's waiters
  // (ParallelRun::after_write); a waiter on it that its owner's poll then
  // wakes takes that clock as its waker's.
  std::atomic<uint64_t> semaphore_store_clock[TESSEL_MAX_SEMAPHORES] = {};
  // The worker thread of a parallel run that runs this core's RISCs.
  uint32_t owner = 0;
  // The compute engine, created on the first compute launch on this core.
  std::unique_ptr<ComputeState> compute;
};

// The semaphores of `core` that the L1 range [offset, offset + bytes)
// overlaps: fn(index) for each.
template <class F>
void for_each_semaphore_in(const Core& core, uint64_t offset, uint64_t bytes, F&& fn) {
  const uint64_t first = core.ctx[0].semaphore_l1 & TESSEL_L1_SLOT_MASK;
  const uint64_t end = first + uint64_t(TESSEL_MAX_SEMAPHORES) * TESSEL_SEMAPHORE_STRIDE_BYTES;
  offset &= TESSEL_L1_SLOT_MASK;
  if (offset >= end || offset + bytes <= first) return;
  const uint64_t lo = std::max(offset, first), hi = std::min(offset + bytes, end);
  for (uint64_t s = (lo - first) / TESSEL_SEMAPHORE_STRIDE_BYTES; s * TESSEL_SEMAPHORE_STRIDE_BYTES + first < hi; ++s)
    fn(uint32_t(s));
}

struct SchedulerPolicy {
  enum class Kind : uint8_t { Deterministic, Random, Parallel };
  static constexpr uint32_t kMaxThreads = 64;
  Kind kind = Kind::Deterministic;
  uint64_t seed = 0;
  uint32_t threads = 0; // Parallel: host threads, 0 = one per host core
  // "deterministic", "random:<seed>", "parallel" or "parallel:<threads>";
  // throws ValidationError otherwise.
  static SchedulerPolicy parse(const std::string& text);
  std::string to_string() const;
  // The host threads a parallel run may use (threads, or the host's cores).
  uint32_t thread_count() const;
};

class ParallelRun;
extern thread_local WatchSlot* t_watch; // the running thread's watchdog slot

// A run ended by Chip::request_stop(): what() is the reason given.
class RunStopped : public Error {
public:
  using Error::Error;
};

struct Launch {
  uint32_t core_index = 0;
  uint32_t risc = 0;
  KernelEntry entry = nullptr;
  const char* kernel_name = nullptr; // for messages; must outlive the run
};

class Chip {
public:
  explicit Chip(const ArchSpec& arch, SchedulerPolicy policy = {});
  ~Chip();
  Chip(const Chip&) = delete;
  Chip& operator=(const Chip&) = delete;

  const ArchSpec& arch() const { return arch_; }
  DeviceMemory& memory() { return memory_; }
  uint32_t core_count() const { return uint32_t(cores_.size()); }
  Core& core(uint32_t index) { return *cores_[index]; }
  Core& core(uint32_t logical_x, uint32_t logical_y) { return *cores_[logical_y * arch_.grid_x + logical_x]; }
  const SchedulerPolicy& policy() const { return policy_; }
  // Throws ValidationError for the parallel policy in the checked NoC mode.
  void set_policy(SchedulerPolicy policy);
  // The NoC completion mode (checked_noc.hpp): eager unless set. Checked
  // needs a single-threaded policy (ValidationError otherwise). Not during a run.
  NocMode noc_mode() const { return checked_ ? NocMode::Checked : NocMode::Eager; }
  void set_noc_mode(NocMode mode);
  CheckedNoc* checked_noc() const { return checked_.get(); }

  // NoC coordinate lookups: the core index / DRAM bank at (x, y), or -1.
  int core_at_noc(uint32_t x, uint32_t y) const { return (x | y) < 64 ? core_by_noc_[y * 64 + x] : -1; }
  int dram_bank_at_noc(uint32_t x, uint32_t y) const { return (x == 0 && y < arch_.dram_banks) ? int(y) : -1; }
  uint32_t dram_bank_noc_x(uint32_t) const { return 0; }
  uint32_t dram_bank_noc_y(uint32_t bank) const { return bank; }

  // The device-memory checker (memory_check.hpp): on unless turned off.
  bool check_memory() const { return check_memory_; }
  void set_check_memory(bool on) { check_memory_ = on; }
  const MemoryMap& memory_map() const { return memory_map_; }
  MemoryMap& memory_map() { return memory_map_; }
  // Each program launch configures its cores for a new configuration number;
  // a core configured for an older one has no live CBs or semaphores.
  uint64_t configuration() const { return configuration_; }
  uint64_t new_configuration() { return ++configuration_; }

  // Cores whose DPRINT output is shown (from TESSEL_DPRINT_CORES at construction).
  bool dprint_enabled(uint32_t core_index) const;
  uint32_t device_id = 0;

  // Run one launch set to completion on the calling thread. The caller has
  // set up arguments, CBs and semaphores. Throws KernelError, KernelFault,
  // DeadlockError or Interrupted (interrupt.hpp); the chip stays usable.
  void run(std::span<const Launch> launches);

  // The card agent taking part in runs (card_agent.hpp), or none. Not owned.
  void set_agent(CardAgent* agent) { agent_ = agent; }
  CardAgent* agent() const { return agent_; }
  // Ends the current run at its next fiber switch with RunStopped(reason).
  // Call on the run's thread (from the agent).
  void request_stop(std::string reason);
  // "file:line" in f's kernel where a stopped or faulted fiber was (the
  // innermost frame of the kernel's own code), or "" when unknown.
  std::string kernel_location(const Fiber* f) const;
  bool stop_requested() const { return stop_requested_; }
  // Every fiber of the current run (valid during the run, for reports).
  std::span<Fiber* const> active_fibers() const { return active_; }
  // "waits for ... at file:line" for a blocked fiber, as deadlock reports say it.
  std::string describe_wait(const Fiber* f) const;

  // ---- Runs of several chips at once (chip_group.hpp) ----
  // The start of a run whose fibers run_slice() then runs, interleaved with
  // other chips' by the group's driver on this thread.
  void begin_group_run(std::span<const Launch> launches, WatchSlot& watch);
  // Runs ready fibers until none is ready or `budget` switches were made;
  // whether any ran. A failure throws as run() does, this chip's run
  // aborted first.
  bool run_slice(std::span<const Launch> launches, uint32_t budget);
  bool run_finished() const { return remaining_ == 0; }
  bool poll_waiters() { return poll_memory_waiters(); }
  void end_group_run(std::span<const Launch> launches);
  void abort_group_run(std::span<const Launch> launches);
  // The rows of a deadlock report (each "\n  " + prefix + ...) and how
  // many RISCs are blocked.
  std::string deadlock_rows(const std::string& prefix, size_t& blocked) const;
  // Put before "core (x,y)" in every report about this chip's kernels:
  // "device 3: " for a chip of a mesh; empty for a lone device.
  void set_label(std::string label) { label_ = std::move(label); }
  const std::string& label() const { return label_; }
  // The fabric joining this chip to others (fabric.hpp), or none. Not owned.
  void set_fabric(class Fabric* fabric, uint32_t chip_index) { fabric_ = fabric, fabric_chip_ = chip_index; }
  class Fabric* fabric() const { return fabric_; }
  uint32_t fabric_chip() const { return fabric_chip_; }

  // Statistics of the last run.
  uint64_t last_run_switches() const { return switches_; }

  // The device profiler (profiler.hpp): off until turned on; its records
  // accumulate over runs until cleared. Runs are numbered from 1 (the
  // records' run host ID).
  const Profiler& profiler() const { return profiler_; }
  Profiler& profiler() { return profiler_; }
  void set_profiler_enabled(bool on);
  uint32_t run_count() const { return run_count_; }

  // The event trace (trace.hpp): none unless set; set_tracer (trace.cpp)
  // also points every RISC at the traced kernel API table, or back.
  Tracer* tracer() const { return tracer_.get(); }
  void set_tracer(std::unique_ptr<Tracer> tracer);

  // The cycle estimate (timing.hpp): none unless set; set_chip_timing
  // (timing.cpp) attaches it and points every RISC at the timed calls.
  Timing* timing() const { return timing_.get(); }
  std::unique_ptr<Timing>& timing_slot() { return timing_; }
  // Points every RISC at the kernel API table for the trace and timing now set.
  void refresh_api_table();

  // Used by the kernel API implementation (sim internals).
  // Progress and looking calls: see watchdog.hpp.
  void note_progress() { sim::note_progress(*t_watch); }
  void check_progress(Fiber* f, const char* call, const char* file, uint32_t line) {
    if (__builtin_expect(is_stalled(*t_watch), 0)) stop_stalled(f, call, file, line);
  }
  void make_ready(Fiber* f) { make_ready(f, 0); }
  // make_ready with the waker's clock at least `waker_clock` (a wake by a
  // RISC that is not the one running here).
  void make_ready(Fiber* f, uint64_t waker_clock);
  // make_ready by the card (a dispatcher's delivery): the fiber's clock moves
  // up to `clock` exactly, whichever RISC runs on this thread meanwhile.
  void make_ready_by_card(Fiber* f, uint64_t clock);
  // The running fiber f waits, without switching out, until its clock is
  // `clock` (a card's command queued for it that may start only then): traced
  // as a wait for f->wait, as a block would be.
  void wait_until_clock(Fiber* f, uint64_t clock);
  // A fiber made ready on its owner's thread, its clock moved up to its
  // waker's (make_ready; a parallel run's posted fibers, parallel_run.cpp).
  void mark_ready(Fiber* f, uint64_t waker_clock);
  // After a store into core's L1 that may satisfy a fiber parked on a word there.
  // `dst`, `bytes`: the L1 bytes written (under parallel, a write into a
  // semaphore carries the writer's clock to its waiters; null: none does).
  void after_write(Core& core, const volatile void* dst = nullptr, uint32_t bytes = 0) {
    if (__builtin_expect(parallel_ != nullptr, 0))
      after_write_parallel(core, dst, bytes);
    else if (!core.mem_waiters.empty())
      wake_memory_waiters(core, dst, bytes);
  }
  // Parks the running fiber on an L1 word of its own core until a store
  // satisfies f->wait (set by the caller).
  void wait_memory(Fiber* f);
  // block() / wait_memory() holding a spin lock (true = held) that the
  // scheduler releases once the fiber has switched out, so that no other
  // thread can make it ready before it is parked.
  void block_releasing(Fiber* f, std::atomic<bool>& lock);
  void wait_memory_releasing(Fiber* f, std::atomic<bool>& lock);
  // Ends f's memory wait early, as if satisfied; from any thread of the run.
  void cancel_memory_wait(Fiber* f);
  // Never returns: the calling fiber's frames are abandoned, not unwound. So
  // build the message in a statement of its own (`std::string m = ...;`) and
  // pass it with std::move: a string still alive in the caller would leak.
  [[noreturn]] void fail(Fiber* f, std::string message, const char* file, uint32_t line);
  // As fail(), with the whole report already built (a location from a code
  // address, see where_at): a KernelFault when `crash`, else a KernelError.
  [[noreturn]] void fail_report(Fiber* f, std::string report, bool crash);
  // A likely bug that silicon runs correctly (design §8): printed once per
  // kernel and call site; with TESSEL_STRICT=1 it fails the kernel instead.
  void warn(Fiber* f, std::string message, const char* file, uint32_t line);
  // "file:line: core (x,y) RISC: " for the source location of a return
  // address in kernel code (the call before it), or without the location.
  std::string where_at(const Fiber* f, uintptr_t return_pc) const;
  void block(Fiber* f); // park the running fiber until make_ready()
  // Let every other ready fiber run first; false (without switching) when
  // no other fiber is ready.
  bool yield(Fiber* f);
  // Wakes the core's memory waiters whose words are satisfied. `dst`,
  // `bytes`: the store that may have satisfied them (null: unknown); under
  // parallel a waiter on a word that store did not write takes the clock
  // another thread's store left on its semaphore, not the running RISC's.
  void wake_memory_waiters(Core& core, const volatile void* dst = nullptr, uint32_t bytes = 0);
  // Removes f from its core's memory waiters (it stopped waiting).
  void forget_memory_waiter(Fiber* f);
  std::string where(const Fiber* f, const char* file, uint32_t line) const;
  static const char* risc_name(uint32_t risc);

private:
  friend class ParallelRun;
  void resume(Fiber* f);                     // switch to a ready fiber until it blocks, yields or ends
  void wake(Fiber* f, uint64_t waker_clock); // make_ready's work, with the waker's clock given
  Fiber* fiber_for(Core& core, uint32_t risc);
  void after_write_parallel(Core& core, const volatile void* dst, uint32_t bytes);
  void finish_run(std::span<const Launch> launches);
  // Ends a run stopped by a failed or faulted fiber: throws its error.
  [[noreturn]] void throw_failure(Fiber* f, std::span<const Launch> launches);
  // End a run: Interrupted, RunStopped (request_stop's reason), DeadlockError.
  [[noreturn]] void throw_interrupted(std::span<const Launch> launches);
  [[noreturn]] void throw_stopped(std::span<const Launch> launches);
  [[noreturn]] void throw_deadlock(std::span<const Launch> launches);
  // A switch out of f (block, yield) is a scheduling point: in the checked
  // NoC mode the RISC's writes land (checked_noc.hpp).
  void land_writes_at_switch(Fiber* f) {
    if (__builtin_expect(checked_ != nullptr, 0) && !f->pending.empty()) checked_->land(*f, false, true);
  }
  void reset_fiber(Fiber* f);
  // A fiber of this thread was stopped by the watchdog (kStoppedSignal): the
  // card looks at its timers, and the run is to stop.
  void stopped_by_watchdog();
  // The run goes on through an interrupt request (card_agent.hpp).
  bool runs_through_interrupts() const { return agent_ && agent_->keeps_running_on_interrupt(); }
  void abort_run(std::span<const Launch> launches);
  std::string deadlock_report() const;
  std::string fault_report(const Fiber* f) const;
  [[noreturn]] void stop_stalled(Fiber* f, const char* call, const char* file, uint32_t line);
  std::string interrupted_report(size_t launches) const;
  std::string watchdog_seconds_text() const; // "10.0", as the watchdog's reports give the limit
  Fiber* pick_next();
  bool poll_memory_waiters();
  void prepare_run(std::span<const Launch> launches, WatchSlot& watch);
  void make_all_ready();
  // A fiber switched back: account for it, or throw its failure.
  void after_resume(Fiber* f, std::span<const Launch> launches);
  void settle_clocks(); // clock_epoch_ = the latest clock of this run's RISCs

  ArchSpec arch_;
  SchedulerPolicy policy_;
  DeviceMemory memory_;
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<int16_t> core_by_noc_;  // (y * 64 + x) -> core index or -1
  std::vector<uint8_t> dprint_cores_; // per core: 1 = enabled
  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<Fiber*> active_; // fibers of the current run
  RunQueue ready_;
  ParallelRun* parallel_ = nullptr; // set while a parallel run is on
  std::unique_ptr<ParallelRun> pool_;
  uint64_t rng_state_ = 0;
  uint64_t switches_ = 0;
  size_t remaining_ = 0; // fibers of the current run not yet done
  bool in_group_ = false;
  std::string label_;
  class Fabric* fabric_ = nullptr;
  uint32_t fabric_chip_ = 0;
  CardAgent* agent_ = nullptr;
  bool stop_requested_ = false;
  std::string stop_reason_;
  MemoryMap memory_map_;
  std::unordered_set<uint64_t> warned_sites_; // warn(): (kernel, file, line) already reported
  std::mutex warned_mutex_;
  bool check_memory_ = true;
  uint64_t configuration_ = 0;
  uint32_t watchdog_timeout_ms_ = 0;
  Profiler profiler_;
  uint32_t run_count_ = 0;
  uint64_t clock_epoch_ = 0; // the latest RISC clock of the runs so far
  std::unique_ptr<Tracer> tracer_;
  std::unique_ptr<CheckedNoc> checked_;
  std::unique_ptr<Timing> timing_;
  struct StackPool;
  std::unique_ptr<StackPool> stacks_;
};

// A fiber blocked on an L1 word whose wait is now satisfied.
bool memory_wait_satisfied(const Fiber* f);

// The function table kernels call through (kernel_api.cpp).
const tessel_sim_api* kernel_api_table();

} // namespace tessel::sim
