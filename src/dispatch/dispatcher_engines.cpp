// The dispatcher's engines: RUN and CANCEL, and the streams and graphs that
// run from the upload region (engine.hpp), with the dispatcher as their sink.
#include <algorithm>

#include "dispatch/dispatcher.hpp"

namespace tessel::dispatch {

class Dispatcher::Sink final : public EngineSink {
public:
  Sink(Dispatcher& d, uint32_t slot) : d_(d), slot_(slot) {}
  bool submit(const EngineCommand& c) override { return d_.engine_submit(slot_, c); }
  bool post(uint32_t kind, uint32_t auxiliary, uint32_t value) override {
    return d_.engine_post(slot_, kind, auxiliary, value);
  }
  uint64_t now_us() override { return d_.now_ticks() / KM_TIMER_MHZ; }
  uint32_t ticks() override { return uint32_t(d_.now_ticks()); }

private:
  Dispatcher& d_;
  uint32_t slot_;
};

int Dispatcher::find_engine(uint32_t req) const {
  for (uint32_t i = 0; i < engines_.size(); ++i)
    if (engines_[i].engine && engines_[i].engine->req() == req) return int(i);
  return -1;
}

// RUN: a0 the upload's offset (start) or its req (restart), a1 the binding
// line's offset + 1, a2 the mode, a3 the binding words. Answered only when
// rejected; a bad upload starts and ends at once with its error event.
void Dispatcher::run_engine(const Command& c) {
  const uint32_t mode = c.args[2], bindings_at = c.args[1], binding_count = c.args[3];
  const uint32_t region_words = mem_.upload_bytes / 4;
  // The binding words, from their line (bounded here: the engine rejects more than 16).
  uint32_t bindings[KM_ENGINE_BINDINGS_MAX + 1] = {};
  const uint32_t taken = std::min<uint32_t>(binding_count, KM_ENGINE_BINDINGS_MAX + 1);
  if (bindings_at) {
    const uint32_t at = bindings_at - 1;
    if (at % KM_LINE_BYTES != 0 || uint64_t(at) + taken * 4 > mem_.upload_bytes) return reject(c, KMD_REJECT_REQ);
    std::copy_n(mem_.upload + at / 4, taken, bindings);
  }
  int slot = -1;
  if (mode == KM_RUN_RESTART) {
    slot = find_engine(c.args[0]);
    if (slot < 0 || engines_[slot].running || engines_[slot].engine->kind() != KM_ENGINE_GRAPH)
      return reject(c, KMD_REJECT_REQ);
  } else if (mode == KM_RUN_START) {
    const uint32_t offset = c.args[0];
    if (offset % KM_LINE_BYTES != 0 || offset >= mem_.upload_bytes) return reject(c, KMD_REJECT_REQ);
    const uint32_t* words = mem_.upload + offset / 4;
    const uint32_t available = region_words - offset / 4;
    const uint32_t req = Engine::req_of(words, available);
    if (req == 0 || req > KM_ENGINE_REQ_MAX || find_engine(req) >= 0) return reject(c, KMD_REJECT_REQ);
    const bool graph = Engine::kind_of(words, available) == KM_ENGINE_GRAPH;
    const uint32_t from = graph ? KM_ENGINE_STREAMS_MAX : 0;
    const uint32_t to = graph ? uint32_t(engines_.size()) : KM_ENGINE_STREAMS_MAX;
    for (uint32_t i = from; i < to && slot < 0; ++i)
      if (!engines_[i].engine) slot = int(i);
    if (slot < 0) return reject(c, KMD_REJECT_ENGINES);
    engines_[slot].engine = std::make_unique<Engine>(words, available, cores_);
  } else {
    return reject(c, KMD_REJECT_REQ);
  }
  EngineSlot& e = engines_[slot];
  e.running = true;
  ++engines_running_;
  e.engine->start(bindings, taken, now_ticks() / KM_TIMER_MHZ);
  last_activity_tick_ = now_ticks();
}

// CANCEL: a0 the req. A running engine stops sending and ends with its
// cancelled event; a kept graph that is not running is dropped with one.
void Dispatcher::cancel_engine(const Command& c) {
  const int slot = find_engine(c.args[0]);
  if (slot < 0) return reject(c, KMD_REJECT_REQ);
  EngineSlot& e = engines_[slot];
  if (e.running) {
    e.engine->cancel();
    return;
  }
  // event_room() held for this line: the cancelled event fits.
  post(KM_EVENT_ENGINE_ERROR, e.engine->req(), KM_STREAM_ERROR_CANCELLED, 0, 0);
  e.engine.reset();
}

bool Dispatcher::step_engines() {
  bool moved = false;
  // Round robin from the slot after the one that went first last time: no
  // engine starves another.
  const uint32_t n = uint32_t(engines_.size());
  first_engine_ = (first_engine_ + 1) % n;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = (first_engine_ + k) % n;
    EngineSlot& e = engines_[i];
    if (!e.running) continue;
    Sink sink(*this, i);
    moved |= e.engine->step(sink);
    if (!e.engine->running()) {
      e.running = false;
      --engines_running_;
      last_activity_tick_ = now_ticks();
      if (!e.engine->kept_after_end()) e.engine.reset();
    }
  }
  return moved;
}

bool Dispatcher::engine_submit(uint32_t slot, const EngineCommand& ec) {
  if (aborting_ || exited_) return false;
  Command c;
  c.handler = ec.handler;
  c.flags = ec.flags;
  c.first = ec.first;
  c.count = ec.count;
  c.arg_count = ec.arg_count;
  std::copy_n(ec.args, KM_ARGS_MAX, c.args);
  c.engine = slot + 1;
  c.token = ec.token;
  c.taken_tick = now_ticks();
  return place(c);
}

bool Dispatcher::place(const Command& c) {
  if (c.flags & KM_FLAG_QUEUE) {
    if (jobs_.size() >= KM_JOB_QUEUE) return false;
    jobs_.push_back(c);
    return true;
  }
  if ((c.flags & KM_FLAG_EXCLUSIVE) && (!jobs_.empty() || overlaps_busy(c.first, c.count))) return false;
  if (free_slot() < 0) return false;
  submit(c, c.first);
  return true;
}

// An engine's event leaves room for the event of every host command in flight.
bool Dispatcher::engine_event_room() {
  uint32_t host_busy = 0;
  for (uint32_t m = busy_mask_; m; m &= m - 1)
    host_busy += slots_[__builtin_ctz(m)].command.engine == 0;
  const auto fits = [&] { return uint32_t(uint32_t(posted_) - read_count_) + host_busy + 1 <= config_.event_depth; };
  if (fits()) return true;
  read_count_ = mem_.read_count.load(std::memory_order_acquire); // the host is done with the lines before it
  return fits();
}

bool Dispatcher::engine_post(uint32_t slot, uint32_t kind, uint32_t auxiliary, uint32_t value) {
  if (!engine_event_room()) return false;
  CardEvent& e = mem_.events[posted_ % config_.event_depth];
  e.kind = kind;
  e.tag = engines_[slot].engine->req();
  e.auxiliary = auxiliary;
  e.ticks = value;
  ++posted_;
  wake_host_ = true;
  return true;
}

void Dispatcher::engine_completed(const Slot& s) {
  EngineSlot& e = engines_[s.command.engine - 1];
  if (e.engine) e.engine->complete(s.command.token, s.result);
}

} // namespace tessel::dispatch
