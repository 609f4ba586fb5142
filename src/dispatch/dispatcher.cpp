#include "dispatch/dispatcher.hpp"

#include <algorithm>

#include "sim/chip.hpp"
#include "sim/timing.hpp"
#include "sim/trace.hpp"
#include "sim/watchdog.hpp"

namespace tessel::dispatch {

static_assert(CardClock::kTimerMhz == KM_TIMER_MHZ);

namespace {

constexpr uint32_t kRiscsPerCore = 3;
constexpr uint32_t kPublishEvery = 16;
constexpr uint32_t kAllRiscs = 1u << KM_ROLE_READER | 1u << KM_ROLE_WRITER | 1u << KM_ROLE_COMPUTE;

uint64_t seconds_to_ticks(double s) { return s <= 0 ? 0 : uint64_t(s * KM_TIMER_MHZ * 1e6); }

Dispatcher& dispatcher_of(tessel_kernel_ctx* k) {
  return *static_cast<Dispatcher*>(static_cast<sim::Core*>(k->sim_core)->chip->agent());
}

const volatile uint32_t* card_take(tessel_kernel_ctx* k, const char* file, uint32_t line) {
  return dispatcher_of(k).take(k, file, line);
}
void card_done(tessel_kernel_ctx* k, uint32_t slot, const char* file, uint32_t line) {
  dispatcher_of(k).done(k, slot, file, line);
}
void card_set_result(tessel_kernel_ctx* k, uint32_t slot, uint32_t value) {
  dispatcher_of(k).set_result(k, slot, value);
}
uint64_t card_ticks(tessel_kernel_ctx* k) { return dispatcher_of(k).now_ticks(); }
void card_announce(tessel_kernel_ctx* k, const uint32_t* numbers, uint32_t count) {
  dispatcher_of(k).announce(k, numbers, count);
}
uint32_t card_wait_word(tessel_kernel_ctx* k, volatile uint32_t* word, uint32_t value, const char* file,
                        uint32_t line) {
  return dispatcher_of(k).wait_word(k, word, value, file, line);
}

// A RISC finished its part of the command in `slot`: the command's span on
// it starts where the RISC took the command (its token's pop, or the reader's take).
void trace_done(sim::Tracer& t, tessel_kernel_ctx& k, uint32_t handler, uint64_t sequence, uint32_t slot) {
  const uint32_t role = k.rt_args[0];
  const uint32_t token_cb = role == KM_ROLE_COMPUTE  ? KM_CB_TOKEN_COMPUTE
                            : role == KM_ROLE_WRITER ? KM_CB_TOKEN_WRITER
                                                     : 64;
  t.command_done(k, handler, uint32_t(sequence), slot, token_cb);
}

const tessel_card_api kCardApi = {card_take, card_done, card_set_result, card_ticks, card_announce, card_wait_word};

} // namespace

Dispatcher::Dispatcher(sim::Chip& chip, CardMemory& memory, const DispatcherConfig& config)
    : chip_(chip), mem_(memory), config_(config), cores_(chip.core_count()), core_state_(cores_), slots_(config.depth),
      words_(size_t(cores_) * KM_STATE_WORDS, 0u), trace_(size_t(config.trace) * cores_ * 4, 0u),
      deadline_ticks_(seconds_to_ticks(config.deadline_s)), idle_ticks_(seconds_to_ticks(config.idle_s)),
      kernel_idle_ticks_(seconds_to_ticks(config.kernel_idle_s)),
      grid_stop_ticks_(seconds_to_ticks(config.grid_stop_s)), wait_ticks_(seconds_to_ticks(config.wait_s)) {
  jobs_.reserve(KM_JOB_QUEUE);
  for (CoreState& cs : core_state_)
    for (auto& h : cs.handles)
      h.set();
  waits_.reserve(size_t(cores_) * TESSEL_RISC_COUNT);
  for (uint32_t c = 0; c < cores_; ++c)
    std::fill_n(reinterpret_cast<uint32_t*>(chip_.core(c).l1 + KM_CONTROL_L1), KM_CONTROL_BYTES / 4, 0u);
  for (CoreState& cs : core_state_)
    std::fill(std::begin(cs.riscs_expected), std::end(cs.riscs_expected), uint8_t(kRiscsPerCore));
}

void Dispatcher::flush_to_l1() {
  for (uint32_t c = 0; c < cores_; ++c) {
    std::copy_n(&words_[size_t(c) * KM_STATE_WORDS], KM_STATE_WORDS,
                reinterpret_cast<uint32_t*>(chip_.core(c).l1 + KM_CONTROL_L1));
    if (!config_.trace) continue;
    uint32_t* l1 = reinterpret_cast<uint32_t*>(uintptr_t(chip_.core(c).cbs[KM_CB_TRACE].fifo_addr));
    for (uint32_t seq = 0; seq < config_.trace; ++seq)
      std::copy_n(&trace_[(size_t(seq) * cores_ + c) * 4], 4, l1 + seq * 4);
  }
}

const void* Dispatcher::kernel_table() const { return &kCardApi; }

bool Dispatcher::words_stop(uint32_t core) const { return word(state_words(core), KM_WORD_STOP) != 0; }

uint32_t* Dispatcher::state_words(uint32_t core) const {
  return const_cast<uint32_t*>(&words_[size_t(core) * KM_STATE_WORDS]);
}

uint32_t* Dispatcher::mailbox(uint32_t core, uint32_t slot) const {
  return reinterpret_cast<uint32_t*>(chip_.core(core).l1 + KM_CONTROL_L1 + KM_MAILBOX_OFFSET) + slot * KM_MAILBOX_WORDS;
}

uint32_t* Dispatcher::trace_entry(uint32_t core, uint64_t sequence) const {
  if (sequence >= config_.trace) return nullptr;
  return const_cast<uint32_t*>(&trace_[(size_t(sequence) * cores_ + core) * 4]);
}

// ---------------------------------------------------------------------------
// The persistent kernels' calls

const volatile uint32_t* Dispatcher::take(tessel_kernel_ctx* k, const char* file, uint32_t line) {
  Calls calls(calls_held_);
  const uint32_t c = static_cast<sim::Core*>(k->sim_core)->index;
  CoreState& cs = core_state_[c];
  uint32_t* words = state_words(c);
  if (!cs.ready) {
    cs.ready = true;
    set_word(words, KM_WORD_READY, 1);
    if (++ready_cores_ == cores_) {
      state_ = KM_STATE_RUNNING;
      mem_.ready.store(1, std::memory_order_release);
      unpark(mem_.host_park);
    }
  }
  set_word(words, KM_WORD_PHASE, KM_PHASE_WAITING);
  const uint64_t before = k->clock;
  sim::Fiber* f = static_cast<sim::Fiber*>(k->sim_fiber);
  const auto wait_for_command = [&] {
    f->wait = {};
    f->wait.kind = sim::WaitKind::Card;
    f->wait.file = file;
    f->wait.line = line;
  };
  while (cs.count == 0 && word(words, KM_WORD_STOP) == 0) {
    wait_for_command();
    cs.reader = f;
    calls.released_by_switch();
    chip_.block_releasing(f, calls_held_);
    calls.lock();
  }
  uint32_t slot = config_.depth; // the stop flag: leave the loop (the EXIT slot)
  // A command taken or reported is progress the host can see (its events,
  // the state words): a loop serving commands that touch no CB or semaphore
  // is not stalled, however long it runs (watchdog.hpp).
  chip_.note_progress();
  if (word(words, KM_WORD_STOP) == 0) {
    slot = cs.fifo[cs.head];
    cs.head = uint8_t((cs.head + 1) % KM_MAILBOX_SLOTS);
    --cs.count;
    // A command queued for this core while it was busy starts no earlier
    // than its slot let it (a parked reader got that clock when woken).
    if (start_clock(slot) > k->clock) {
      wait_for_command();
      chip_.wait_until_clock(f, start_clock(slot));
    }
  } else {
    uint32_t* mb = mailbox(c, slot);
    mb[KM_MB_HANDLER] = KM_HANDLER_EXIT | kAllRiscs << 24;
    mb[KM_MB_SLOT] = slot;
  }
  sim::count_card_wait(*k, before); // waiting for a command is waiting
  const uint32_t* mb = mailbox(c, slot);
  const uint32_t handler = mb[KM_MB_HANDLER] & 0xFFu;
  bump_word(words, KM_WORD_PASS);
  set_word(words, KM_WORD_PHASE, handler == KM_HANDLER_EXIT ? KM_PHASE_EXITED : KM_PHASE_READER);
  if (handler != KM_HANDLER_EXIT) {
    set_word(words, KM_WORD_SEQUENCE, mb[KM_MB_SEQUENCE]);
    bump_word(words, KM_WORD_TAKEN);
    set_word(words, KM_WORD_HANDLER, handler);
    if (uint32_t* t = trace_entry(c, mb[KM_MB_SEQUENCE])) {
      t[0] = uint32_t(now_ticks());
      t[3] = word(words, KM_WORD_PASS);
    }
    if (sim::Tracer* t = chip_.tracer()) t->command_taken(*k);
  }
  return mb;
}

void Dispatcher::done(tessel_kernel_ctx* k, uint32_t slot, const char* file, uint32_t line) {
  Calls calls(calls_held_);
  const uint32_t c = static_cast<sim::Core*>(k->sim_core)->index;
  CoreState& cs = core_state_[c];
  if (slot >= config_.depth || !busy(slot)) {
    calls.unlock(); // the fiber's frames are abandoned
    std::string m = "persistent loop reported slot " + std::to_string(slot) + ", which holds no command in flight";
    chip_.fail(static_cast<sim::Fiber*>(k->sim_fiber), std::move(m), file, line);
  }
  chip_.note_progress();
  if (sim::Tracer* t = chip_.tracer()) trace_done(*t, *k, slots_[slot].command.handler, slots_[slot].sequence, slot);
  Slot& s = slots_[slot];
  s.end_clock = std::max(s.end_clock, k->clock);
  if (++cs.riscs_done[slot] < cs.riscs_expected[slot]) return;
  cs.riscs_done[slot] = 0;
  uint32_t* words = state_words(c);
  bump_word(words, KM_WORD_DONE);
  if (uint32_t* t = trace_entry(c, s.sequence)) t[1] = t[2] = uint32_t(now_ticks()); // written; its completion sent
  --cs.busy;
  s.reported_cores.set(c - s.command.first);
  if (++s.reported == s.command.count) complete(slot);
}

void Dispatcher::announce(tessel_kernel_ctx* k, const uint32_t* numbers, uint32_t count) {
  Calls calls(calls_held_);
  CoreState& cs = core_state_[static_cast<sim::Core*>(k->sim_core)->index];
  const uint32_t role = k->rt_args[0];
  if (role > KM_ROLE_COMPUTE) return;
  cs.handles[role].reset();
  for (uint32_t i = 0; i < count; ++i)
    if (numbers[i] < 256) cs.handles[role].set(numbers[i]);
}

uint32_t Dispatcher::riscs_for(const CoreState& cs, uint32_t handler) const {
  uint32_t riscs = 1u << KM_ROLE_READER; // the reader takes every command
  for (uint32_t role : {KM_ROLE_WRITER, KM_ROLE_COMPUTE})
    if (handler == KM_HANDLER_EXIT || cs.handles[role].test(handler)) riscs |= 1u << role;
  return riscs;
}

// A command none of the core's RISCs has a handler for, on a core whose
// reader waits for it with nothing else in flight: the loop's pass would only
// take it and report, so the card does that on the core's behalf (the same
// state words and trace), without switching to the core's fibers.
bool Dispatcher::serve_idle(uint32_t core, uint32_t slot, uint64_t now) {
  CoreState& cs = core_state_[core];
  const Slot& s = slots_[slot];
  if (!cs.reader || cs.count != 0 || cs.busy != 1 || riscs_for(cs, s.command.handler) != 1u << KM_ROLE_READER ||
      cs.handles[KM_ROLE_READER].test(s.command.handler) || words_stop(core))
    return false;
  uint32_t* words = state_words(core);
  bump_word(words, KM_WORD_PASS);
  set_word(words, KM_WORD_SEQUENCE, uint32_t(s.sequence));
  bump_word(words, KM_WORD_TAKEN);
  set_word(words, KM_WORD_HANDLER, s.command.handler);
  bump_word(words, KM_WORD_DONE);
  if (uint32_t* t = trace_entry(core, s.sequence)) {
    t[0] = t[1] = t[2] = uint32_t(now);
    t[3] = word(words, KM_WORD_PASS);
  }
  --cs.busy;
  // The pass the card made for the core ends no earlier than the core's
  // parked reader could have made it (its clock is still while it is parked).
  Slot& served = slots_[slot];
  served.end_clock =
      std::max(served.end_clock, std::max(served.start_clock, cs.reader->core->ctx[cs.reader->risc].clock));
  return true;
}

uint32_t Dispatcher::wait_word(tessel_kernel_ctx* k, volatile uint32_t* word, uint32_t value, const char* file,
                               uint32_t line) {
  // Another thread's core may increment the word now (the parallel policy).
  if (__atomic_load_n(word, __ATOMIC_ACQUIRE) >= value) return 1;
  Calls calls(calls_held_);
  sim::Fiber* f = static_cast<sim::Fiber*>(k->sim_fiber);
  f->wait = {};
  f->wait.kind = sim::WaitKind::SemAtLeast;
  f->wait.sem = word;
  f->wait.value = value;
  f->wait.file = file;
  f->wait.line = line;
  const uint64_t deadline = wait_ticks_ ? now_ticks() + wait_ticks_ : ~0ull;
  waits_.push_back(TimedWait{f, deadline, false});
  next_wait_deadline_ = std::min(next_wait_deadline_, deadline);
  const uint64_t before = k->clock;
  calls.released_by_switch();
  chip_.wait_memory_releasing(f, calls_held_);
  calls.lock();
  sim::count_card_wait(*k, before); // the woken core's clock moved up to its waker's: waiting
  bool timed_out = false;
  for (size_t i = 0; i < waits_.size(); ++i)
    if (waits_[i].fiber == f) {
      timed_out = waits_[i].timed_out;
      waits_[i] = waits_.back();
      waits_.pop_back();
      break;
    }
  f->wait_cancelled.store(false, std::memory_order_relaxed); // no cancel comes after its removal
  return __atomic_load_n(word, __ATOMIC_ACQUIRE) >= value ? 1 : (timed_out ? 0 : 1);
}

bool Dispatcher::expire_waits(uint64_t now) {
  bool woke = false;
  next_wait_deadline_ = ~0ull;
  for (TimedWait& w : waits_) {
    if (!w.timed_out && w.deadline <= now) {
      w.timed_out = true;
      chip_.cancel_memory_wait(w.fiber);
      woke = true;
    } else if (!w.timed_out) {
      next_wait_deadline_ = std::min(next_wait_deadline_, w.deadline);
    }
  }
  return woke;
}

void Dispatcher::set_result(tessel_kernel_ctx* k, uint32_t slot, uint32_t value) {
  Calls calls(calls_held_);
  const uint32_t c = static_cast<sim::Core*>(k->sim_core)->index;
  if (slot < config_.depth && busy(slot) && slots_[slot].command.first == c) slots_[slot].result = value;
}

// ---------------------------------------------------------------------------
// Commands

bool Dispatcher::event_room() {
  // The host's read count is re-read only when the last one it wrote leaves
  // no room: reading it for every command would move its cache line between
  // the two threads every time.
  if (uint32_t(uint32_t(posted_) - read_count_) + busy_slots() + 1 <= config_.event_depth) return true;
  read_count_ = mem_.read_count.load(std::memory_order_acquire); // the host is done with the lines before it
  return uint32_t(uint32_t(posted_) - read_count_) + busy_slots() + 1 <= config_.event_depth;
}

// Against the groups of the commands in flight (submitted, not completed),
// not the cores still working: a core that reported may still be in a group
// whose leader has not completed.
bool Dispatcher::overlaps_busy(uint32_t first, uint32_t count) const {
  for (uint32_t m = busy_mask_; m; m &= m - 1) {
    const Command& c = slots_[__builtin_ctz(m)].command;
    if (c.first < first + count && first < c.first + c.count) return true;
  }
  return false;
}

int Dispatcher::free_slot() const {
  const uint32_t free = ~busy_mask_ & ((1u << config_.depth) - 1);
  return free ? __builtin_ctz(free) : -1;
}

void Dispatcher::post(uint32_t kind, uint32_t tag, uint32_t value, uint64_t sequence, uint32_t ticks) {
  CardEvent& e = mem_.events[posted_ % config_.event_depth];
  e.kind = kind;
  e.tag = tag;
  e.auxiliary = (value & 0xFFu) | uint32_t(sequence & 0xFFFFu) << KM_AUX_SEQUENCE_SHIFT;
  e.ticks = ticks;
  ++posted_;
  wake_host_ = true; // published when this pump (or card call) ends
}

// Events are published once per pump, not one by one: the host then reads
// them in one go, and `posted` and the event lines change hands between the
// threads once per batch instead of once per command.
void Dispatcher::wake_host() {
  if (!wake_host_) return;
  wake_host_ = false;
  mem_.posted.store(uint32_t(posted_), std::memory_order_release);
  unpark(mem_.host_park);
}

void Dispatcher::reject(const Command& c, uint32_t reason) {
  ++rejected_;
  post(KM_EVENT_REJECTED, c.tag, reason, 0, 0);
}

void Dispatcher::deliver(uint32_t core, uint32_t slot) {
  CoreState& cs = core_state_[core];
  cs.fifo[(cs.head + cs.count) % KM_MAILBOX_SLOTS] = uint8_t(slot);
  ++cs.count;
  if (cs.reader) {
    chip_.make_ready_by_card(cs.reader, start_clock(slot));
    cs.reader = nullptr;
  }
}

void Dispatcher::submit(const Command& c, uint32_t first) {
  const uint32_t slot = uint32_t(free_slot());
  Slot& s = slots_[slot];
  busy_mask_ |= 1u << slot;
  s.start_clock = s.end_clock; // the slot's last command's end (0: never used); end_clock grows from it
  s.command = c;
  s.command.first = first;
  s.sequence = next_sequence_++;
  s.submit_tick = now_ticks();
  s.deadline_tick = deadline_ticks_ ? s.submit_tick + deadline_ticks_ : ~0ull;
  s.reported = 0;
  s.result = 0;
  s.reported_cores.reset();
  next_deadline_ = std::min(next_deadline_, s.deadline_tick);
  publish_deadline();
  last_activity_tick_ = s.submit_tick;
  for (uint32_t core = first; core < first + c.count; ++core) {
    CoreState& cs = core_state_[core];
    ++cs.busy;
    if (serve_idle(core, slot, s.submit_tick)) {
      s.reported_cores.set(core - first);
      ++s.reported;
      continue;
    }
    const uint32_t riscs = riscs_for(cs, c.handler);
    cs.riscs_expected[slot] = uint8_t(__builtin_popcount(riscs));
    uint32_t* mb = mailbox(core, slot);
    mb[KM_MB_SEQUENCE] = uint32_t(s.sequence);
    mb[KM_MB_HANDLER] = c.handler | c.flags << 8 | riscs << 24;
    mb[KM_MB_GROUP] = first | c.count << 16;
    mb[KM_MB_SLOT] = slot;
    mb[KM_MB_INDEX] = core - first;
    mb[KM_MB_ARGC] = c.arg_count;
    for (uint32_t i = 0; i < KM_ARGS_MAX; ++i)
      mb[KM_MB_ARGS + i] = c.args[i];
    deliver(core, slot);
  }
  if (s.reported == c.count) complete(slot);
}

void Dispatcher::complete(uint32_t slot) {
  Slot& s = slots_[slot];
  const uint64_t now = now_ticks();
  const uint32_t ticks = (s.command.flags & KM_FLAG_RESULT) ? s.result : uint32_t(now - s.submit_tick);
  busy_mask_ &= ~(1u << slot);
  publish_deadline();
  last_end_clock_ = std::max(last_end_clock_, s.end_clock);
  last_activity_tick_ = now;
  // next_deadline_ stays a lower bound; check_timers recomputes it when it passes.
  if (s.command.engine)
    engine_completed(s);
  else if (s.command.thread)
    thread_completed(s);
  else
    post(KM_EVENT_DONE, s.command.tag, s.command.first, s.sequence, ticks);
  if (!in_pump_) pump(); // which wakes the host
}

uint64_t Dispatcher::earliest_busy_deadline() const {
  uint64_t earliest = ~0ull;
  for (uint32_t m = busy_mask_; m; m &= m - 1)
    earliest = std::min(earliest, slots_[__builtin_ctz(m)].deadline_tick);
  return earliest;
}

void Dispatcher::recompute_deadline() { next_deadline_ = earliest_busy_deadline(); }

void Dispatcher::publish_deadline() {
  sim::WatchSlot* watch = card_watch_.load(std::memory_order_relaxed);
  if (!watch) return;
  const uint64_t earliest = earliest_busy_deadline();
  const bool none =
      earliest == ~0ull || error_ != KM_ERROR_NONE || aborting_ || host_aborting_.load(std::memory_order_seq_cst);
  watch->stop_at_ns.store(none ? 0 : clock_.steady_ns_at(earliest), std::memory_order_relaxed);
}

void Dispatcher::host_aborting() {
  host_aborting_.store(true, std::memory_order_seq_cst);
  std::lock_guard lock(watch_mutex_);
  if (sim::WatchSlot* watch = card_watch_.load(std::memory_order_acquire))
    watch->stop_at_ns.store(0, std::memory_order_relaxed);
}

void Dispatcher::forget_card_thread() {
  std::lock_guard lock(watch_mutex_);
  card_watch_.store(nullptr, std::memory_order_release);
}

bool Dispatcher::take_line(const Command& c) {
  if (aborting_) return false;
  const uint32_t handler = c.handler;
  const bool queued = c.flags & KM_FLAG_QUEUE;
  if (handler == KM_HANDLER_EXIT && !exited_ && !exit_pending_) {
    exit_pending_ = true;
    return true;
  }
  if (!event_room()) return false; // every other line ends in an event
  if (exited_ || exit_pending_) return reject(c, KMD_REJECT_EXITED), true;
  if ((handler >= KM_HANDLER_RESERVED_FIRST && handler <= KM_HANDLER_RESERVED_LAST) || handler == KM_HANDLER_EXIT)
    return reject(c, KMD_REJECT_HANDLER), true;
  if (c.flags & KM_FLAG_RESERVED) return reject(c, KMD_REJECT_FLAGS), true;
  if (handler == KM_HANDLER_RUN) return run_engine(c), true;
  if (handler == KM_HANDLER_CANCEL) return cancel_engine(c), true;
  if (handler == KM_HANDLER_PING) {
    post(KM_EVENT_PONG, c.tag, 0, 0, 0);
    return true;
  }
  const bool group_ok =
      queued ? (c.count >= 1 && c.count <= cores_) : (c.count >= 1 && c.first < cores_ && c.count <= cores_ - c.first);
  if (!group_ok) return reject(c, KMD_REJECT_GROUP), true;
  // A host command is rejected when the job queue is full; an engine's or a thread's waits (place()).
  if (queued && jobs_.size() >= KM_JOB_QUEUE) return reject(c, KMD_REJECT_QUEUE), true;
  return place(c);
}

bool Dispatcher::pump() {
  // Completions inside (a command served on idle cores completes at its
  // submit) do not pump again: the loops below go on instead.
  struct InPump {
    bool& flag;
    explicit InPump(bool& f) : flag(f) { flag = true; }
    ~InPump() { flag = false; }
  } in_pump(in_pump_);
  struct WakeAtEnd {
    Dispatcher& d;
    ~WakeAtEnd() { d.wake_host(); }
  } wake_at_end{*this};
  bool progress = false;
  if (__builtin_expect(mem_.stop.load(std::memory_order_relaxed) != 0, 0) && !aborting_) {
    begin_abort(chip_);
    return true; // the waiting readers were woken to leave their loops
  }
  if (aborting_) return false;
  if (any_engine_running()) progress |= step_engines();
  if (threads_running_) progress |= serve_threads();
  // Queued jobs first: each takes the lowest group of its size on idle cores.
  for (size_t j = 0; j < jobs_.size();) {
    if (free_slot() < 0 || !event_room()) break;
    const uint32_t count = jobs_[j].count;
    uint32_t run = 0, first = 0;
    bool found = false;
    for (uint32_t c = 0; c < cores_; ++c) {
      run = overlaps_busy(c, 1) ? 0 : run + 1;
      if (run == count) {
        first = c + 1 - count;
        found = true;
        break;
      }
    }
    if (!found) {
      ++j;
      continue;
    }
    const Command job = jobs_[j];
    jobs_.erase(jobs_.begin() + ptrdiff_t(j));
    submit(job, first);
    progress = true;
  }
  const uint32_t stored = mem_.stored.load(std::memory_order_acquire);
  while (ring_taken_ != stored) {
    const CommandLine& line = mem_.ring[ring_taken_ % config_.host_depth];
    Command c;
    c.tag = line.tag;
    c.handler = line.handler_flags & 0xFFu;
    c.flags = line.handler_flags >> 8;
    c.first = line.group & 0xFFFFu;
    c.count = line.group >> 16;
    c.arg_count = std::min(line.arg_count, KM_ARGS_MAX);
    std::copy_n(line.args, KM_ARGS_MAX, c.args);
    if (!take_line(c)) break;
    ++ring_taken_;
    progress = true;
    // `taken` and `posted` go to the host every kPublishEvery lines and at the
    // end of the pump: often enough that the host refills the ring while the
    // card works through it, rarely enough that their cache lines do not move
    // between the threads for every command.
    if (ring_taken_ % kPublishEvery == 0) {
      mem_.taken.store(ring_taken_, std::memory_order_release);
      wake_host();
    }
  }
  if (progress) mem_.taken.store(ring_taken_, std::memory_order_release);
  if (any_engine_running()) progress |= step_engines(); // the ring's commands may have started or freed some
  if (exit_pending_ && busy_mask_ == 0 && jobs_.empty() && !any_engine_running()) {
    send_exit();
    progress = true;
  }
  return progress;
}

void Dispatcher::send_exit() {
  exit_pending_ = false;
  exited_ = true;
  state_ = KM_STATE_EXITING;
  for (uint32_t c = 0; c < cores_; ++c) {
    uint32_t* mb = mailbox(c, config_.depth);
    mb[KM_MB_HANDLER] = KM_HANDLER_EXIT | kAllRiscs << 24;
    mb[KM_MB_SLOT] = config_.depth;
    deliver(c, config_.depth);
  }
}

} // namespace tessel::dispatch
