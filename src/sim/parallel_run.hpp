// The parallel policy (design §1.4): a run's cores spread over host threads.
//
// Model
//  - The cores of the run are split into `n` contiguous groups by index, one
//    per worker thread (the caller's thread is worker 0; workers 1..n-1 are
//    kept between runs, parked while no run is on). All RISCs of a core run
//    on its worker, so CBs, DST and a core's waiter lists are only touched by
//    one thread; what crosses threads is L1 and DRAM data, semaphores, and
//    the wake-ups they cause.
//  - Each worker has its own ready queue. A fiber made ready by another
//    worker is posted to its owner's inbox (a lock-free stack); a store into
//    a core another worker owns pokes that worker if the core has memory
//    waiters (`Core::waiting`), leaving the writer's clock on the
//    semaphores it wrote (`Core::semaphore_store_clock`) for their waiters,
//    and the owner re-polls them. A store racing
//    with a fiber that is just starting to wait is caught by the owner's
//    poll before it goes idle (a fence on each side).
//  - A worker with nothing to run goes idle: it spins for a while, then
//    parks on a futex; a poke or a post wakes it (a futex wake costs tens
//    of microseconds on a VM, so a wake-up that comes soon never parks).
//  - Deadlock detection is exact, never a timeout: `active` counts workers
//    that are not idle, and only an active worker can wake another (it
//    counts the woken worker active before it goes idle itself; an idle
//    worker never wakes itself on a flag it sees). When the last active
//    worker goes idle nothing can change any more; it polls
//    every memory waiter once (a plain store may have satisfied one without
//    a poke), and if none is satisfied the run is deadlocked and ends with
//    the same report as under the deterministic policy.
//  - A card agent (card_agent.hpp) is served by worker 0 alone: it polls the
//    agent every kPollSwitches switches, and instead of going idle it polls
//    the agent while other workers run, or calls the agent's idle() when
//    every other worker is idle (the agent may park there for the host), so
//    worker 0 is never counted idle and the agent decides every deadlock.
//    The agent's persistent kernels call it from every worker: it
//    serialises them itself (block_releasing).
//  - A failed or faulted fiber, a deadlock, an interrupt or the last fiber
//    finishing ends the run: the first end wins, every worker stops at its
//    next switch, and the caller's thread reports it as Chip::run does.
//
// Guarantee: a race-free program (one whose kernels order every access to
// shared data by CBs, semaphores and barriers) gives the same results as
// under `deterministic`. A program whose result depends on the interleaving
// may differ run to run: `random:<seed>` exists to find such programs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "base/park.hpp"
#include "sim/run_queue.hpp"

namespace tessel::sim {

class Chip;
struct Core;
struct Fiber;

// The host's cores this process may run on.
uint32_t host_cores();

class ParallelRun {
public:
  enum class End : uint32_t { Finished = 1, Failed, Deadlock, Interrupted, Stopped };
  struct Worker; // one host thread's share of a run

  explicit ParallelRun(Chip& chip);
  ~ParallelRun();
  ParallelRun(const ParallelRun&) = delete;
  ParallelRun& operator=(const ParallelRun&) = delete;

  // The distinct cores of a run's fibers.
  static uint32_t cores_of(std::span<Fiber* const> fibers);
  // The clock another thread's store left on the semaphore f waits on (0 when
  // f waits on another L1 word: no clock).
  static uint64_t semaphore_store_clock(const Fiber& f);

  // Runs the chip's active fibers (all Idle, entries set) on up to `threads`
  // threads until the run ends. The caller reports the end as Chip::run does.
  End run(uint32_t threads, uint32_t watchdog_ms);
  Fiber* failed_fiber() const { return failed_.load(std::memory_order_acquire); }
  uint64_t switches() const;
  // Empties every queue and inbox (the run was abandoned).
  void clear();
  // The run is to stop: a worker still running a RISC that does not switch
  // at_ns (steady_ns) plus the watchdog's grace is stopped (watchdog.hpp, W4).
  void stop_workers(int64_t at_ns);

  // On a worker thread, during a run (from Chip):
  // The calling worker's queue when f runs on it; else posts f to its owner
  // (which marks it ready, with the waker's clock, when it takes it) and
  // returns null.
  RunQueue* queue_for(Fiber* f, uint64_t waker_clock);
  // The calling worker's queue if another fiber can run now, else null.
  RunQueue* yield_queue();
  // After a store into core's L1 (see Chip::after_write).
  void after_write(Core& core, const volatile void* dst, uint32_t bytes);
  // Chip::cancel_memory_wait: f's owner wakes it at its next poll.
  void cancel_memory_wait(Fiber* f);

private:
  void start_threads(uint32_t count);
  void thread_main(Worker& w);
  void work(Worker& w);
  bool go_idle(Worker& w);                // true: the run is over
  bool serve_agent(Worker& w);            // worker 0 with a card agent, nothing to run; true: the run is over
  bool wake_satisfied_waiters(Worker& w); // every other worker idle: poke the owners of satisfied waits
  bool poll(Worker& w);                   // wakes w's satisfied memory waiters
  void take_posted(Worker& w);
  void post(Worker& owner, Fiber* f, uint64_t waker_clock);
  void poke(Worker& v);
  void activate(Worker& v);
  void reactivate(Worker& w);
  void end(End how);

  Chip& chip_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<uint32_t> used_{0}; // workers of the current run
  uint32_t watchdog_ms_ = 0;
  std::atomic<uint64_t> generation_{0}; // runs started: wakes the worker threads
  std::atomic<bool> quit_{false};
  std::atomic<uint32_t> active_{0};    // workers not idle
  std::atomic<uint64_t> remaining_{0}; // fibers not done
  std::atomic<uint32_t> end_{0};       // End, 0 while the run is on
  std::atomic<Fiber*> failed_{nullptr};
  std::atomic<uint32_t> finished_workers_{0};
  base::ParkWord caller_park_;
};

} // namespace tessel::sim
