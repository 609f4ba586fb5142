// The host's side of the engines (engines.hpp): the upload region's lines,
// RUN / CANCEL with a PING behind each, the engines' events, run_hostfed.
#include <algorithm>
#include <cstring>

#include "dispatch/engine.hpp"
#include "dispatch/run_state.hpp"
#include "dispatch/session_state.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/run.hpp"

namespace tessel::dispatch {

namespace {
using Clock = std::chrono::steady_clock;

std::string secs(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

uint32_t round_to_lines(size_t bytes) { return uint32_t((bytes + KM_LINE_BYTES - 1) / KM_LINE_BYTES * KM_LINE_BYTES); }

EngineEvent decode_event(const CardEvent& e, bool stream) {
  EngineEvent ev;
  switch (e.kind) {
  case KM_EVENT_ENGINE_EVENT: ev.kind = "event"; break;
  case KM_EVENT_ENGINE_ROUND: ev.kind = "round"; break;
  case KM_EVENT_ENGINE_END: ev.kind = "end"; break;
  default: ev.kind = "error"; break;
  }
  ev.value = e.ticks;
  if (e.kind == KM_EVENT_ENGINE_END) ev.registers = {e.auxiliary & 0xFFFFFFu, e.ticks};
  if (e.kind == KM_EVENT_ENGINE_ERROR) {
    ev.value = 0;
    ev.reason = e.auxiliary & 0xFFu;
    ev.reason_name = engine_error_name(ev.reason);
    const uint32_t at = (e.auxiliary >> 8) & 0xFFFFu;
    if (at) (stream ? ev.pc : ev.node) = at - 1;
  }
  return ev;
}

std::string where(const EngineEvent& ev) {
  if (ev.pc) return " at pc " + std::to_string(*ev.pc);
  if (ev.node) return " at node " + std::to_string(*ev.node);
  return "";
}

} // namespace

// ---------------------------------------------------------------------------
// Runtime commands and the engines' events

uint32_t Run::Impl::queue_runtime(uint32_t handler, std::initializer_list<uint32_t> args) {
  CommandLine line{};
  line.tag = next_runtime_tag;
  next_runtime_tag = kRuntimeTag | std::max<uint32_t>((next_runtime_tag + 1) & ~kRuntimeTag, 1u);
  line.handler_flags = handler;
  line.arg_count = uint32_t(args.size());
  std::copy(args.begin(), args.end(), line.args);
  queue.push_back(line);
  runtime_commands.push_back(RuntimeCommand{line.tag});
  return line.tag;
}

RuntimeCommand* Run::Impl::runtime(uint32_t tag) {
  for (RuntimeCommand& c : runtime_commands)
    if (c.tag == tag) return &c;
  return nullptr;
}

// A PING's PONG: everything sent before it has been answered, so a RUN or
// CANCEL without an event was accepted and gives back the event room it was
// stored with. Records no live handle still asks about go.
void Run::Impl::runtime_answered(uint32_t ping_tag) {
  for (RuntimeCommand& c : runtime_commands) {
    if (c.tag == ping_tag) break;
    if (!c.answered && !c.arrived) --stored_with_event;
    c.answered = true;
  }
  std::erase_if(runtime_commands, [&](const RuntimeCommand& c) {
    if (c.tag == ping_tag) return true;
    if (!c.answered) return false;
    for (const auto& h : engines)
      if (h->run_tag == c.tag) return false; // its handle learns the RUN's answer from it
    return true;
  });
}

bool Run::Impl::ping(double timeout_s) {
  const uint32_t tag = queue_runtime(KM_HANDLER_PING, {});
  const bool ok = wait_until([&] { return runtime(tag) == nullptr; }, after(timeout_s));
  if (!failure.empty()) raise_failed("Run: an engine command");
  return ok;
}

// The answer to a handle's RUN, once the PING behind it was answered:
// nullopt when it was accepted, else the rejection's reason. Forgets the RUN.
std::optional<uint32_t> Run::Impl::run_answer(EngineHandle& h) {
  const RuntimeCommand* run = runtime(h.run_tag);
  std::optional<uint32_t> reason;
  if (run && run->arrived) reason = run->reason;
  std::erase_if(runtime_commands, [&](const RuntimeCommand& c) { return c.tag == h.run_tag && c.answered; });
  h.run_tag = 0;
  return reason;
}

void Run::Impl::end_engine(const std::shared_ptr<EngineHandle>& h) {
  std::erase(engines, h);
  std::erase_if(runtime_commands, [&](const RuntimeCommand& c) { return c.tag == h->run_tag && c.answered; });
  if (h->binding_line) std::erase(binding_lines, h->binding_line - 1);
  h->binding_line = 0;
  if (h->upload->state == "running") h->upload->state = "loaded";
}

void Run::Impl::engine_event(const CardEvent& e) {
  const uint32_t req = e.tag;
  std::shared_ptr<EngineHandle> h;
  for (const auto& x : engines)
    if (x->req == req) h = x;
  if (!h) {
    // A kept graph dropped by CANCEL (release): its cancelled event.
    for (const auto& u : uploads)
      if (u->req == req && u->state == "kept" && e.kind == KM_EVENT_ENGINE_ERROR) {
        u->state = "loaded";
        return;
      }
    failure = "the dispatcher sent an engine event (kind " + std::to_string(e.kind) + ") for req " +
              std::to_string(req) + ", which runs no engine";
    return;
  }
  EngineEvent ev = decode_event(e, h->kind == "stream");
  h->unknown = false; // it ran
  h->events.push_back(ev);
  if (e.kind == KM_EVENT_ENGINE_END || e.kind == KM_EVENT_ENGINE_ERROR) {
    h->end = ev;
    end_engine(h);
    h->upload->state = (e.auxiliary & KM_EVENT_KEPT) ? "kept" : "loaded";
  }
}

std::optional<uint32_t> Run::Impl::free_range(uint32_t bytes) const {
  std::vector<std::pair<uint32_t, uint32_t>> used;
  for (const auto& u : uploads)
    used.emplace_back(u->offset, u->offset + u->bytes);
  for (uint32_t at : binding_lines)
    used.emplace_back(at, at + KM_LINE_BYTES);
  std::sort(used.begin(), used.end());
  uint32_t at = 0;
  for (const auto& [from, to] : used) {
    if (from >= at && from - at >= bytes) return at;
    at = std::max(at, to);
  }
  if (memory->upload_bytes >= at && memory->upload_bytes - at >= bytes) return at;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Uploads

uint32_t Run::upload_region_bytes() const { return impl_->memory->upload_bytes; }
std::vector<std::shared_ptr<Upload>> Run::uploads() const { return impl_->uploads; }

std::shared_ptr<Upload> Run::upload(const std::vector<uint8_t>& bytes, const std::string& kind,
                                    std::shared_ptr<const Graph> graph) {
  Impl& r = *impl_;
  r.check_open("upload");
  if (kind != "stream" && kind != "graph")
    throw ValidationError("Run.upload: kind '" + kind + "' is not \"stream\" or \"graph\"");
  if (bytes.empty()) throw ValidationError("Run.upload: no bytes to upload");
  if (r.memory->upload_bytes == 0)
    throw ValidationError("Run.upload: this program has an X280 thread, whose ring takes the upload region: no "
                          "stream or graph can be uploaded");
  const uint32_t size = round_to_lines(bytes.size());
  const std::optional<uint32_t> at = r.free_range(size);
  if (!at) {
    uint32_t used = 0;
    for (const auto& u : r.uploads)
      used += u->bytes;
    throw ValidationError("Run.upload: " + std::to_string(size) + " bytes do not fit the upload region (" +
                          std::to_string(r.memory->upload_bytes) + " bytes, " + std::to_string(used) + " used by " +
                          std::to_string(r.uploads.size()) + " uploads, " + std::to_string(r.binding_lines.size()) +
                          " binding lines): nothing was written");
  }
  auto u = std::make_shared<Upload>();
  u->offset = *at;
  u->bytes = size;
  u->kind = kind;
  uint32_t header[KM_LINE_BYTES / 4] = {};
  std::memcpy(header, bytes.data(), std::min<size_t>(bytes.size(), sizeof header));
  u->req = header[KM_ENGINE_H_REQ];
  u->keep = header[KM_ENGINE_H_FLAGS] & KM_ENGINE_KEEP;
  u->state = "loaded";
  u->graph = std::move(graph);
  uint8_t* region = reinterpret_cast<uint8_t*>(r.memory->upload);
  std::memcpy(region + *at, bytes.data(), bytes.size());
  std::memset(region + *at + bytes.size(), 0, size - bytes.size());
  r.uploads.push_back(u);
  return u;
}

void Run::release(const std::shared_ptr<Upload>& upload, double timeout_s) {
  Impl& r = *impl_;
  if (!upload || std::find(r.uploads.begin(), r.uploads.end(), upload) == r.uploads.end())
    throw ValidationError("Run.release: the upload is not in this run's region (released already?)");
  r.store_some();
  r.read_events();
  if (upload->state == "running")
    throw ValidationError("Run.release: the " + upload->kind + " with req " + std::to_string(upload->req) +
                          " is running: cancel it, or wait for its end, first");
  if (upload->state == "kept" && !r.stopped && !r.card_finished()) {
    r.queue_runtime(KM_HANDLER_CANCEL, {upload->req});
    if (!r.ping(timeout_s))
      throw EngineTimeout("Run.release: the kernel did not answer the CANCEL of the kept graph with req " +
                              std::to_string(upload->req) + " within " + secs(timeout_s) + " s",
                          nullptr);
  }
  std::erase(r.uploads, upload);
  upload->state = "released";
}

// ---------------------------------------------------------------------------
// RUN, CANCEL, waits

namespace {

// No bindings for an upload of a Graph: its constants (and no named binding may be left without a value).
std::vector<uint32_t> default_bindings(const Upload& u, const std::vector<uint32_t>& bindings, const char* what) {
  if (!bindings.empty() || !u.graph) return bindings;
  try {
    return u.graph->binding_values({});
  } catch (const ValidationError& e) {
    throw ValidationError(std::string(what) + ": no bindings given for a graph with named bindings (" + e.what() + ")");
  }
}

std::shared_ptr<EngineHandle> send_run(Run::Impl& r, const std::shared_ptr<Upload>& u,
                                       const std::vector<uint32_t>& given, uint32_t mode, double timeout_s,
                                       const char* what) {
  const std::vector<uint32_t> bindings = default_bindings(*u, given, what);
  if (bindings.size() > KM_ENGINE_BINDINGS_MAX)
    throw ValidationError(std::string(what) + ": " + std::to_string(bindings.size()) +
                          " binding words: at most 16 (one line)");
  uint32_t line = 0;
  if (!bindings.empty()) {
    const std::optional<uint32_t> at = r.free_range(KM_LINE_BYTES);
    if (!at) throw ValidationError(std::string(what) + ": no free line in the upload region for the bindings");
    std::memcpy(r.memory->upload + *at / 4, bindings.data(), bindings.size() * 4);
    r.binding_lines.push_back(*at);
    line = *at + 1;
  }
  auto h = std::make_shared<EngineHandle>();
  h->kind = u->kind;
  h->req = u->req;
  h->upload = u;
  h->binding_line = line;
  const uint32_t a0 = mode == KM_RUN_START ? u->offset : u->req;
  h->run_tag = r.queue_runtime(KM_HANDLER_RUN, {a0, line, mode, uint32_t(bindings.size())});
  r.engines.push_back(h);
  const std::string before = u->state;
  u->state = "running";
  if (!r.ping(timeout_s)) {
    if (r.card_finished()) r.raise_failed(what);
    h->unknown = true;
    throw EngineTimeout(std::string(what) + ": the kernel did not answer the RUN of req " + std::to_string(u->req) +
                            " within " + secs(timeout_s) +
                            " s: the engine may have started (cancel or stop settles it)",
                        h);
  }
  if (const std::optional<uint32_t> reason = r.run_answer(*h)) {
    r.end_engine(h);
    u->state = before;
    throw EngineRejected(std::string(what) + ": the kernel rejected the RUN of req " + std::to_string(u->req) +
                             ": reason " + std::to_string(*reason) + " (" + reject_reason_name(*reason) + ")",
                         u->req, *reason, reject_reason_name(*reason));
  }
  return h;
}

} // namespace

std::shared_ptr<EngineHandle> Run::start(const std::shared_ptr<Upload>& upload, const std::vector<uint32_t>& bindings,
                                         std::optional<bool> kept, double timeout_s) {
  Impl& r = *impl_;
  r.check_open("start");
  if (!upload || std::find(r.uploads.begin(), r.uploads.end(), upload) == r.uploads.end())
    throw ValidationError("Run.start: the upload is not in this run's region (released already?)");
  r.store_some();
  r.read_events();
  for (const auto& u : r.uploads)
    if (u->req == upload->req && (u->state == "running" || u->state == "kept"))
      throw ValidationError("Run.start: an engine with req " + std::to_string(upload->req) + " is " + u->state +
                            (u->state == "kept" ? " (restart it with restart(req), or release it)" : ""));
  if (kept) {
    if (upload->kind != "graph") throw ValidationError("Run.start: kept= applies to graphs only");
    uint32_t& flags = r.memory->upload[upload->offset / 4 + KM_ENGINE_H_FLAGS];
    flags = *kept ? (flags | KM_ENGINE_KEEP) : (flags & ~KM_ENGINE_KEEP);
    upload->keep = *kept;
  }
  return send_run(r, upload, bindings, KM_RUN_START, timeout_s, "Run.start");
}

std::shared_ptr<EngineHandle> Run::restart(uint32_t req, const std::vector<uint32_t>& bindings, double timeout_s) {
  Impl& r = *impl_;
  r.check_open("restart");
  r.store_some();
  r.read_events();
  std::shared_ptr<Upload> kept;
  for (const auto& u : r.uploads)
    if (u->req == req && u->state == "kept") kept = u;
  if (!kept)
    throw ValidationError("Run.restart: no kept graph has req " + std::to_string(req) +
                          " (a graph is kept after its end when it was uploaded or started with keep)");
  return send_run(r, kept, bindings, KM_RUN_RESTART, timeout_s, "Run.restart");
}

void Run::cancel(const std::shared_ptr<EngineHandle>& h, double timeout_s) {
  Impl& r = *impl_;
  if (!h) throw ValidationError("Run.cancel: no handle");
  if (r.stopped || r.card_finished()) return;
  r.store_some();
  r.read_events();
  if (h->end || std::find(r.engines.begin(), r.engines.end(), h) == r.engines.end()) {
    if (h->unknown && h->end) h->unknown = false; // it ran: it has an end event
    return;
  }
  r.queue_runtime(KM_HANDLER_CANCEL, {h->req});
  if (!r.ping(timeout_s)) {
    if (r.card_finished()) r.raise_failed("Run.cancel");
    throw EngineTimeout("Run.cancel: the kernel did not answer the CANCEL of req " + std::to_string(h->req) +
                            " within " + secs(timeout_s) + " s",
                        h);
  }
  // A rejected CANCEL means the engine had ended: its end event came first.
  if (h->unknown) {
    h->unknown = false;
    if (const std::optional<uint32_t> reason = r.run_answer(*h)) {
      r.end_engine(h);
      throw EngineRejected("Run.cancel: the RUN of req " + std::to_string(h->req) + " had been rejected: reason " +
                               std::to_string(*reason) + " (" + reject_reason_name(*reason) + "); it never ran",
                           h->req, *reason, reject_reason_name(*reason));
    }
  }
}

EngineEvent Run::wait_engine(const std::shared_ptr<EngineHandle>& h, double timeout_s) {
  Impl& r = *impl_;
  if (!h) throw ValidationError("Run.wait_engine: no handle");
  const auto t0 = Clock::now();
  const bool ok = r.stopped ? bool(h->end) : r.wait_until([&] { return h->end.has_value(); }, after(timeout_s));
  r.wait_s += std::chrono::duration<double>(Clock::now() - t0).count();
  if (!r.failure.empty()) r.raise_failed("Run.wait_engine");
  if (!ok) {
    if (r.card_finished()) r.raise_failed("Run.wait_engine");
    throw EngineTimeout("Run.wait_engine: the " + h->kind + " with req " + std::to_string(h->req) +
                            " has not ended after " + secs(timeout_s) + " s (" + std::to_string(h->events.size()) +
                            " events so far); it may still run",
                        h);
  }
  const EngineEvent& end = *h->end;
  if (end.kind == "error")
    throw EngineError("Run.wait_engine: the " + h->kind + " with req " + std::to_string(h->req) +
                          " ended with an error: " + end.reason_name + " (reason " + std::to_string(end.reason) + ")" +
                          where(end),
                      end, h);
  return end;
}

// ---------------------------------------------------------------------------
// run_hostfed: the engine on the host, its commands through the host ring

namespace {

class HostSink final : public EngineSink {
public:
  HostSink(Run& run, Run::Impl& r, HostfedResult& out) : run_(run), r_(r), out_(out) {}
  bool submit(const EngineCommand& c) override {
    // The engine checked the command; Run.submit's checks hold for it too.
    SubmitFlags f{bool(c.flags & KM_FLAG_EXCLUSIVE), bool(c.flags & KM_FLAG_RESULT), bool(c.flags & KM_FLAG_QUEUE)};
    const uint64_t handle =
        run_.submit(c.handler, Group{c.first, c.count}, std::span<const uint32_t>(c.args, c.arg_count), f);
    HostfedCommand hc{c.node, c.handler, c.first, c.count, std::vector<uint32_t>(c.args, c.args + c.arg_count),
                      handle, 0};
    out_.commands.push_back(std::move(hc));
    outstanding.emplace_back(handle, c.token, out_.commands.size() - 1);
    return true;
  }
  bool post(uint32_t kind, uint32_t auxiliary, uint32_t value) override {
    CardEvent e{kind, 0, auxiliary, value};
    out_.events.push_back(decode_event(e, stream));
    return true;
  }
  uint64_t now_us() override {
    return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count());
  }
  uint32_t ticks() override { return uint32_t(r_.dispatcher->now_ticks()); }

  struct Outstanding {
    uint64_t handle;
    uint32_t token;
    size_t command;
  };
  std::vector<Outstanding> outstanding;
  bool stream = false;

private:
  Run& run_;
  Run::Impl& r_;
  HostfedResult& out_;
};

} // namespace

HostfedResult Run::run_hostfed(const std::vector<uint8_t>& bytes, const std::vector<uint32_t>& bindings,
                               double timeout_s) {
  Impl& r = *impl_;
  r.check_open("run_hostfed");
  if (bytes.empty()) throw ValidationError("Run.run_hostfed: no bytes to run");
  if (bindings.size() > KM_ENGINE_BINDINGS_MAX)
    throw ValidationError("Run.run_hostfed: " + std::to_string(bindings.size()) +
                          " binding words: at most 16 (one line)");
  std::vector<uint32_t> words(round_to_lines(bytes.size()) / 4, 0u);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  Engine engine(words.data(), uint32_t(words.size()), r.cores);
  HostfedResult out;
  HostSink sink(*this, r, out);
  sink.stream = engine.kind() != KM_ENGINE_GRAPH;
  engine.start(bindings.data(), uint32_t(bindings.size()), sink.now_us());
  const auto deadline = after(timeout_s);
  std::vector<uint64_t> handles;
  while (engine.running()) {
    if (Clock::now() >= deadline)
      throw WaitTimeout("Run.run_hostfed: the " + std::string(sink.stream ? "stream" : "graph") +
                            " did not end within " + secs(timeout_s) + " s (" + std::to_string(out.commands.size()) +
                            " commands sent)",
                        {});
    if (engine.step(sink)) continue;
    if (sink.outstanding.empty())
      throw DispatchError("Run.run_hostfed: the engine waits with no command in flight"); // not reachable
    handles.clear();
    for (const auto& o : sink.outstanding)
      handles.push_back(o.handle);
    const double left = std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count());
    const Event e = wait_any(handles, left);
    const auto it = std::find_if(sink.outstanding.begin(), sink.outstanding.end(),
                                 [&](const auto& o) { return o.handle == e.handle; });
    const uint32_t result = e.has_result ? e.result : 0u;
    out.commands[it->command].result = result;
    const uint32_t token = it->token;
    sink.outstanding.erase(it);
    engine.complete(token, result);
  }
  out.status = engine.error() == KM_STREAM_ERROR_NONE ? "end" : "error";
  if (engine.error() != KM_STREAM_ERROR_NONE) out.error = engine_error_name(engine.error());
  out.registers.assign(engine.registers(), engine.registers() + KM_ENGINE_REGISTERS);
  out.runs = engine.kind() == KM_ENGINE_GRAPH ? engine.runs() : 1;
  return out;
}

} // namespace tessel::dispatch
