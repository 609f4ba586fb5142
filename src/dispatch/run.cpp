// The host's side of a persistent run: submit, store in batches, read
// events, wait with timeouts (stop and abort: run_stop.cpp; run.hpp states the rules).
#include "tessel/dispatch/run.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "dispatch/run_state.hpp"
#include "dispatch/session_state.hpp"
#include "runtime/device_state.hpp"
#include "tessel/dispatch/errors.hpp"

namespace tessel::dispatch {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
} // namespace

Run::Run(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Run::~Run() = default;

Run::Impl::~Impl() {
  if (card_lost) {
    // GridTimeout: the card's thread may still run a kernel that never
    // returns; what it uses stays allocated (and the device open) for good.
    (void)memory.release();
    (void)dispatcher.release();
    (void)program.release();
    for (auto& t : threads)
      (void)t.release();
    return;
  }
  if (card.joinable()) {
    // A run destroyed while loaded: stop its grid so the thread can end.
    memory->stop.store(1);
    unpark(memory->card_park);
    join_card();
  }
}

HandleState* Run::Impl::find(uint64_t handle) {
  if (handle < base || handle >= next_handle) return nullptr;
  HandleState& h = handles[handle - base];
  return h.state == HandleState::Forgotten ? nullptr : &h;
}
const HandleState* Run::Impl::find(uint64_t handle) const { return const_cast<Impl*>(this)->find(handle); }

void Run::Impl::check_open(const char* call) const {
  if (stopped) throw ValidationError(std::string("Run.") + call + ": the run is stopped; load the program again");
}

void Run::Impl::pop_forgotten() {
  while (!handles.empty() && handles.front().state == HandleState::Forgotten) {
    handles.pop_front();
    ++base;
  }
}

// ---------------------------------------------------------------------------
// Stores and events

void Run::Impl::store_some() {
  CardMemory& m = *memory;
  bool published = false;
  while (!queue.empty()) {
    const uint32_t ring_room = options.host_depth - (stored - m.taken.load(std::memory_order_acquire));
    const uint64_t event_room = options.event_depth - (stored_with_event - command_events);
    size_t n = std::min<size_t>({queue.size(), options.batch, ring_room, event_room});
    if (n == 0) break;
    // Whole batches: a short one only when the card has taken every stored
    // line (it would wait for this one) or the queue holds no more.
    const bool card_waits = m.taken.load(std::memory_order_relaxed) == stored;
    if (!card_waits && n < std::min<size_t>({queue.size(), options.batch, options.host_depth / 2})) break;
    if (options.settle_us > 0 && last_fence != Clock::time_point{}) {
      const auto settle = last_fence + std::chrono::nanoseconds(int64_t(options.settle_us * 1000));
      while (Clock::now() < settle)
        __builtin_ia32_pause();
    }
    for (size_t i = 0; i < n; ++i) {
      const CommandLine& line = queue.front();
      if ((line.handler_flags & 0xFFu) != KM_HANDLER_EXIT) ++stored_with_event;
      if (line.tag)
        if (HandleState* h = find(line.tag)) h->state = HandleState::Stored;
      m.ring[(stored + i) % options.host_depth] = line;
      queue.pop_front();
    }
    stored += uint32_t(n);
    m.stored.store(stored, std::memory_order_release); // the batch's fence
    m.read_count.store(events_read, std::memory_order_release);
    unpark(m.card_park);
    last_fence = Clock::now();
    published = true;
  }
  if (!published && m.read_count.load(std::memory_order_relaxed) != events_read) {
    m.read_count.store(events_read, std::memory_order_release);
    unpark(m.card_park);
  }
}

void Run::Impl::handle_event(const CardEvent& e) {
  if (e.kind >= KM_EVENT_ENGINE_EVENT && e.kind <= KM_EVENT_ENGINE_ERROR) return engine_event(e);
  ++command_events;
  if (e.tag & kRuntimeTag) {
    if (RuntimeCommand* c = runtime(e.tag)) {
      c->arrived = true;
      c->kind = e.kind;
      c->reason = e.auxiliary & 0xFFu;
      if (e.kind == KM_EVENT_PONG) runtime_answered(e.tag);
    } else {
      failure = "the dispatcher sent an event (kind " + std::to_string(e.kind) + ") for a runtime command (tag " +
                std::to_string(e.tag & ~kRuntimeTag) + ") not in flight";
    }
    return;
  }
  uint64_t handle = (next_handle & ~0xFFFFFFFFull) | e.tag;
  if (handle >= next_handle) handle -= 1ull << 32;
  HandleState* h = find(handle);
  if (!h || h->state != HandleState::Stored) {
    failure = "the dispatcher sent an event (kind " + std::to_string(e.kind) + ") for handle " +
              std::to_string(handle) + ", which is not in flight";
    return;
  }
  h->state = HandleState::Arrived;
  h->event.handle = handle;
  h->event.kind = EventKind(e.kind);
  h->event.auxiliary = e.auxiliary & 0xFFu;
  h->event.ticks = e.ticks;
  if (h->event.has_result) h->event.result = e.ticks;
  if (e.kind == KM_EVENT_DONE || e.kind == KM_EVENT_TIMEOUT) {
    const uint32_t low16 = (e.auxiliary >> KM_AUX_SEQUENCE_SHIFT) & 0xFFFFu;
    const std::optional<uint64_t> seq = any_sequence ? read_sequence(last_sequence, low16) : uint64_t(low16);
    if (seq) {
      h->sequence = *seq;
      h->has_sequence = true;
      last_sequence = *seq;
      any_sequence = true;
    } else {
      h->gap = true;
      ++gaps;
    }
    if (e.kind == KM_EVENT_DONE && h->queued) h->first = e.auxiliary & 0xFFu;
  }
}

bool Run::Impl::read_events() {
  CardMemory& m = *memory;
  const uint32_t posted = m.posted.load(std::memory_order_acquire);
  if (posted == events_read) return false;
  while (events_read != posted) {
    handle_event(m.events[events_read % options.event_depth]);
    ++events_read;
  }
  m.read_count.store(events_read, std::memory_order_release);
  unpark(m.card_park);
  return true;
}

// ---------------------------------------------------------------------------
// Failures

std::string Run::Impl::kernel_activity() const {
  // Read-only looks at the card's live state words: the pass markers 20 ms apart.
  std::vector<uint32_t> passes(cores);
  for (uint32_t c = 0; c < cores; ++c)
    passes[c] = dispatcher->live_word(c, KM_WORD_PASS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  uint32_t moved = 0, waiting = 0;
  for (uint32_t c = 0; c < cores; ++c) {
    moved += dispatcher->live_word(c, KM_WORD_PASS) != passes[c];
    waiting += dispatcher->live_word(c, KM_WORD_PHASE) == KM_PHASE_WAITING;
  }
  const uint32_t pass0 = dispatcher->live_word(0, KM_WORD_PASS);
  return "the kernel: " + std::string(card_finished() ? "finished" : "still runs") + "; core 0 pass marker " +
         std::to_string(pass0) + (passes[0] != pass0 ? " (moving)" : " (not moving)") + ", phase " +
         (dispatcher->live_word(0, KM_WORD_PHASE) == KM_PHASE_WAITING ? "waiting for a command" : "running a handler") +
         ", last sequence " + std::to_string(dispatcher->live_word(0, KM_WORD_SEQUENCE)) + "; " +
         std::to_string(waiting) + " of " + std::to_string(cores) + " cores wait for a command, " +
         std::to_string(moved) + " moved in 20 ms; " + std::to_string(stored - memory->taken.load()) +
         " stored lines not taken, " + std::to_string(queue.size()) + " commands not stored";
}

void Run::Impl::log_kernel_state() const {
  // The first 512 bytes of the kernel's state as the card holds it: each
  // core's state words in core order (spec: "kernel state +0x..." lines).
  constexpr size_t kWords = 512 / 4, kPerLine = 8;
  for (size_t at = 0; at < kWords && at < state_words.size(); at += kPerLine) {
    char line[160];
    int n = std::snprintf(line, sizeof line, "kernel state +0x%03zx:", at * 4);
    for (size_t i = at; i < at + kPerLine && i < state_words.size(); ++i)
      n += std::snprintf(line + n, sizeof line - size_t(n), " %08x", state_words[i]);
    session->log(line);
  }
}

void Run::Impl::raise_failed(const std::string& context) {
  if (!card_finished()) {
    // The host saw the card break the protocol (an event for nothing in
    // flight): the grid is stopped before the card is read back.
    memory->stop.store(1, std::memory_order_seq_cst);
    unpark(memory->card_park);
  }
  join_card();
  read_back();
  log_kernel_state();
  std::string message = context + ": the persistent kernel failed";
  if (!result.message.empty()) message += ": " + result.message;
  if (!failure.empty()) message += ": " + failure;
  throw KernelFailed(message, result);
}

void Run::Impl::raise_event_errors(uint64_t handle, const HandleState& h) {
  if (h.gap) throw gap_error(handle);
  if (h.event.kind == EventKind::Rejected) {
    const uint32_t reason = h.event.auxiliary;
    throw CommandRejected("handle " + std::to_string(handle) + " was rejected by the kernel: reason " +
                              std::to_string(reason) + " (" + reject_reason_name(reason) + ")",
                          handle, reason, reject_reason_name(reason));
  }
  if (h.event.kind == EventKind::Timeout) {
    join_card();
    read_back();
    const std::vector<StuckCore>& stuck = dispatcher->stuck_cores();
    std::string message = "handle " + std::to_string(handle) + " missed its deadline (" +
                          std::to_string(options.deadline_s) + " s): the kernel stopped the grid";
    for (const StuckCore& c : stuck)
      message += "\n  core (" + std::to_string(c.x) + "," + std::to_string(c.y) + ") did not report: reader " +
                 c.reader + "; writer " + c.writer + "; compute " + c.compute;
    throw CommandTimeout(message, handle, h.event.auxiliary, h.sequence, {h.first, h.count}, stuck);
  }
}

std::string Run::Impl::unknown_handle(uint64_t handle) const {
  if (handle >= base && handle < next_handle)
    return "handle " + std::to_string(handle) +
           " was forgotten already (wait and wait_any forget the handles they return, forget the ones it is given)";
  return "handle " + std::to_string(handle) + " is not a command of this run";
}

DispatchError Run::Impl::gap_error(uint64_t handle) {
  return DispatchError("handle " + std::to_string(handle) +
                       ": its event's 16-bit sequence field lies 32,768 or more commands from the host's previous "
                       "command's (or more than 2,048 behind it): the sequence cannot be read");
}

void Run::Impl::join_card() {
  if (card.joinable()) card.join();
  if (!card_joined) {
    session->chip()->memory_map().remove(sim::MemoryKind::L1, KM_CONTROL_L1);
    session->device->state().persistent.reset();
  }
  card_joined = true;
}

void Run::Impl::read_back() {
  if (!state_words.empty() || !card_joined) return;
  result = dispatcher->result();
  for (size_t i = 0; i < handles.size(); ++i)
    if (handles[i].state == HandleState::Queued || handles[i].state == HandleState::Stored)
      result.abandoned.push_back(base + i);
  sim::Chip& chip = *session->chip();
  state_words.resize(size_t(cores) * KM_STATE_WORDS);
  for (uint32_t c = 0; c < cores; ++c)
    std::memcpy(&state_words[size_t(c) * KM_STATE_WORDS], chip.core(c).l1 + KM_CONTROL_L1, KM_STATE_WORDS * 4);
  port_words.resize(size_t(cores) * KM_PORTS * KM_PORT_WORDS);
  for (uint32_t c = 0; c < cores; ++c)
    std::memcpy(&port_words[size_t(c) * KM_PORTS * KM_PORT_WORDS], chip.core(c).l1 + KM_CONTROL_L1 + KM_PORT_OFFSET,
                KM_PORTS * KM_PORT_WORDS * 4);
  broadcast_words.resize(size_t(cores) * KM_BCAST_WORDS);
  for (uint32_t c = 0; c < cores; ++c)
    std::memcpy(&broadcast_words[size_t(c) * KM_BCAST_WORDS], chip.core(c).l1 + KM_CONTROL_L1 + KM_BROADCAST_OFFSET,
                KM_BCAST_WORDS * 4);
  const size_t per_core = size_t(options.trace) * KM_TRACE_ENTRY_BYTES / 4;
  trace_words.resize(per_core * cores);
  for (uint32_t c = 0; c < cores && per_core; ++c)
    std::memcpy(&trace_words[c * per_core],
                reinterpret_cast<const void*>(uintptr_t(chip.core(c).cbs[KM_CB_TRACE].fifo_addr)), per_core * 4);
  stopped = true;
}

// ---------------------------------------------------------------------------
// Run

uint64_t Run::submit(uint32_t handler, Group group, std::span<const uint32_t> args, SubmitFlags flags) {
  const auto t0 = Clock::now();
  const uint64_t handle = submit_one(handler, group, args, flags);
  impl_->submit_s += since(t0);
  return handle;
}

uint64_t Run::submit_one(uint32_t handler, Group group, std::span<const uint32_t> args, SubmitFlags flags) {
  Impl& r = *impl_;
  r.check_open("submit");
  if (handler != KM_HANDLER_NOP && (handler < KM_HANDLER_FIRST || handler > KM_HANDLER_LAST))
    throw ValidationError("Run.submit: handler " + std::to_string(handler) +
                          " is not a program handler: expected 0 (NOP) or 1 to 239");
  if (args.size() > KM_ARGS_MAX)
    throw ValidationError("Run.submit: " + std::to_string(args.size()) + " args: a command carries at most 10");
  if (flags.queued && flags.exclusive) throw ValidationError("Run.submit: a queued command cannot be exclusive");
  if (flags.queued) {
    if (group.count < 1 || group.count > r.cores)
      throw ValidationError("Run.submit: a queued command's group is a core count, 1 to " + std::to_string(r.cores) +
                            " (got " + std::to_string(group.count) + ")");
  } else {
    if (group.count == 0 && group.first == 0) group.count = r.cores;
    if (group.count == 0 || group.first >= r.cores || group.count > r.cores - group.first)
      throw ValidationError("Run.submit: group (" + std::to_string(group.first) + ", " + std::to_string(group.count) +
                            ") does not lie inside the " + std::to_string(r.cores) + " cores (first, count)");
  }
  CommandLine line{};
  const uint64_t handle = r.next_handle;
  line.tag = uint32_t(handle);
  line.handler_flags = handler | ((flags.exclusive ? KM_FLAG_EXCLUSIVE : 0) | (flags.result ? KM_FLAG_RESULT : 0) |
                                  (flags.queued ? KM_FLAG_QUEUE : 0))
                                     << 8;
  line.group = (flags.queued ? 0 : group.first) | group.count << 16;
  line.arg_count = uint32_t(args.size());
  std::copy(args.begin(), args.end(), line.args);
  HandleState h;
  h.queued = flags.queued;
  h.first = flags.queued ? 0 : group.first;
  h.count = group.count;
  h.event.has_result = flags.result;
  r.handles.push_back(h);
  r.queue.push_back(line);
  ++r.next_handle;
  return handle;
}

uint64_t Run::submit_many(uint32_t handler, std::span<const uint32_t> firsts, std::span<const uint32_t> counts,
                          std::span<const uint32_t> args, uint32_t args_per_command, SubmitFlags flags, size_t n) {
  const uint32_t handlers[] = {handler};
  return submit_many(std::span<const uint32_t>(handlers), firsts, counts, args, args_per_command, flags, n);
}

uint64_t Run::submit_many(std::span<const uint32_t> handlers, std::span<const uint32_t> firsts,
                          std::span<const uint32_t> counts, std::span<const uint32_t> args, uint32_t args_per_command,
                          SubmitFlags flags, size_t n) {
  const auto t0 = Clock::now();
  Impl& r = *impl_;
  r.check_open("submit_many");
  if (n == 0)
    n = std::max(
        {handlers.size(), firsts.size(), counts.size(), args_per_command ? args.size() / args_per_command : 0});
  const auto check_len = [&](size_t len, const char* what) {
    if (len != 1 && len != n)
      throw ValidationError(std::string("Run.submit_many: ") + what + " has " + std::to_string(len) +
                            " values: expected 1 or " + std::to_string(n));
  };
  check_len(handlers.size(), "handlers");
  check_len(firsts.size(), "firsts");
  check_len(counts.size(), "counts");
  if (args_per_command > KM_ARGS_MAX)
    throw ValidationError("Run.submit_many: args has " + std::to_string(args_per_command) +
                          " columns: a command carries at most 10");
  if (args_per_command && args.size() != n * args_per_command)
    throw ValidationError("Run.submit_many: args has " + std::to_string(args.size()) + " values: expected " +
                          std::to_string(n) + " x " + std::to_string(args_per_command));
  // Check every command before queuing any.
  for (size_t i = 0; i < n; ++i) {
    const uint32_t handler = handlers[handlers.size() == 1 ? 0 : i];
    if (handler != KM_HANDLER_NOP && (handler < KM_HANDLER_FIRST || handler > KM_HANDLER_LAST))
      throw ValidationError("Run.submit_many: command " + std::to_string(i) + ": handler " + std::to_string(handler) +
                            " is not a program handler: expected 0 (NOP) or 1 to 239");
    const uint32_t first = firsts[firsts.size() == 1 ? 0 : i], count = counts[counts.size() == 1 ? 0 : i];
    if (count == 0 || first >= r.cores || count > r.cores - first)
      throw ValidationError("Run.submit_many: command " + std::to_string(i) + ": group (" + std::to_string(first) +
                            ", " + std::to_string(count) + ") does not lie inside the " + std::to_string(r.cores) +
                            " cores");
  }
  if (flags.queued) throw ValidationError("Run.submit_many: queued commands are submitted one by one with submit()");
  const uint64_t first_handle = r.next_handle;
  for (size_t i = 0; i < n; ++i)
    submit_one(handlers[handlers.size() == 1 ? 0 : i],
               Group{firsts[firsts.size() == 1 ? 0 : i], counts[counts.size() == 1 ? 0 : i]},
               args_per_command ? args.subspan(i * args_per_command, args_per_command) : std::span<const uint32_t>(),
               flags);
  r.submit_s += since(t0);
  return first_handle;
}

std::vector<Event> Run::wait(std::span<const uint64_t> handles, double timeout_s) {
  const auto t0 = Clock::now();
  Impl& r = *impl_;
  for (uint64_t h : handles)
    if (const HandleState* s = r.find(h); !s || s->state == HandleState::Kept)
      throw ValidationError("Run.wait: " + r.unknown_handle(h));
  size_t next = 0; // handles before it have arrived
  const auto all_arrived = [&] {
    while (next < handles.size() && r.find(handles[next])->state == HandleState::Arrived)
      ++next;
    return next == handles.size();
  };
  const bool ok = r.wait_until(all_arrived, after(timeout_s), true);
  r.native_s += since(t0);
  r.wait_s += since(t0);
  if (!r.failure.empty()) r.raise_failed("Run.wait");
  for (uint64_t h : handles) {
    const HandleState* s = r.find(h);
    if (s->state == HandleState::Arrived) r.raise_event_errors(h, *s);
  }
  if (!ok) {
    if (r.card_finished()) r.raise_failed("Run.wait");
    std::vector<uint64_t> pending;
    for (uint64_t h : handles)
      if (r.find(h)->state != HandleState::Arrived) pending.push_back(h);
    throw WaitTimeout("Run.wait: " + std::to_string(pending.size()) + " of " + std::to_string(handles.size()) +
                          " handles (the first " + std::to_string(pending.front()) + ") have no event after " +
                          std::to_string(timeout_s) + " s; " + r.kernel_activity(),
                      pending);
  }
  std::vector<Event> events;
  events.reserve(handles.size());
  for (uint64_t h : handles) {
    HandleState* s = r.find(h);
    events.push_back(s->event);
    s->state = r.options.trace == 0 ? HandleState::Forgotten : HandleState::Kept;
  }
  r.pop_forgotten();
  return events;
}

Event Run::wait_any(std::span<const uint64_t> handles, double timeout_s) {
  const auto t0 = Clock::now();
  Impl& r = *impl_;
  if (handles.empty()) throw ValidationError("Run.wait_any: no handles given");
  for (uint64_t h : handles)
    if (const HandleState* s = r.find(h); !s || s->state == HandleState::Kept)
      throw ValidationError("Run.wait_any: " + r.unknown_handle(h));
  uint64_t found = 0;
  const auto any = [&] {
    found = 0;
    for (uint64_t h : handles)
      if (r.find(h)->state == HandleState::Arrived && (found == 0 || h < found)) found = h;
    return found != 0;
  };
  const bool ok = r.wait_until(any, after(timeout_s), true);
  r.native_s += since(t0);
  r.wait_s += since(t0);
  if (!r.failure.empty()) r.raise_failed("Run.wait_any");
  if (!ok) {
    if (r.card_finished()) r.raise_failed("Run.wait_any");
    throw WaitTimeout("Run.wait_any: none of " + std::to_string(handles.size()) + " handles has an event after " +
                          std::to_string(timeout_s) + " s; " + r.kernel_activity(),
                      std::vector<uint64_t>(handles.begin(), handles.end()));
  }
  HandleState* s = r.find(found);
  r.raise_event_errors(found, *s);
  Event e = s->event;
  s->state = r.options.trace == 0 ? HandleState::Forgotten : HandleState::Kept;
  r.pop_forgotten();
  return e;
}

uint64_t Run::drain(double timeout_s) { return impl_->drain(timeout_s, true); }

uint64_t Run::Impl::drain(double timeout_s, bool yields_to_signals) {
  const auto t0 = Clock::now();
  Impl& r = *this;
  // A drain that gave way to a signal goes on from where it was (the binding
  // calls it again): its count and its gaps include what it read before.
  const DrainStart start = r.resumed_drain.value_or(DrainStart{r.command_events, r.gaps});
  r.resumed_drain.reset();
  const uint64_t before = start.events, gaps_before = start.gaps;
  const auto all = [&] { return r.queue.empty() && r.stored_with_event == r.command_events; };
  bool ok = false;
  try {
    ok = r.wait_until(all, after(timeout_s), yields_to_signals);
  } catch (const Interrupted&) {
    r.resumed_drain = start;
    throw;
  }
  r.native_s += since(t0);
  r.wait_s += since(t0);
  if (!r.failure.empty()) r.raise_failed("Run.drain");
  if (!ok) {
    if (r.card_finished()) r.raise_failed("Run.drain");
    std::vector<uint64_t> pending;
    for (size_t i = 0; i < r.handles.size(); ++i)
      if (r.handles[i].state == HandleState::Queued || r.handles[i].state == HandleState::Stored)
        pending.push_back(r.base + i);
    throw WaitTimeout("Run.drain: " + std::to_string(pending.size()) + " commands have no event after " +
                          std::to_string(timeout_s) + " s; " + r.kernel_activity(),
                      pending);
  }
  if (r.gaps != gaps_before) // as wait() does: the first handle whose sequence this drain could not read
    for (size_t i = 0; i < r.handles.size(); ++i)
      if (r.handles[i].gap && r.handles[i].state == HandleState::Arrived) throw r.gap_error(r.base + i);
  return r.command_events - before;
}

std::optional<Event> Run::event(uint64_t handle) const {
  const HandleState* h = impl_->find(handle);
  if (!h || h->state != HandleState::Arrived) return std::nullopt;
  return h->event;
}

std::optional<uint64_t> Run::sequence(uint64_t handle) const {
  const HandleState* h = impl_->find(handle);
  if (h && h->gap) throw Impl::gap_error(handle);
  if (!h || !h->has_sequence) return std::nullopt;
  return h->sequence;
}

std::optional<Run::GroupOf> Run::group(uint64_t handle) const {
  const HandleState* h = impl_->find(handle);
  if (!h) return std::nullopt;
  const bool known = !h->queued || ((h->state == HandleState::Arrived || h->state == HandleState::Kept) &&
                                    h->event.kind == EventKind::Done);
  return GroupOf{known, known ? h->first : 0, h->count};
}

void Run::forget(std::span<const uint64_t> handles) {
  Impl& r = *impl_;
  for (uint64_t handle : handles)
    if (HandleState* h = r.find(handle); h && h->state == HandleState::Arrived)
      h->state = r.options.trace == 0 ? HandleState::Forgotten : HandleState::Kept;
  r.pop_forgotten();
}

bool Run::stopped() const { return impl_->stopped; }
const ResultBlock& Run::result() const { return impl_->result; }

std::vector<uint32_t> Run::state_words() const {
  if (!impl_->stopped) throw ValidationError("Run.state_words: the state words are read after the stop");
  return impl_->state_words;
}

std::vector<uint32_t> Run::port_words() const {
  if (!impl_->stopped) throw ValidationError("Run.port_words: the port words are read after the stop");
  return impl_->port_words;
}

std::vector<uint32_t> Run::broadcast_words() const {
  if (!impl_->stopped) throw ValidationError("Run.broadcast_words: the broadcast words are read after the stop");
  return impl_->broadcast_words;
}

std::vector<TraceEntry> Run::trace(uint64_t handle) const {
  const Impl& r = *impl_;
  if (!r.stopped) throw ValidationError("Run.trace: the trace is read after the stop");
  const HandleState* h = r.find(handle);
  if (!h || !h->has_sequence) return {};
  if (h->sequence >= r.options.trace) return {};
  std::vector<TraceEntry> out;
  const size_t per_core = size_t(r.options.trace) * KM_TRACE_ENTRY_BYTES / 4;
  for (uint32_t c = h->first; c < h->first + h->count; ++c) {
    const uint32_t* t = &r.trace_words[c * per_core + h->sequence * 4];
    out.push_back(TraceEntry{c, t[0], t[1], t[2], t[3]});
  }
  return out;
}

uint32_t Run::traced() const { return impl_->options.trace; }
const KernelSizes& Run::sizes() const { return impl_->sizes; }
uint64_t Run::submitted() const { return impl_->next_handle - 1; }
double Run::submit_s() const { return impl_->submit_s; }
double Run::wait_s() const { return impl_->wait_s; }
double Run::native_s() const { return impl_->native_s; }

} // namespace tessel::dispatch
