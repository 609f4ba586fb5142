// The dispatcher's timers (deadlines, waits that run out, the grid's stop
// after an abort), its parking between the host's batches (poll, idle), and
// its result block: the card's side of time (dispatcher.hpp).
#include <sched.h>

#include <algorithm>

#include "dispatch/dispatcher.hpp"
#include "sim/chip.hpp"

namespace tessel::dispatch {

namespace {
// The card spins this long (200 us) for the host before it parks: a futex
// wake-up costs tens to hundreds of microseconds on a VM, more than a
// steady stream of commands leaves between two batches.
constexpr uint64_t kSpinTicks = 200 * KM_TIMER_MHZ;
} // namespace

std::string Dispatcher::where_is(const sim::Fiber* f) const {
  if (!f) return "not launched";
  switch (f->state) {
  case sim::FiberState::Blocked:
    return "waits for " + chip_.describe_wait(f) +
           (f->wait.file ? " at " + std::string(f->wait.file) + ":" + std::to_string(f->wait.line) : std::string());
  case sim::FiberState::Ready:
  case sim::FiberState::Running: return "running";
  case sim::FiberState::Done: return "returned";
  case sim::FiberState::Faulted:
    if (f->fault_signal == sim::kStoppedSignal) {
      const std::string at = chip_.kernel_location(f);
      return "running" + (at.empty() ? std::string() : " at " + at) + " without a kernel API call (stopped there)";
    }
    [[fallthrough]];
  default: return "stopped";
  }
}

void Dispatcher::time_out(sim::Chip& chip, uint32_t slot) {
  Slot& s = slots_[slot];
  error_ = KM_ERROR_DEADLINE;
  error_slot_ = slot;
  error_sequence_ = s.sequence;
  for (uint32_t i = 0; i < s.command.count; ++i) {
    if (s.reported_cores.test(i)) continue;
    sim::Core& core = chip.core(s.command.first + i);
    StuckCore sc;
    sc.x = core.logical_x;
    sc.y = core.logical_y;
    sc.reader = where_is(core.fibers[TESSEL_RISC_NCRISC]);
    sc.writer = where_is(core.fibers[TESSEL_RISC_BRISC]);
    sc.compute = where_is(core.fibers[TESSEL_RISC_COMPUTE]);
    stuck_.push_back(std::move(sc));
  }
  message_ = "command of sequence " + std::to_string(s.sequence) + " (slot " + std::to_string(slot) + ", handler " +
             std::to_string(s.command.handler) + ", cores " + std::to_string(s.command.first) + ".." +
             std::to_string(s.command.first + s.command.count - 1) + ") missed its deadline of " +
             std::to_string(config_.deadline_s) + " s: " + std::to_string(stuck_.size()) +
             " core(s) of its group did not report";
  if (s.command.engine) {
    Engine& e = *engines_[s.command.engine - 1].engine;
    CardEvent& ev = mem_.events[posted_ % config_.event_depth]; // the run ends here: room is not waited for
    ev = CardEvent{KM_EVENT_ENGINE_ERROR, e.req(), KM_STREAM_ERROR_TIMEOUT | ((s.command.token + 1) & 0xFFFFu) << 8, 0};
    ++posted_;
    wake_host_ = true;
  } else if (s.command.thread) {
    // The thread's command: the run ends here (the host reads the grid's stop).
  } else {
    post(KM_EVENT_TIMEOUT, s.command.tag, slot, s.sequence, uint32_t(now_ticks() - s.submit_tick));
  }
  wake_host();
  publish_deadline(); // none: the run stops
  chip.request_stop(message_);
}

void Dispatcher::begin_abort(sim::Chip&) {
  aborting_ = true;
  publish_deadline(); // none: an abort times no command out
  if (error_ == KM_ERROR_NONE) {
    error_ = KM_ERROR_STOPPED;
    message_ = "the run was aborted: the host wrote the stop flag into every core";
  }
  abort_tick_ = now_ticks();
  if (const uint64_t within = mem_.stop_within_ticks.load(std::memory_order_acquire))
    grid_stop_ticks_ = std::min(grid_stop_ticks_, within);
  for (uint32_t c = 0; c < cores_; ++c) {
    set_word(state_words(c), KM_WORD_STOP, 1);
    CoreState& cs = core_state_[c];
    if (cs.reader) {
      chip_.make_ready_by_card(cs.reader, 0); // its own clock: the host stopped it, no command did
      cs.reader = nullptr;
    }
  }
}

bool Dispatcher::check_timers(sim::Chip& chip, uint64_t now) {
  if (aborting_) {
    if (now - abort_tick_ > grid_stop_ticks_) {
      if (error_ == KM_ERROR_NONE) error_ = KM_ERROR_STOPPED;
      chip.request_stop("the run was aborted and its cores did not leave their loops within " +
                        std::to_string(double(grid_stop_ticks_) / (KM_TIMER_MHZ * 1e6)) + " s");
    }
    return false;
  }
  const bool woke = now >= next_wait_deadline_ && expire_waits(now);
  if (threads_running_) check_threads(); // also enforces their deadlines
  if (now >= next_deadline_) {
    for (uint32_t i = 0; i < config_.depth; ++i)
      if (busy(i) && slots_[i].deadline_tick <= now) return time_out(chip, i), woke;
    recompute_deadline(); // the bound was a completed command's
  }
  if (busy_mask_ == 0 && jobs_.empty() && !any_engine_running() && threads_running_ == 0 &&
      state_ == KM_STATE_RUNNING) {
    const uint64_t quiet = now - last_activity_tick_;
    if (idle_ticks_ && quiet > idle_ticks_) {
      error_ = KM_ERROR_IDLE;
      message_ = "the cores waited more than " + std::to_string(config_.idle_s) +
                 " s (idle) for their next command: the kernel ended";
      chip.request_stop(message_);
    } else if (kernel_idle_ticks_ && quiet > kernel_idle_ticks_) {
      error_ = KM_ERROR_KERNEL_IDLE;
      message_ = "the dispatcher had no command for more than " + std::to_string(config_.kernel_idle_s) +
                 " s (kernel_idle): the kernel ended";
      chip.request_stop(message_);
    }
  }
  return woke;
}

void Dispatcher::watch_card_thread() {
  if (card_watch_.load(std::memory_order_relaxed) == sim::t_watch) return;
  card_watch_.store(sim::t_watch, std::memory_order_release);
  publish_deadline();
}

void Dispatcher::poll(sim::Chip& chip) {
  Calls calls(calls_held_);
  watch_card_thread();
  pump();
  check_timers(chip, now_ticks());
}

bool Dispatcher::idle(sim::Chip& chip) {
  Calls calls(calls_held_);
  watch_card_thread();
  for (;;) {
    if (pump()) return true;
    if (aborting_) {
      // No RISC can run and none will: those that have not left their loops
      // wait for what nothing left can do. Waiting the abort's time out
      // would change nothing (a core spinning without a call is not here:
      // idle() runs only when no fiber can).
      uint32_t waiting = 0;
      for (uint32_t c = 0; c < cores_; ++c)
        waiting += word(state_words(c), KM_WORD_PHASE) != KM_PHASE_EXITED;
      chip.request_stop("the run was aborted: " + std::to_string(waiting) +
                        " core(s) wait for what no RISC left running can do");
      return false;
    }
    if (ready_cores_ < cores_ && state_ == KM_STATE_STARTING) {
      // A core that never reached its loop while every other RISC waits:
      // nothing the host sends can change that.
      return false;
    }
    const uint64_t now = now_ticks();
    if (check_timers(chip, now)) return true; // a wait ran out: that RISC runs again
    if (chip.stop_requested()) return false;
    const uint32_t read = mem_.read_count.load(std::memory_order_relaxed);
    bool woken = false;
    const uint64_t spin_until = now + kSpinTicks;
    for (uint32_t i = 0; !woken; ++i) {
      woken = mem_.stored.load(std::memory_order_acquire) != ring_taken_ ||
              mem_.stop.load(std::memory_order_relaxed) != 0 || mem_.read_count.load(std::memory_order_relaxed) != read;
      __builtin_ia32_pause();
      if ((i & 63) == 63) {
        if (now_ticks() >= spin_until) break;
        if (i >= 1024) sched_yield(); // the host's thread may share this core (card_memory.hpp)
      }
    }
    if (woken) continue;
    // 10 ms at most: timers stay live. A running X280 thread cannot wake the
    // card (it is another process): 100 us at most then, to take its commands.
    uint64_t wait_ticks = (threads_running_ ? 100 : 10 * 1000) * KM_TIMER_MHZ;
    for (uint64_t d : {next_deadline_, next_wait_deadline_})
      if (d != ~0ull) wait_ticks = std::min(wait_ticks, d > now ? d - now : 1);
    mem_.card_park.parked.store(1, std::memory_order_seq_cst);
    if (mem_.stored.load(std::memory_order_seq_cst) == ring_taken_ && mem_.stop.load() == 0 &&
        mem_.read_count.load() == read)
      park(mem_.card_park, uint32_t(wait_ticks / KM_TIMER_MHZ) + 1);
    mem_.card_park.parked.store(0, std::memory_order_relaxed);
  }
}

void Dispatcher::finish(uint32_t state, uint32_t error, std::string message) {
  flush_to_l1();
  state_ = state;
  if (error_ == KM_ERROR_NONE) error_ = error;
  if (message_.empty()) message_ = std::move(message);
}

ResultBlock Dispatcher::result() const {
  ResultBlock r;
  r.ready = ready_cores_ == cores_;
  r.state = state_;
  r.error = error_;
  r.error_name = error_name(error_);
  r.message = message_;
  r.commands = next_sequence_;
  r.events = posted_;
  r.rejected = rejected_;
  r.error_slot = error_slot_;
  r.error_sequence = error_sequence_;
  return r;
}

} // namespace tessel::dispatch
