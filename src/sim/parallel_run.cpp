#include "sim/parallel_run.hpp"

#include <sched.h>

#include <algorithm>

#include "sim/card_agent.hpp"
#include "sim/chip.hpp"
#include "sim/fault.hpp"
#include "sim/timing.hpp"
#include "sim/watchdog.hpp"
#include "tessel/interrupt.hpp"

namespace tessel::sim {

namespace {
// Idle workers check this many times (yielding the core every 64th) before
// they park; between runs the worker threads do the same.
constexpr uint32_t kSpinChecks = 4096;
constexpr uint32_t kParkUs = 100000; // a parked worker re-checks this often
} // namespace

struct ParallelRun::Worker {
  uint32_t index = 0;
  RunQueue queue;
  std::vector<Fiber*> fibers; // of this run, owned by this worker
  uint64_t switches = 0;
  uint64_t seen_generation = 0;
  std::thread thread;
  alignas(64) std::atomic<Fiber*> inbox{nullptr}; // fibers other workers made ready
  std::atomic<uint32_t> poked{0};                 // a store may have satisfied a memory waiter here
  std::atomic<uint32_t> idle{0};                  // 1: idle (not counted in active_)
  base::ParkWord park;                            // parked while idle in a run
  base::ParkWord between;                         // parked between runs (threads 1..)
  std::atomic<WatchSlot*> watch{nullptr};         // this worker's watchdog slot while it runs
};

namespace {
thread_local ParallelRun::Worker* t_worker = nullptr;
} // namespace

uint32_t host_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return uint32_t(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

ParallelRun::ParallelRun(Chip& chip) : chip_(chip) {}

ParallelRun::~ParallelRun() {
  quit_.store(true);
  for (auto& w : workers_)
    base::unpark(w->between);
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
}

uint32_t ParallelRun::cores_of(std::span<Fiber* const> fibers) {
  uint32_t last = 0;
  for (const Fiber* f : fibers)
    last = std::max(last, f->core->index);
  std::vector<uint8_t> seen(last + 1, 0);
  uint32_t n = 0;
  for (const Fiber* f : fibers)
    if (!seen[f->core->index]++) ++n;
  return n;
}

void ParallelRun::start_threads(uint32_t count) {
  while (workers_.size() < count) {
    auto w = std::make_unique<Worker>();
    w->index = uint32_t(workers_.size());
    w->seen_generation = generation_.load();
    Worker& ref = *w;
    workers_.push_back(std::move(w));
    if (ref.index > 0) ref.thread = std::thread([this, &ref] { thread_main(ref); });
  }
}

void ParallelRun::thread_main(Worker& w) {
  for (;;) {
    uint32_t checks = 0;
    const auto ready = [&] { return quit_.load() || generation_.load(std::memory_order_acquire) != w.seen_generation; };
    while (!base::spin_or_park(w.between, checks, kSpinChecks, kParkUs, ready)) {
    }
    if (quit_.load()) return;
    w.seen_generation = generation_.load(std::memory_order_acquire);
    if (w.index >= used_.load(std::memory_order_relaxed)) continue;
    work(w);
    finished_workers_.fetch_add(1);
    base::unpark(caller_park_);
  }
}

ParallelRun::End ParallelRun::run(uint32_t threads, uint32_t watchdog_ms) {
  std::span<Fiber* const> fibers = chip_.active_;
  const uint32_t cores = cores_of(fibers);
  const uint32_t n = std::min(threads, cores);
  start_threads(n);
  // Contiguous groups of the run's cores, in index order.
  std::vector<Core*> order;
  order.reserve(cores);
  for (Fiber* f : fibers)
    order.push_back(f->core);
  std::sort(order.begin(), order.end(), [](const Core* a, const Core* b) { return a->index < b->index; });
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (uint32_t i = 0; i < chip_.core_count(); ++i)
    chip_.core(i).owner = 0;
  for (size_t i = 0; i < order.size(); ++i)
    order[i]->owner = uint32_t(i * n / order.size());
  for (uint32_t i = 0; i < n; ++i) {
    Worker& w = *workers_[i];
    w.queue.clear();
    w.queue.reserve(fibers.size());
    w.fibers.clear();
    w.switches = 0;
    w.inbox.store(nullptr);
    w.poked.store(0);
    w.idle.store(0);
  }
  for (Fiber* f : fibers) {
    Worker& w = *workers_[f->core->owner];
    w.fibers.push_back(f);
    f->state = FiberState::Ready;
    f->wait.kind = WaitKind::None;
    w.queue.push_back(f);
  }
  used_.store(n, std::memory_order_relaxed); // published by the generation's release
  watchdog_ms_ = watchdog_ms;
  active_.store(n);
  remaining_.store(fibers.size());
  end_.store(0);
  failed_.store(nullptr);
  finished_workers_.store(0);
  chip_.parallel_ = this;
  generation_.fetch_add(1, std::memory_order_release);
  for (uint32_t i = 1; i < n; ++i)
    base::unpark(workers_[i]->between);
  work(*workers_[0]);
  uint32_t checks = 0;
  while (!base::spin_or_park(caller_park_, checks, kSpinChecks, kParkUs,
                             [&] { return finished_workers_.load() == n - 1; })) {
  }
  chip_.parallel_ = nullptr;
  t_watch = &watch_slot();
  return End(end_.load());
}

uint64_t ParallelRun::switches() const {
  uint64_t n = 0;
  for (uint32_t i = 0; i < used_; ++i)
    n += workers_[i]->switches;
  return n;
}

void ParallelRun::clear() {
  for (auto& w : workers_) {
    w->queue.clear();
    w->fibers.clear();
    w->inbox.store(nullptr);
    w->poked.store(0);
  }
}

void ParallelRun::work(Worker& w) {
  t_worker = &w;
  ensure_fault_stack();
  WatchSlot& slot = watch_slot();
  t_watch = &slot;
  WatchScope watching(slot, watchdog_ms_);
  L1WindowThread window_thread;
  w.watch.store(&slot, std::memory_order_release);
  for (Fiber* f : w.fibers)
    f->core->ctx[f->risc].watch = &slot.words;
  CardAgent* const agent = w.index == 0 ? chip_.agent_ : nullptr;
  const bool interruptible = !chip_.runs_through_interrupts();
  if (!interruptible) slot.interruptible.store(0, std::memory_order_relaxed);
  uint32_t until_poll = CardAgent::kPollSwitches;
  for (;;) {
    if (__builtin_expect(end_.load(std::memory_order_relaxed) != 0, 0)) break;
    if (__builtin_expect(interrupt_requested(), 0) && interruptible) {
      end(End::Interrupted);
      break;
    }
    if (agent) {
      if (chip_.stop_requested_) {
        end(End::Stopped);
        break;
      }
      if (--until_poll == 0) {
        until_poll = CardAgent::kPollSwitches;
        agent->poll(chip_);
        continue;
      }
    }
    if (w.inbox.load(std::memory_order_relaxed)) take_posted(w);
    if (w.poked.load(std::memory_order_relaxed) && w.poked.exchange(0, std::memory_order_acquire)) poll(w);
    Fiber* f = w.queue.pop_front();
    if (!f) {
      // Pairs with the fence of a store's after_write (see the header).
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (poll(w)) continue;
      if (agent ? serve_agent(w) : go_idle(w)) break;
      continue;
    }
    ++w.switches;
    chip_.resume(f);
    switch (f->state) {
    case FiberState::Done:
      note_progress(slot);
      if (remaining_.fetch_sub(1) == 1) end(End::Finished);
      break;
    case FiberState::Faulted:
      if (f->fault_signal == kStoppedSignal) {
        // Stopped by the watchdog (W4): the card's deadline passed while this
        // worker ran it, or the run was asked to stop. Not a failure.
        if (agent) chip_.stopped_by_watchdog();
        end(End::Stopped);
        break;
      }
      [[fallthrough]];
    case FiberState::Failed: {
      Fiber* none = nullptr;
      if (failed_.compare_exchange_strong(none, f)) end(End::Failed);
      break;
    }
    default: break;
    }
  }
  w.watch.store(nullptr, std::memory_order_release);
  t_worker = nullptr;
}

void ParallelRun::stop_workers(int64_t at_ns) {
  for (uint32_t i = 0; i < used_; ++i)
    if (WatchSlot* slot = workers_[i]->watch.load(std::memory_order_acquire))
      slot->stop_at_ns.store(at_ns, std::memory_order_relaxed);
}

bool ParallelRun::wake_satisfied_waiters(Worker& w) {
  bool found = false;
  for (uint32_t i = 0; i < used_; ++i) {
    Worker& v = *workers_[i];
    if (std::any_of(v.fibers.begin(), v.fibers.end(), memory_wait_satisfied)) {
      found = true;
      if (&v == &w)
        w.poked.store(1);
      else
        poke(v);
    }
  }
  return found;
}

bool ParallelRun::serve_agent(Worker& w) {
  if (active_.load() > 1) {
    // Others run: feed the card now and then, and sleep until poked or posted to.
    chip_.agent_->poll(chip_);
    if (!w.queue.empty()) return false;
    w.park.parked.store(1);
    if (!w.inbox.load() && !w.poked.load() && !end_.load()) base::park(w.park, 50);
    w.park.parked.store(0);
    return false;
  }
  // Every other worker is idle, so nothing changes but by this thread.
  if (wake_satisfied_waiters(w)) return false;
  if (chip_.agent_->idle(chip_) || chip_.stop_requested_) return false; // a stop ends the run at the loop's top
  end(End::Deadlock);
  return true;
}

bool ParallelRun::go_idle(Worker& w) {
  // A post or poke that came after this worker's last look is either seen
  // here or sees idle == 1 and counts the worker active again (seq_cst on
  // both sides). Either way the worker is counted while it has work.
  w.idle.store(1);
  if (w.inbox.load() || w.poked.load()) {
    uint32_t one = 1;
    if (!w.idle.compare_exchange_strong(one, 0)) active_.fetch_sub(1); // a waker counted it as well
    return false;
  }
  if (active_.fetch_sub(1) == 1) {
    // Every worker is idle: nothing can change unless a plain store satisfied
    // a memory waiter without a poke.
    reactivate(w);
    if (end_.load()) return true;
    if (wake_satisfied_waiters(w)) return false;
    end(End::Deadlock);
    return true;
  }
  // Only a waker that has counted this worker active again wakes it (see
  // activate): a worker that woke itself on a flag could take a fiber after
  // the last active worker had found nothing to run and declared a deadlock.
  uint32_t checks = 0;
  const auto ready = [&] { return end_.load(std::memory_order_relaxed) || !w.idle.load(std::memory_order_acquire); };
  while (!base::spin_or_park(w.park, checks, kSpinChecks, kParkUs, ready)) {
  }
  if (end_.load()) return true;
  note_progress(*t_watch); // waiting for another thread is not a stall of this one
  return false;
}

uint64_t ParallelRun::semaphore_store_clock(const Fiber& f) {
  const Core& c = *f.core;
  if (!f.wait.sem) return 0;
  const uint64_t offset = uint64_t(reinterpret_cast<const volatile uint8_t*>(f.wait.sem) - c.l1);
  uint64_t clock = 0;
  for_each_semaphore_in(c, offset, 4,
                        [&](uint32_t s) { clock = c.semaphore_store_clock[s].load(std::memory_order_relaxed); });
  return clock;
}

bool ParallelRun::poll(Worker& w) {
  bool any = false;
  for (Fiber* f : w.fibers)
    if (memory_wait_satisfied(f)) {
      chip_.forget_memory_waiter(f);
      chip_.note_progress();
      chip_.make_ready(f, semaphore_store_clock(*f));
      any = true;
    }
  return any;
}

void ParallelRun::take_posted(Worker& w) {
  Fiber* list = w.inbox.exchange(nullptr, std::memory_order_acquire);
  Fiber* reversed = nullptr; // the stack is newest first; run them oldest first
  while (list) {
    Fiber* next = list->posted_next.load(std::memory_order_relaxed);
    list->posted_next.store(reversed, std::memory_order_relaxed);
    reversed = list;
    list = next;
  }
  for (; reversed; reversed = reversed->posted_next.load(std::memory_order_relaxed)) {
    chip_.mark_ready(reversed, reversed->posted_clock);
    w.queue.push_back(reversed);
  }
}

void ParallelRun::post(Worker& owner, Fiber* f, uint64_t waker_clock) {
  f->posted_clock = waker_clock; // published by the inbox's exchange
  Fiber* head = owner.inbox.load(std::memory_order_relaxed);
  do
    f->posted_next.store(head, std::memory_order_relaxed);
  while (!owner.inbox.compare_exchange_weak(head, f));
  activate(owner);
}

void ParallelRun::poke(Worker& v) {
  v.poked.store(1);
  activate(v);
}

void ParallelRun::activate(Worker& v) {
  // The caller is active, so active_ cannot reach 0 before v is counted. v
  // is counted before its idle flag clears: cleared first, v could run, go
  // idle again and take the caller's count with its decrement.
  if (v.idle.load()) {
    active_.fetch_add(1);
    uint32_t one = 1;
    if (!v.idle.compare_exchange_strong(one, 0)) active_.fetch_sub(1); // someone else woke it
  }
  base::unpark(v.park);
}

void ParallelRun::reactivate(Worker& w) {
  uint32_t one = 1;
  if (w.idle.compare_exchange_strong(one, 0)) active_.fetch_add(1);
}

void ParallelRun::end(End how) {
  uint32_t none = 0;
  end_.compare_exchange_strong(none, uint32_t(how));
  for (uint32_t i = 0; i < used_; ++i)
    base::unpark(workers_[i]->park);
}

RunQueue* ParallelRun::queue_for(Fiber* f, uint64_t waker_clock) {
  Worker& owner = *workers_[f->core->owner];
  if (t_worker == &owner) return &owner.queue;
  post(owner, f, waker_clock);
  return nullptr;
}

RunQueue* ParallelRun::yield_queue() {
  Worker& w = *t_worker;
  if (w.inbox.load(std::memory_order_relaxed)) take_posted(w);
  if (w.queue.empty() && !poll(w)) return nullptr;
  return &w.queue;
}

void ParallelRun::cancel_memory_wait(Fiber* f) {
  f->wait_cancelled.store(true, std::memory_order_release);
  Worker& owner = *workers_[f->core->owner];
  if (&owner == t_worker)
    owner.poked.store(1);
  else
    poke(owner);
}

void ParallelRun::after_write(Core& core, const volatile void* dst, uint32_t bytes) {
  if (workers_[core.owner].get() == t_worker) {
    if (!core.mem_waiters.empty()) chip_.wake_memory_waiters(core, dst, bytes);
    return;
  }
  // Pairs with the fence before the owner's last poll (see the header).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!core.waiting.load(std::memory_order_relaxed)) return;
  // The writer's clock on the semaphores it wrote, for the waiters the poke
  // wakes (published by the poke).
  const Fiber* writer = running_fiber();
  if (writer && dst) {
    const uint64_t clock = writer->core->ctx[writer->risc].clock;
    const uint64_t offset = uint64_t(static_cast<const volatile uint8_t*>(dst) - core.l1);
    for_each_semaphore_in(core, offset, bytes,
                          [&](uint32_t s) { Timing::stamp_max(core.semaphore_store_clock[s], clock); });
  }
  poke(*workers_[core.owner]);
}

} // namespace tessel::sim
