#include "sim/chip.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "base/env.hpp"
#include "base/warning.hpp"
#include "sim/fabric.hpp"
#include "sim/fault.hpp"
#include "sim/fiber_sanitizers.hpp"
#include "sim/parallel_run.hpp"
#include "sim/progress.hpp"
#include "sim/timing.hpp"
#include "sim/trace.hpp"
#include "tessel/error.hpp"
#include "tessel/interrupt.hpp"

namespace tessel::sim {

namespace {
constexpr size_t kPage = 4096;
constexpr size_t kSlot = TESSEL_FIBER_SLOT_BYTES;

uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

thread_local Fiber* t_running = nullptr;

void fiber_main(bctx::transfer_t t);

// TESSEL_DPRINT_CORES: "all", "x,y", "(x1,y1)-(x2,y2)", several separated by
// ';'. Cores outside this chip's grid are left out (one setting serves chips
// of every size); anything else malformed is a ValidationError.
std::vector<uint8_t> parse_dprint_cores(const ArchSpec& arch) {
  std::vector<uint8_t> on(arch.core_count(), 0);
  const std::optional<std::string> env = base::env_text("TESSEL_DPRINT_CORES");
  if (!env) return on;
  if (*env == "all" || *env == "worker") {
    std::fill(on.begin(), on.end(), 1);
    return on;
  }
  std::stringstream ss(*env);
  std::string item;
  while (std::getline(ss, item, ';')) {
    unsigned x0, y0, x1, y1;
    const char* p = item.c_str();
    const auto space = [&] {
      while (*p == ' ')
        ++p;
    };
    const auto eat = [&](char c) { return space(), *p == c ? (++p, true) : false; };
    const auto number = [&](unsigned& v) {
      space();
      if (*p < '0' || *p > '9') return false;
      for (v = 0; *p >= '0' && *p <= '9' && v < 100000; ++p)
        v = v * 10 + unsigned(*p - '0');
      return true;
    };
    const bool range = eat('(') && number(x0) && eat(',') && number(y0) && eat(')') && eat('-') && eat('(') &&
                       number(x1) && eat(',') && number(y1) && eat(')');
    if (!range) {
      p = item.c_str();
      if (number(x0) && eat(',') && number(y0))
        x1 = x0, y1 = y0;
      else
        p = nullptr;
    }
    if (p) space();
    if (!p || *p != '\0')
      throw ValidationError("TESSEL_DPRINT_CORES='" + *env + "' is not valid: '" + item +
                            "' is not a core; expected all, x,y or (x1,y1)-(x2,y2), several separated by ';'");
    for (unsigned y = std::min(y0, y1); y <= std::max(y0, y1) && y < arch.grid_y; ++y)
      for (unsigned x = std::min(x0, x1); x <= std::max(x0, x1) && x < arch.grid_x; ++x)
        on[y * arch.grid_x + x] = 1;
  }
  return on;
}
} // namespace

// ---------------------------------------------------------------------------
// Stacks: slots of kSlot bytes aligned to kSlot, reserved lazily.

struct Chip::StackPool {
  std::vector<std::pair<uint8_t*, size_t>> regions;
  std::vector<uint8_t*> free_slots;

  uint8_t* take() {
    if (free_slots.empty()) grow(16);
    uint8_t* s = free_slots.back();
    free_slots.pop_back();
    return s;
  }
  void grow(size_t count) {
    size_t bytes = (count + 1) * kSlot;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw OutOfMemoryError("cannot reserve fiber stacks: " + std::string(std::strerror(errno)));
    const uintptr_t first = (reinterpret_cast<uintptr_t>(p) + kSlot - 1) & ~uintptr_t(kSlot - 1);
    for (size_t i = 0; i < count; ++i)
      if (mprotect(reinterpret_cast<uint8_t*>(first + i * kSlot) + kPage, kPage, PROT_NONE) != 0) {
        munmap(p, bytes);
        throw OutOfMemoryError("cannot protect a fiber stack's guard page: " + std::string(std::strerror(errno)));
      }
    regions.emplace_back(static_cast<uint8_t*>(p), bytes);
    uintptr_t base = (reinterpret_cast<uintptr_t>(p) + kSlot - 1) & ~uintptr_t(kSlot - 1);
    for (size_t i = 0; i < count; ++i) {
      uint8_t* slot = reinterpret_cast<uint8_t*>(base + i * kSlot);
      free_slots.push_back(slot);
    }
  }
  ~StackPool() {
    for (auto& [p, n] : regions)
      munmap(p, n);
  }
};

// ---------------------------------------------------------------------------

thread_local WatchSlot* t_watch = nullptr;

Chip::Chip(const ArchSpec& arch, SchedulerPolicy policy)
    : arch_(arch), policy_(policy),
      memory_(arch.core_count(), arch.l1_size_bytes, arch.dram_banks, arch.dram_bank_size_bytes),
      core_by_noc_(64 * 64, -1), stacks_(std::make_unique<StackPool>()) {
  base::check_variable_names();
  install_fault_handler();
  watchdog_timeout_ms_ = watchdog_timeout_ms_from_env();
  check_progress_setting();
  t_watch = &watch_slot();
  dprint_cores_ = parse_dprint_cores(arch_);
  cores_.reserve(arch.core_count());
  for (uint32_t y = 0; y < arch.grid_y; ++y) {
    for (uint32_t x = 0; x < arch.grid_x; ++x) {
      auto c = std::make_unique<Core>();
      c->chip = this;
      c->index = y * arch.grid_x + x;
      c->logical_x = x;
      c->logical_y = y;
      c->noc_x = x + arch.worker_noc_x0;
      c->noc_y = y + arch.worker_noc_y0;
      c->l1 = memory_.l1(c->index);
      core_by_noc_[c->noc_y * 64 + c->noc_x] = int16_t(c->index);
      // The virtual coordinates name the same core, where they overlap nothing.
      if (arch.virtual_worker_x0 && arch.worker_noc_x0 + arch.grid_x <= arch.virtual_worker_x0 &&
          arch.worker_noc_y0 + arch.grid_y <= arch.virtual_worker_y0 && arch.virtual_worker_x0 + x < 64 &&
          arch.virtual_worker_y0 + y < 64)
        core_by_noc_[(arch.virtual_worker_y0 + y) * 64 + arch.virtual_worker_x0 + x] = int16_t(c->index);
      cores_.push_back(std::move(c));
    }
  }
  for (auto& c : cores_) {
    for (uint32_t r = 0; r < TESSEL_RISC_COUNT; ++r) {
      tessel_kernel_ctx& k = c->ctx[r];
      k.abi_version = TESSEL_KERNEL_ABI_VERSION;
      k.risc = r;
      k.logical_x = c->logical_x;
      k.logical_y = c->logical_y;
      k.noc_x = c->noc_x;
      k.noc_y = c->noc_y;
      k.cbs = c->cbs;
      k.num_cb_indices = arch.num_cb_indices;
      k.l1_base = c->l1;
      k.l1_size_bytes = arch.l1_size_bytes;
      k.l1_alignment = arch.l1_alignment;
      k.dram_read_alignment = arch.dram_read_alignment;
      k.dram_write_alignment = arch.dram_write_alignment;
      k.num_dram_banks = arch.dram_banks;
      for (uint32_t b = 0; b < arch.dram_banks && b < TESSEL_MAX_DRAM_BANKS; ++b)
        k.dram_bank_noc_xy[b] = (dram_bank_noc_y(b) << 8) | dram_bank_noc_x(b);
      k.num_l1_banks = arch.core_count();
      for (uint32_t b = 0; b < arch.core_count(); ++b)
        k.l1_bank_noc_xy[b] = (cores_[b]->noc_y << 8) | cores_[b]->noc_x;
      k.dprint_enabled = dprint_cores_[c->index];
      k.no_fast_paths = fiber_san::no_fast_paths(false);
      k.api = kernel_api_table();
      k.sim_core = c.get();
    }
  }
  if (policy_.kind == SchedulerPolicy::Kind::Random) rng_state_ = policy_.seed;
}

Chip::~Chip() {
  pool_.reset();
  for (auto& f : fibers_)
    fiber_san::destroy(f->san);
}

namespace {
// Every parallel policy, whatever its thread count on this host: whether a
// command is accepted must not depend on the machine.
void require_single_thread(const SchedulerPolicy& policy, const char* where) {
  if (policy.kind == SchedulerPolicy::Kind::Parallel)
    throw ValidationError(std::string(where) + ": the checked NoC mode runs under the deterministic or random " +
                          "policy, not '" + policy.to_string() + "' (its landings are not thread-safe)");
}
} // namespace

void Chip::set_policy(SchedulerPolicy policy) {
  if (checked_) require_single_thread(policy, "set_policy");
  policy_ = policy;
  rng_state_ = policy.seed;
}

void Chip::set_noc_mode(NocMode mode) {
  if (mode == noc_mode()) return;
  if (mode == NocMode::Checked) {
    require_single_thread(policy_, "noc=checked");
    checked_ = std::make_unique<CheckedNoc>(*this);
  } else {
    checked_.reset();
  }
}

bool Chip::dprint_enabled(uint32_t core_index) const { return dprint_cores_[core_index] != 0; }

void Chip::set_profiler_enabled(bool on) {
  profiler_.set_enabled(on);
  for (auto& c : cores_)
    for (tessel_kernel_ctx& k : c->ctx)
      k.profiler_enabled = on ? 1 : 0;
  if (on)
    for (auto& f : fibers_)
      if (!f->profiler.markers) f->profiler.markers = std::make_unique<ProfilerMarker[]>(ProfilerBuffer::kCapacity);
}

void Chip::settle_clocks() {
  for (const Fiber* f : active_)
    clock_epoch_ = std::max(clock_epoch_, f->core->ctx[f->risc].clock);
}

const char* Chip::risc_name(uint32_t risc) {
  switch (risc) {
  case TESSEL_RISC_BRISC: return "BRISC";
  case TESSEL_RISC_NCRISC: return "NCRISC";
  case TESSEL_RISC_COMPUTE: return "COMPUTE";
  default: return "?";
  }
}

std::string Chip::where(const Fiber* f, const char* file, uint32_t line) const {
  std::string s;
  if (file) s += std::string(file) + ":" + std::to_string(line) + ": ";
  s += label_ + "core (" + std::to_string(f->core->logical_x) + "," + std::to_string(f->core->logical_y) + ") " +
       risc_name(f->risc) + ": ";
  return s;
}

std::string Chip::where_at(const Fiber* f, uintptr_t return_pc) const {
  std::string location = return_pc ? source_location_of(return_pc - 1) : std::string();
  return (location.empty() ? "" : location + ": ") + where(f, nullptr, 0);
}

// ---------------------------------------------------------------------------
// Fibers

namespace {
inline void switch_to(Fiber* f) {
  void* token = fiber_san::before_enter(f->san);
  t_running = f;
  bctx::transfer_t t = bctx::jump_fcontext(f->ctx, f);
  t_running = nullptr;
  f->ctx = t.fctx;
  fiber_san::after_return(token);
}

inline void yield_to_scheduler(Fiber* f) {
  void* token = fiber_san::before_leave();
  bctx::transfer_t t = bctx::jump_fcontext(f->return_ctx, nullptr);
  f->return_ctx = t.fctx;
  fiber_san::after_resume(token);
}

void fiber_main(bctx::transfer_t t) {
  Fiber* f = static_cast<Fiber*>(t.data);
  f->return_ctx = t.fctx;
  fiber_san::started();
  for (;;) {
    f->reads.clear();
    f->writes.clear();
    f->bad_coord_count = 0;
    Chip& chip = *f->core->chip;
    if (Fabric* fabric = chip.fabric()) fabric->kernel_started(f);
    const bool profiled = f->core->ctx[f->risc].profiler_enabled != 0;
    if (profiled) chip.profiler().begin_kernel(*f, chip.run_count());
    if (Tracer* t = chip.tracer()) t->kernel_begin(*f);
    if (f->entry() != 0) {
      f->core->chip->fail(f,
                          "kernel '" + std::string(f->kernel_name ? f->kernel_name : "?") +
                              "' defines no kernel_main() (nor NAMESPACE::MAIN)",
                          nullptr, 0);
    }
    // DPRINT text with no newline yet is printed when the kernel ends.
    if (tessel_kernel_ctx& k = f->core->ctx[f->risc]; k.dprint_length && k.dprint_enabled) {
      k.api->dprint(&k, k.dprint_buffer, k.dprint_length);
      k.dprint_length = 0;
    }
    if (f->risc == TESSEL_RISC_COMPUTE) {
      const char* file = nullptr;
      uint32_t line = 0;
      std::string held = dst_left_held(*f->core->compute, &file, &line);
      if (!held.empty()) f->core->chip->fail(f, std::move(held), file, line);
    }
    if (Fabric* fabric = chip.fabric()) {
      const char* file = nullptr;
      uint32_t line = 0;
      std::string open = fabric->left_open(f, &file, &line);
      if (!open.empty()) chip.fail(f, std::move(open), file, line);
    }
    for (const InFlight* q : {&f->reads, &f->writes})
      if (q->total) {
        const bool reads = q == &f->reads;
        f->core->chip->fail(f,
                            "kernel ended with " + std::to_string(q->total) + " NoC " + (reads ? "read" : "write") +
                                (q->total == 1 ? "" : "s") + " in flight (the first issued here): wait for them with " +
                                (reads ? "noc_async_read_barrier" : "noc_async_write_barrier") + " before returning",
                            q->ranges[0].file, q->ranges[0].line);
      }
    if (profiled) chip.profiler().end_kernel(*f);
    if (Tracer* t = chip.tracer()) t->kernel_end(*f);
    f->state = FiberState::Done;
    yield_to_scheduler(f);
  }
}
} // namespace

// Called on the emergency stack after a fault (see fault.cpp).
extern "C" [[noreturn]] void tessel_fault_landing(Fiber* f) {
  f->state = FiberState::Faulted;
  fiber_san::abandon();
  bctx::jump_fcontext(f->return_ctx, nullptr);
  __builtin_unreachable();
}

Fiber* running_fiber() { return t_running; }

Fiber* Chip::fiber_for(Core& core, uint32_t risc) {
  if (Fiber* f = core.fibers[risc]) return f;
  auto f = std::make_unique<Fiber>();
  f->slot = stacks_->take();
  f->core = &core;
  f->risc = risc;
  *reinterpret_cast<tessel_kernel_ctx**>(f->slot) = &core.ctx[risc];
  core.ctx[risc].sim_fiber = f.get();
  if (profiler_.enabled()) f->profiler.markers = std::make_unique<ProfilerMarker[]>(ProfilerBuffer::kCapacity);
  reset_fiber(f.get());
  core.fibers[risc] = f.get();
  fibers_.push_back(std::move(f));
  ready_.reserve(fibers_.size());
  return core.fibers[risc];
}

void Chip::reset_fiber(Fiber* f) {
  f->san.stack_lo = f->slot + 2 * kPage;
  f->san.stack_bytes = kSlot - 2 * kPage;
  fiber_san::reset(f->san);
  f->ctx = bctx::make_fcontext(f->slot + kSlot, kSlot - 2 * kPage, fiber_main);
  f->state = FiberState::Idle;
  f->wait = {};
  f->error_message.clear();
  f->fault_signal = 0;
}

void Chip::mark_ready(Fiber* f, uint64_t waker_clock) {
  f->state = FiberState::Ready;
  f->wait.kind = WaitKind::None;
  f->wait_cancelled.store(false, std::memory_order_relaxed);
  // The woken RISC's wait ends when the waker acted (profiler.hpp, "The clock").
  uint64_t& woken_clock = f->core->ctx[f->risc].clock;
  woken_clock = std::max(woken_clock, waker_clock);
}

void Chip::make_ready(Fiber* f, uint64_t at_least) {
  Fiber* cur = t_running;
  wake(f, std::max(at_least, cur != nullptr ? cur->core->ctx[cur->risc].clock : 0));
}

void Chip::make_ready_by_card(Fiber* f, uint64_t clock) { wake(f, clock); }

void Chip::wait_until_clock(Fiber* f, uint64_t clock) {
  uint64_t& own = f->core->ctx[f->risc].clock;
  if (clock <= own) return;
  if (tracer_) tracer_->wait_begin(*f);
  own = clock;
  if (tracer_) tracer_->wait_end(*f);
}

void Chip::wake(Fiber* f, uint64_t waker_clock) {
  Fiber* cur = t_running;
  RunQueue* queue = &ready_;
  if (__builtin_expect(parallel_ != nullptr, 0)) {
    // A fiber another thread owns is posted untouched: its owner marks it ready.
    queue = parallel_->queue_for(f, waker_clock);
    if (!queue) return;
  }
  mark_ready(f, waker_clock);
  if (cur != nullptr && cur->core == f->core) {
    // Woken by a RISC of its own core: run it next, while the core's CB data
    // and stacks are still in the host's caches (measured: tessel bench pipeline).
    queue->push_front(f);
  } else {
    queue->push_back(f);
  }
}

Fiber* Chip::pick_next() {
  if (policy_.kind == SchedulerPolicy::Kind::Random && ready_.size() > 1)
    ready_.swap_front(splitmix64(rng_state_) % ready_.size());
  return ready_.pop_front();
}

bool Chip::yield(Fiber* f) {
  RunQueue* queue = &ready_;
  if (__builtin_expect(parallel_ != nullptr, 0)) {
    queue = parallel_->yield_queue();
    if (!queue) return false;
  } else if (ready_.empty() && !poll_memory_waiters() && !in_group_) {
    return false; // in a run of several chips, another chip may have work
  }
  land_writes_at_switch(f);
  f->state = FiberState::Ready;
  queue->push_back(f);
  yield_to_scheduler(f);
  return true;
}

void Chip::resume(Fiber* f) {
  f->state = FiberState::Running;
  l1_window_before_switch(f->core->l1);
  switch_to(f);
  if (__builtin_expect(f->release_after_switch != nullptr, 0)) {
    f->release_after_switch->store(false, std::memory_order_release);
    f->release_after_switch = nullptr;
  }
}

void Chip::block(Fiber* f) {
  land_writes_at_switch(f);
  f->state = FiberState::Blocked;
  if (tracer_) tracer_->wait_begin(*f);
  yield_to_scheduler(f);
  if (tracer_) tracer_->wait_end(*f);
}

void Chip::fail(Fiber* f, std::string message, const char* file, uint32_t line) {
  std::string report = where(f, file, line) + message;
  std::string().swap(message); // free it: this frame is abandoned, never unwound
  fail_report(f, std::move(report), false);
}

void Chip::fail_report(Fiber* f, std::string report, bool crash) {
  f->error_message = std::move(report);
  std::string().swap(report); // free it: this frame is abandoned, never unwound
  if (crash) f->fault_signal = kCrashSignal;
  f->state = crash ? FiberState::Faulted : FiberState::Failed;
  yield_to_scheduler(f);
  __builtin_unreachable();
}

void Chip::warn(Fiber* f, std::string message, const char* file, uint32_t line) {
  // A per-chip set of call sites keeps a warning in a loop to one lookup.
  const uint64_t site = reinterpret_cast<uintptr_t>(file) * 0x9e3779b97f4a7c15ull ^
                        reinterpret_cast<uintptr_t>(f->kernel_name) * 0xbf58476d1ce4e5b9ull ^ line;
  {
    std::lock_guard lock(warned_mutex_);
    if (warned_sites_.count(site)) return;
  }
  std::string key = std::string(f->kernel_name ? f->kernel_name : "?") + "|" + (file ? file : "?") + ":" +
                    std::to_string(line) + "|" + message;
  std::string report = where(f, file, line) + message;
  std::string().swap(message);
  const base::Warned warned = base::warn_once(key, report);
  std::string().swap(key);
  if (warned == base::Warned::Strict) {
    report += base::kStrictSuffix;
    fail_report(f, std::move(report), false); // the frames are abandoned: nothing else is alive here
  }
  std::lock_guard lock(warned_mutex_);
  warned_sites_.insert(site);
}

void Chip::stop_stalled(Fiber* f, const char* call, const char* file, uint32_t line) {
  std::string report = where(f, file, line) + "kernel '" + (f->kernel_name ? f->kernel_name : "?") +
                       "' crashed: ran for more than " + watchdog_seconds_text() +
                       " s without progress: its calls to " + call +
                       " change nothing another RISC or the host can observe (no CB page pushed or popped, no "
                       "semaphore changed, no NoC transfer completed by a barrier): a loop that forgot a "
                       "cb_pop_front, a cb_push_back or a barrier, or that waits for something that cannot happen? "
                       "TESSEL_WATCHDOG_S sets the limit";
  fail_report(f, std::move(report), true);
}

void Chip::prepare_run(std::span<const Launch> launches, WatchSlot& watch) {
  ensure_fault_stack();
  // Every run replays from the seed, so a failing dispatch can be replayed alone.
  rng_state_ = policy_.seed;
  t_watch = &watch;
  switches_ = 0;
  ++run_count_;
  active_.clear();
  const uint64_t start = timing_ ? Timing::run_start(clock_epoch_) : clock_epoch_;
  for (const Launch& l : launches) {
    Core& c = core(l.core_index);
    Fiber* f = fiber_for(c, l.risc);
    c.ctx[l.risc].watch = &watch.words;
    c.ctx[l.risc].clock = std::max(c.ctx[l.risc].clock, start);
    f->entry = l.entry;
    f->kernel_name = l.kernel_name;
    if (l.risc == TESSEL_RISC_COMPUTE) reset_compute(c);
    if (checked_) kernel_code_range(reinterpret_cast<const void*>(l.entry), &f->code_lo, &f->code_hi);
    active_.push_back(f);
  }
  if (timing_) timing_->begin_run(active_);
  stop_requested_ = false;
  remaining_ = active_.size();
}

void Chip::make_all_ready() {
  ready_.clear();
  for (Fiber* f : active_)
    make_ready(f);
}

void Chip::after_resume(Fiber* f, std::span<const Launch> launches) {
  switch (f->state) {
  case FiberState::Done:
    --remaining_;
    sim::note_progress(*t_watch);
    return;
  case FiberState::Faulted:
    if (f->fault_signal == kStoppedSignal) return stopped_by_watchdog(); // the stop ends the run at the loop's top
    throw_failure(f, launches);
  case FiberState::Failed: throw_failure(f, launches);
  default: return;
  }
}

void Chip::run(std::span<const Launch> launches) {
  WatchSlot& watch = watch_slot();
  prepare_run(launches, watch);
  // A chip of a mesh with its fabric runs on one thread (fabric.hpp).
  if (policy_.kind == SchedulerPolicy::Kind::Parallel && policy_.thread_count() > 1 && !fabric_ &&
      ParallelRun::cores_of(active_) > 1) {
    if (!pool_) pool_ = std::make_unique<ParallelRun>(*this);
    switch (pool_->run(policy_.thread_count(), watchdog_timeout_ms_)) {
    case ParallelRun::End::Finished: switches_ = pool_->switches(); return finish_run(launches);
    case ParallelRun::End::Failed: throw_failure(pool_->failed_fiber(), launches);
    case ParallelRun::End::Interrupted: throw_interrupted(launches);
    case ParallelRun::End::Stopped: throw_stopped(launches);
    case ParallelRun::End::Deadlock: throw_deadlock(launches);
    }
  }
  WatchScope watching(watch, watchdog_timeout_ms_, agent_ == nullptr); // a card's run lasts its whole session
  L1WindowThread window_thread;
  const bool interruptible = !runs_through_interrupts();
  if (!interruptible) watch.interruptible.store(0, std::memory_order_relaxed);
  make_all_ready();

  uint32_t until_poll = CardAgent::kPollSwitches;
  for (;;) {
    if (__builtin_expect(interrupt_requested(), 0) && interruptible) throw_interrupted(launches);
    if (__builtin_expect(stop_requested_, 0)) throw_stopped(launches);
    if (agent_ && --until_poll == 0) {
      until_poll = CardAgent::kPollSwitches;
      agent_->poll(*this);
      continue;
    }
    Fiber* f = pick_next();
    if (!f) {
      if (remaining_ == 0) break;
      if (poll_memory_waiters()) continue;
      if (agent_ && (agent_->idle(*this) || stop_requested_)) continue;
      throw_deadlock(launches);
    }
    ++switches_;
    resume(f);
    after_resume(f, launches);
  }
  finish_run(launches);
}

// ---- Runs of several chips at once (chip_group.cpp) ------------------------

void Chip::begin_group_run(std::span<const Launch> launches, WatchSlot& watch) {
  if (agent_) throw ValidationError("a chip running a persistent program cannot join a run of several chips");
  prepare_run(launches, watch);
  in_group_ = true;
  make_all_ready();
}

bool Chip::run_slice(std::span<const Launch> launches, uint32_t budget) {
  bool ran = false;
  for (uint32_t i = 0; i < budget; ++i) {
    if (__builtin_expect(stop_requested_, 0)) throw_stopped(launches);
    Fiber* f = pick_next();
    if (!f) break;
    ++switches_;
    ran = true;
    resume(f);
    after_resume(f, launches);
  }
  return ran;
}

void Chip::end_group_run(std::span<const Launch> launches) {
  in_group_ = false;
  finish_run(launches);
}

void Chip::abort_group_run(std::span<const Launch> launches) {
  in_group_ = false;
  abort_run(launches);
}

void Chip::finish_run(std::span<const Launch> launches) {
  if (checked_) checked_->end_run(active_);
  for (Fiber* f : active_)
    f->state = FiberState::Idle;
  for (const Launch& l : launches) {
    Core& c = core(l.core_index);
    std::fill(std::begin(c.cb_producer), std::end(c.cb_producer), 0);
    std::fill(std::begin(c.cb_consumer), std::end(c.cb_consumer), 0);
    std::fill(std::begin(c.cb_producer_site), std::end(c.cb_producer_site), Core::RoleSite{});
    std::fill(std::begin(c.cb_consumer_site), std::end(c.cb_consumer_site), Core::RoleSite{});
  }
  settle_clocks();
  if (timing_) timing_->end_run(active_);
  if (profiler_.enabled()) {
    std::string strict_error = profiler_.drain(active_);
    if (!strict_error.empty()) throw KernelError(strict_error);
  }
}

void Chip::request_stop(std::string reason) {
  if (stop_requested_) return;
  stop_requested_ = true;
  stop_reason_ = std::move(reason);
  // A RISC on another thread that does not switch is stopped by the watchdog (W4).
  if (parallel_) parallel_->stop_workers(steady_ns());
}

void Chip::stopped_by_watchdog() {
  // The card's deadline passed while this thread ran a RISC that did not
  // switch: the card sees it now (a missed deadline stops the run).
  if (agent_ && !stop_requested_) agent_->poll(*this);
  if (!stop_requested_)
    request_stop("a RISC that did not reach a kernel API call was stopped: its run had to stop (watchdog.hpp, W4)");
}

void Chip::abort_run(std::span<const Launch> launches) {
  if (checked_) checked_->end_run(active_);
  settle_clocks();
  if (timing_) timing_->end_run(active_, true); // the estimate up to where the run stopped
  if (tracer_) tracer_->run_stopped(active_);
  for (Fiber* f : active_)
    if (f->state != FiberState::Done)
      reset_fiber(f);
    else
      f->state = FiberState::Idle;
  for (const Launch& l : launches) {
    Core& c = core(l.core_index);
    c.mem_waiters.clear();
    std::fill(std::begin(c.cb_front_waiter), std::end(c.cb_front_waiter), nullptr);
    std::fill(std::begin(c.cb_back_waiter), std::end(c.cb_back_waiter), nullptr);
    std::fill(std::begin(c.cb_producer), std::end(c.cb_producer), 0);
    std::fill(std::begin(c.cb_consumer), std::end(c.cb_consumer), 0);
    std::fill(std::begin(c.cb_producer_site), std::end(c.cb_producer_site), Core::RoleSite{});
    std::fill(std::begin(c.cb_consumer_site), std::end(c.cb_consumer_site), Core::RoleSite{});
    c.waiting.store(0, std::memory_order_relaxed);
  }
  ready_.clear();
  if (pool_) pool_->clear();
  active_.clear();
}

} // namespace tessel::sim
