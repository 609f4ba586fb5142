// tessel.dispatch.engines' native half: Stream and Graph encoders, uploads,
// engine handles and the Run's engine calls, over the C++ dispatch core.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "dispatch_bindings.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/engine_abi.h"

namespace tessel::python {

namespace {

using namespace tessel::dispatch;

nb::object opt(const std::optional<uint32_t>& v) { return v ? nb::cast(*v) : nb::none(); }

nb::bytes to_bytes(const std::vector<uint8_t>& b) {
  return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

std::vector<uint8_t> from_bytes(const nb::bytes& b) {
  const uint8_t* p = static_cast<const uint8_t*>(b.data());
  return std::vector<uint8_t>(p, p + b.size());
}

// Tried before the dispatch errors' translator: the engine errors are
// CommandRejected and WaitTimeout subclasses.
void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const EngineRejected& e) {
    nb::dict f;
    f["reason"] = e.reason;
    f["reason_name"] = e.reason_name;
    f["req"] = e.req;
    raise_dispatch_error("EngineRejected", e.what(), f);
  } catch (const EngineError& e) {
    nb::dict f;
    f["event"] = engine_event_tuple(e.event);
    f["handle"] = nb::cast(e.handle);
    raise_dispatch_error("EngineError", e.what(), f);
  } catch (const EngineTimeout& e) {
    nb::dict f;
    f["handle"] = e.handle ? nb::cast(e.handle) : nb::none();
    raise_dispatch_error("EngineTimeout", e.what(), f);
  }
}

nb::dict hostfed_dict(const HostfedResult& r) {
  nb::dict d;
  d["status"] = r.status;
  d["error"] = r.error ? nb::cast(*r.error) : nb::none();
  d["registers"] = nb::cast(r.registers);
  d["runs"] = r.runs;
  nb::list commands;
  for (const HostfedCommand& c : r.commands) {
    nb::dict x;
    x["node"] = c.node;
    x["handler"] = c.handler;
    x["group"] = nb::make_tuple(c.first, c.count);
    x["args"] = nb::cast(c.args);
    x["handle"] = c.handle;
    x["result"] = c.result;
    commands.append(x);
  }
  d["commands"] = commands;
  nb::list events;
  for (const EngineEvent& e : r.events)
    events.append(engine_event_tuple(e));
  d["events"] = events;
  return d;
}

Stream::Arg arg_of(const std::pair<bool, uint32_t>& a) { return Stream::Arg{a.first, a.second}; }

} // namespace

nb::tuple engine_event_tuple(const EngineEvent& e) {
  return nb::make_tuple(e.kind, e.value, nb::make_tuple(e.registers.first, e.registers.second), e.reason, e.reason_name,
                        opt(e.pc), opt(e.node));
}

void bind_engines(nb::module_& m, nb::class_<Run>& run) {
  nb::register_exception_translator(translate);

  nb::class_<Stream>(m, "EngineStream")
      .def(nb::init<uint32_t, uint32_t, uint32_t>())
      .def("nop", &Stream::nop)
      .def("li", [](Stream& s, uint32_t rd, uint32_t v) { s.li(Stream::reg(rd), v); })
      .def("alu", [](Stream& s, uint32_t op, uint32_t rd, uint32_t rs,
                     uint32_t rt) { s.alu(op, Stream::reg(rd), Stream::reg(rs), Stream::reg(rt)); })
      .def("alu_imm", [](Stream& s, uint32_t op, uint32_t rd, uint32_t rs,
                         uint32_t imm) { s.alu_imm(op, Stream::reg(rd), Stream::reg(rs), imm); })
      .def("label", [](Stream& s) { return s.label().id; })
      .def("place", [](Stream& s, uint32_t id) { s.place(Stream::Label{id}); })
      .def("jmp", [](Stream& s, uint32_t id) { s.jmp(Stream::Label{id}); })
      .def("bz", [](Stream& s, uint32_t r, uint32_t id) { s.bz(Stream::reg(r), Stream::Label{id}); })
      .def("bnz", [](Stream& s, uint32_t r, uint32_t id) { s.bnz(Stream::reg(r), Stream::Label{id}); })
      .def("submit",
           [](Stream& s, uint32_t handler, bool registers, uint32_t first, uint32_t count,
              const std::vector<std::pair<bool, uint32_t>>& args, uint32_t flags, std::optional<uint32_t> result,
              bool enqueue) {
             std::vector<Stream::Arg> a;
             for (const auto& x : args)
               a.push_back(arg_of(x));
             std::optional<Stream::Reg> r;
             if (result) r = Stream::reg(*result);
             s.submit(handler, Stream::Group{registers, first, count}, a, flags, r, enqueue);
           })
      .def("wait", &Stream::wait)
      .def("event", [](Stream& s, uint32_t r) { s.event(Stream::reg(r)); })
      .def("halt", [](Stream& s, uint32_t r) { s.halt(Stream::reg(r)); })
      .def("ticks", [](Stream& s, uint32_t r) { s.ticks(Stream::reg(r)); })
      .def("pc", &Stream::pc)
      .def("req", &Stream::req)
      .def("encode", [](const Stream& s) { return to_bytes(s.encode()); });

  nb::class_<Graph>(m, "EngineGraph")
      .def(nb::init<uint32_t, uint32_t, uint32_t, bool>())
      .def("binding", [](Graph& g, const std::string& name) { return g.binding(name).id; })
      .def("add_register", [](Graph& g) { return g.add_register().id; })
      .def("constant", [](Graph& g, uint32_t v) { return g.constant(v).id; })
      .def("again", [](const Graph& g) { return g.again().id; })
      .def("command",
           [](Graph& g, uint32_t handler, uint32_t first, uint32_t count, const std::vector<uint32_t>& args,
              const std::vector<uint32_t>& after, std::optional<uint32_t> result, uint32_t flags) {
             std::vector<Graph::Value> a;
             for (uint32_t v : args)
               a.push_back(Graph::Value{v});
             std::vector<Graph::Node> n;
             for (uint32_t i : after)
               n.push_back(Graph::Node{i});
             std::optional<Graph::Value> r;
             if (result) r = Graph::Value{*result};
             return g.command(handler, {first, count}, a, n, r, flags).index;
           })
      .def("cpu",
           [](Graph& g, const std::vector<uint32_t>& after) {
             std::vector<Graph::Node> n;
             for (uint32_t i : after)
               n.push_back(Graph::Node{i});
             return g.cpu(n).index;
           })
      .def("op", [](Graph& g, uint32_t node, uint32_t op, uint32_t rd, uint32_t rs,
                    uint32_t rt) { g.op(Graph::Node{node}, op, Graph::Value{rd}, Graph::Value{rs}, Graph::Value{rt}); })
      .def("op_imm", [](Graph& g, uint32_t node, uint32_t op, uint32_t rd, uint32_t rs,
                        uint32_t imm) { g.op_imm(Graph::Node{node}, op, Graph::Value{rd}, Graph::Value{rs}, imm); })
      .def("register_of", [](const Graph& g, uint32_t id) { return g.register_of(Graph::Value{id}); })
      .def("binding_values", &Graph::binding_values)
      .def("binding_names", &Graph::binding_names)
      .def("req", &Graph::req)
      .def("keep", &Graph::keep)
      .def("encode", [](const Graph& g) { return to_bytes(g.encode()); });

  nb::class_<Upload>(m, "EngineUpload")
      .def_ro("offset", &Upload::offset)
      .def_ro("bytes", &Upload::bytes)
      .def_ro("kind", &Upload::kind)
      .def_ro("req", &Upload::req)
      .def_ro("keep", &Upload::keep)
      .def_ro("state", &Upload::state);

  nb::class_<EngineHandle>(m, "EngineHandle")
      .def_ro("kind", &EngineHandle::kind)
      .def_ro("req", &EngineHandle::req)
      .def_ro("upload", &EngineHandle::upload)
      .def_ro("unknown", &EngineHandle::unknown)
      .def("events",
           [](const EngineHandle& h, size_t from) {
             nb::list out;
             for (size_t i = from; i < h.events.size(); ++i)
               out.append(engine_event_tuple(h.events[i]));
             return out;
           })
      .def("count", [](const EngineHandle& h) { return h.events.size(); })
      .def("end", [](const EngineHandle& h) -> nb::object {
        return h.end ? nb::object(engine_event_tuple(*h.end)) : nb::none();
      });

  run.def(
         "upload",
         [](Run& r, const nb::bytes& b, const std::string& kind, std::shared_ptr<Graph> graph) {
           return r.upload(from_bytes(b), kind, std::move(graph));
         },
         nb::arg("bytes"), nb::arg("kind"), nb::arg("graph").none())
      .def("release",
           [](Run& r, std::shared_ptr<Upload> u, double timeout) { blocking([&] { r.release(u, timeout); }); })
      .def(
          "start",
          [](Run& r, std::shared_ptr<Upload> u, const std::vector<uint32_t>& bindings, std::optional<bool> kept,
             double timeout) { return blocking([&] { return r.start(u, bindings, kept, timeout); }); },
          nb::arg("upload"), nb::arg("bindings"), nb::arg("kept").none(), nb::arg("timeout"))
      .def("restart", [](Run& r, uint32_t req, const std::vector<uint32_t>& bindings,
                         double timeout) { return blocking([&] { return r.restart(req, bindings, timeout); }); })
      .def("cancel",
           [](Run& r, std::shared_ptr<EngineHandle> h, double timeout) { blocking([&] { r.cancel(h, timeout); }); })
      .def("wait_engine",
           [](Run& r, std::shared_ptr<EngineHandle> h, double timeout) {
             return engine_event_tuple(blocking([&] { return r.wait_engine(h, timeout); }));
           })
      .def("run_hostfed",
           [](Run& r, const nb::bytes& b, const std::vector<uint32_t>& bindings, double timeout) {
             const std::vector<uint8_t> bytes = from_bytes(b);
             return hostfed_dict(blocking([&] { return r.run_hostfed(bytes, bindings, timeout); }));
           })
      .def("upload_region_bytes", &Run::upload_region_bytes)
      .def("thread_result",
           [](Run& r, double timeout) {
             const std::vector<X280ThreadResult> results = blocking([&] { return r.thread_result(timeout); });
             nb::list out;
             for (const X280ThreadResult& t : results)
               out.append(
                   nb::make_tuple(t.cluster, t.status, t.value, t.error, t.seconds, t.commands, t.log, t.output));
             return out;
           })
      .def("thread_region_bytes",
           [](const Run& r, uint32_t cluster, const std::string& name) { return r.thread_read(cluster, name).size(); })
      .def("thread_read",
           [](const Run& r, uint32_t cluster, const std::string& name, size_t first, size_t n) {
             const std::vector<uint8_t> b = r.thread_read(cluster, name);
             if (first > b.size() || n > b.size() - first)
               throw ValidationError("run.thread.read: bytes " + std::to_string(first) + " + " + std::to_string(n) +
                                     " lie outside the region's " + std::to_string(b.size()));
             return nb::bytes(reinterpret_cast<const char*>(b.data()) + first, n);
           })
      .def("uploads", &Run::uploads);
}

} // namespace tessel::python
