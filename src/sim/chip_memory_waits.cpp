// A chip's fibers parked on L1 words (semaphore waits): parking, waking
// after a store, polling when nothing else can run, and a wait ended early.
// Under the parallel policy a core's waiters are touched only by the thread
// that owns the core; other threads read `Core::waiting` and poke it
// (parallel_run.hpp).
#include <algorithm>

#include "sim/chip.hpp"
#include "sim/parallel_run.hpp"

namespace tessel::sim {

namespace {
bool wait_satisfied(const WaitInfo& w) {
  switch (w.kind) {
  case WaitKind::SemEqual: return __atomic_load_n(w.sem, __ATOMIC_ACQUIRE) == w.value;
  case WaitKind::SemAtLeast: return __atomic_load_n(w.sem, __ATOMIC_ACQUIRE) >= w.value;
  default: return false;
  }
}
} // namespace

void Chip::wake_memory_waiters(Core& core, const volatile void* dst, uint32_t bytes) {
  auto& ws = core.mem_waiters;
  const auto wrote = [&](const Fiber* f) {
    const auto* word = reinterpret_cast<const volatile uint8_t*>(f->wait.sem);
    const auto* first = static_cast<const volatile uint8_t*>(dst);
    return dst == nullptr || (word + 4 > first && word < first + bytes);
  };
  for (size_t i = 0; i < ws.size();) {
    if (wait_satisfied(ws[i]->wait)) {
      Fiber* f = ws[i];
      ws[i] = ws.back();
      ws.pop_back();
      note_progress();
      // Satisfied by an earlier store of another thread (its poke not yet
      // polled), not by this one: the wait ended at that store's clock.
      if (parallel_ && !wrote(f))
        wake(f, ParallelRun::semaphore_store_clock(*f));
      else
        make_ready(f);
    } else {
      ++i;
    }
  }
  core.waiting.store(uint32_t(ws.size()), std::memory_order_relaxed);
}

void Chip::wait_memory(Fiber* f) {
  Core& c = *f->core;
  c.mem_waiters.push_back(f);
  c.waiting.store(uint32_t(c.mem_waiters.size()), std::memory_order_relaxed);
  block(f);
}

void Chip::block_releasing(Fiber* f, std::atomic<bool>& lock) {
  f->release_after_switch = &lock;
  block(f);
}

void Chip::wait_memory_releasing(Fiber* f, std::atomic<bool>& lock) {
  f->release_after_switch = &lock;
  wait_memory(f);
}

void Chip::cancel_memory_wait(Fiber* f) {
  if (parallel_) return parallel_->cancel_memory_wait(f);
  if (f->state != FiberState::Blocked) return;
  forget_memory_waiter(f);
  make_ready(f);
}

void Chip::forget_memory_waiter(Fiber* f) {
  auto& ws = f->core->mem_waiters;
  ws.erase(std::remove(ws.begin(), ws.end(), f), ws.end());
  f->core->waiting.store(uint32_t(ws.size()), std::memory_order_relaxed);
}

bool memory_wait_satisfied(const Fiber* f) {
  return f->state == FiberState::Blocked &&
         (f->wait.kind == WaitKind::SemEqual || f->wait.kind == WaitKind::SemAtLeast) &&
         (wait_satisfied(f->wait) || f->wait_cancelled.load(std::memory_order_acquire));
}

bool Chip::poll_memory_waiters() {
  bool any = false;
  for (Fiber* f : active_) {
    if (memory_wait_satisfied(f)) {
      forget_memory_waiter(f);
      note_progress();
      make_ready(f);
      any = true;
    }
  }
  return any;
}

void Chip::after_write_parallel(Core& core, const volatile void* dst, uint32_t bytes) {
  parallel_->after_write(core, dst, bytes);
}

} // namespace tessel::sim
