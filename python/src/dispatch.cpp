// tessel.dispatch's native half: Session and Run over the C++ dispatch core,
// and its errors as the classes of tessel.dispatch.errors with their facts.
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "dispatch_bindings.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"

namespace tessel::python {

namespace {

using namespace tessel::dispatch;
using U32s = nb::ndarray<const uint32_t, nb::c_contig, nb::device::cpu>;
using EventTuple = std::tuple<uint64_t, std::string, uint32_t, uint32_t, std::optional<uint32_t>>;
// (reader, writer, compute) runtime args of each core, in core order.
using CoreArgsList = std::vector<std::tuple<std::vector<uint32_t>, std::vector<uint32_t>, std::vector<uint32_t>>>;

EventTuple event_tuple(const dispatch::Event& e) {
  return {e.handle, event_kind_name(e.kind), e.auxiliary, e.ticks,
          e.has_result ? std::optional<uint32_t>(e.result) : std::nullopt};
}

nb::dict result_dict(const ResultBlock& r) {
  nb::dict d;
  d["ready"] = r.ready;
  d["state"] = r.state;
  d["error"] = r.error;
  d["error_name"] = r.error_name;
  d["message"] = r.message;
  d["commands"] = r.commands;
  d["events"] = r.events;
  d["rejected"] = r.rejected;
  d["error_slot"] = r.error_slot;
  d["error_sequence"] = r.error_sequence;
  d["cluster0_restored"] = r.cluster0_restored;
  d["abandoned"] = nb::cast(r.abandoned);
  return d;
}

nb::object optional_result(const std::optional<ResultBlock>& r) { return r ? nb::object(result_dict(*r)) : nb::none(); }

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const CardBusy& e) {
    nb::dict f;
    f["pid"] = e.pid;
    raise_dispatch_error("CardBusy", e.what(), f);
  } catch (const KernelSizeError& e) {
    nb::dict f;
    nb::list threads;
    for (const auto& t : e.sizes.threads)
      threads.append(nb::make_tuple(t.name, t.text_bytes));
    f["sizes"] = nb::make_tuple(threads, e.sizes.total_bytes, e.sizes.buffer_bytes);
    raise_dispatch_error("KernelSizeError", e.what(), f);
  } catch (const KernelInstructionError& e) {
    nb::list findings;
    for (const auto& x : e.findings)
      findings.append(nb::make_tuple(x.thread, x.instruction, x.function, x.file, x.line));
    nb::dict f;
    f["findings"] = findings;
    raise_dispatch_error("KernelInstructionError", e.what(), f);
  } catch (const dispatch::ProgramError& e) {
    raise_dispatch_error("ProgramError", e.what(), nb::dict());
  } catch (const StartError& e) {
    nb::dict f;
    f["result"] = optional_result(e.result);
    raise_dispatch_error("StartError", e.what(), f);
  } catch (const WaitTimeout& e) {
    nb::dict f;
    f["pending"] = nb::cast(e.pending);
    raise_dispatch_error("WaitTimeout", e.what(), f);
  } catch (const CommandRejected& e) {
    nb::dict f;
    f["handle"] = e.handle;
    f["reason"] = e.reason;
    f["reason_name"] = e.reason_name;
    raise_dispatch_error("CommandRejected", e.what(), f);
  } catch (const CommandTimeout& e) {
    nb::dict f;
    f["handle"] = e.handle;
    f["slot"] = e.slot;
    f["sequence"] = e.sequence;
    f["group"] = nb::make_tuple(e.group.first, e.group.second);
    nb::list cores;
    for (const StuckCore& c : e.cores) {
      nb::dict d;
      d["core"] = nb::make_tuple(c.x, c.y);
      d["reader"] = c.reader;
      d["writer"] = c.writer;
      d["compute"] = c.compute;
      cores.append(d);
    }
    f["cores"] = cores;
    raise_dispatch_error("CommandTimeout", e.what(), f);
  } catch (const KernelFailed& e) {
    nb::dict f;
    f["result"] = optional_result(e.result);
    raise_dispatch_error("KernelFailed", e.what(), f);
  } catch (const GridTimeout& e) {
    raise_dispatch_error("GridTimeout", e.what(), nb::dict());
  } catch (const DispatchError& e) {
    raise_dispatch_error("DispatchError", e.what(), nb::dict());
  }
}

std::vector<uint64_t> handle_list(const nb::ndarray<const uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>& a) {
  return std::vector<uint64_t>(a.data(), a.data() + a.shape(0));
}

using Handles = nb::ndarray<const uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

} // namespace

// Raise tessel.dispatch.errors.<name>(message, **facts).
void raise_dispatch_error(const char* name, const char* message, nb::dict facts) {
  static PyObject* errors = nb::module_::import_("tessel.dispatch.errors").release().ptr();
  nb::handle cls = nb::handle(errors).attr(name);
  nb::object error = cls(nb::str(message), **facts);
  PyErr_SetObject(cls.ptr(), error.ptr());
}

void bind_dispatch(nb::module_& m) {
  nb::register_exception_translator(translate);

  nb::class_<Run> run(m, "DispatchRun");
  run.def("submit",
          [](Run& r, uint32_t handler, uint32_t first, uint32_t count, const std::vector<uint32_t>& args,
             bool exclusive, bool result, bool queued) {
            return r.submit(handler, Group{first, count}, args, SubmitFlags{exclusive, result, queued});
          })
      .def("submit_many",
           [](Run& r, U32s handlers, U32s firsts, U32s counts, std::optional<U32s> args, uint32_t columns,
              bool exclusive, size_t n) {
             return r.submit_many(std::span(handlers.data(), handlers.size()), std::span(firsts.data(), firsts.size()),
                                  std::span(counts.data(), counts.size()),
                                  args ? std::span(args->data(), args->size()) : std::span<const uint32_t>(), columns,
                                  SubmitFlags{exclusive, false, false}, n);
           })
      .def("wait",
           [](Run& r, Handles handles, double timeout) {
             const std::vector<uint64_t> hs = handle_list(handles);
             const std::vector<dispatch::Event> events =
                 blocking_wait(timeout, [&](double left) { return r.wait(hs, left); });
             std::vector<EventTuple> out;
             out.reserve(events.size());
             for (const dispatch::Event& e : events)
               out.push_back(event_tuple(e));
             return out;
           })
      .def("wait_any",
           [](Run& r, Handles handles, double timeout) {
             const std::vector<uint64_t> hs = handle_list(handles);
             return event_tuple(blocking_wait(timeout, [&](double left) { return r.wait_any(hs, left); }));
           })
      .def("drain",
           [](Run& r, double timeout) { return blocking_wait(timeout, [&](double left) { return r.drain(left); }); })
      .def("event",
           [](const Run& r, uint64_t h) -> std::optional<EventTuple> {
             if (auto e = r.event(h)) return event_tuple(*e);
             return std::nullopt;
           })
      .def("sequence", &Run::sequence)
      .def("group",
           [](const Run& r, uint64_t h) -> nb::object {
             auto g = r.group(h);
             if (!g) return nb::none();
             return nb::make_tuple(g->first_known ? nb::cast(g->first) : nb::none(), g->count);
           })
      .def("forget", [](Run& r, Handles handles) { r.forget(handle_list(handles)); })
      .def("stop", [](Run& r, double timeout) { return result_dict(blocking([&] { return r.stop(timeout); })); })
      .def("abort", [](Run& r) { return result_dict(blocking([&] { return r.abort(); })); })
      .def("stopped", &Run::stopped)
      .def("result", [](const Run& r) { return result_dict(r.result()); })
      .def("state_words", &Run::state_words)
      .def("broadcast_words", &Run::broadcast_words)
      .def("port_words", &Run::port_words)
      .def("trace",
           [](const Run& r, uint64_t h) {
             std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> out;
             for (const TraceEntry& t : r.trace(h))
               out.emplace_back(t.core, t.taken, t.written, t.sent, t.passes);
             return out;
           })
      .def("traced", &Run::traced)
      .def("sizes",
           [](const Run& r) {
             std::vector<std::pair<std::string, uint32_t>> threads;
             for (const auto& t : r.sizes().threads)
               threads.emplace_back(t.name, t.text_bytes);
             return std::make_tuple(threads, r.sizes().total_bytes, r.sizes().buffer_bytes);
           })
      .def("submitted", &Run::submitted)
      .def("submit_s", &Run::submit_s)
      .def("wait_s", &Run::wait_s)
      .def("native_s", &Run::native_s);
  bind_engines(m, run);

  nb::class_<Session>(m, "DispatchSession")
      .def_static(
          "open",
          [](int card, std::shared_ptr<Device> device, uint32_t pll_mhz, double grid_timeout, uint32_t kernel_bytes,
             std::optional<std::string> policy, std::function<void(const std::string&)> log) {
            SessionConfig c;
            c.card = card;
            c.device = std::move(device);
            c.pll_mhz = pll_mhz;
            c.grid_timeout_s = grid_timeout;
            c.kernel_bytes = kernel_bytes;
            c.policy = std::move(policy);
            if (log)
              c.log = [log](const std::string& line) {
                nb::gil_scoped_acquire gil;
                log(line);
              };
            return Session::open(c);
          },
          nb::arg("card"), nb::arg("device").none(), nb::arg("pll_mhz"), nb::arg("grid_timeout"),
          nb::arg("kernel_bytes"), nb::arg("policy").none(), nb::arg("log").none())
      .def("device", &Session::device_ptr)
      .def("grid",
           [](const Session& s) {
             const CoreCoord g = s.grid();
             return std::make_pair(g.x, g.y);
           })
      .def("l1", &Session::l1)
      .def("closed", &Session::closed)
      .def("drop_log", [](Session& s) { s.set_log(nullptr); })
      .def("close", [](Session& s, bool aborting) { blocking([&] { s.close(aborting); }); })
      .def("load",
           [](Session& s, const std::string& name, const std::string& reader, const std::string& compute,
              const std::string& writer,
              const std::vector<std::tuple<uint32_t, std::string, uint32_t, uint32_t>>& buffers,
              const CoreArgsList& core_args, const std::vector<uint32_t>& reader_cta,
              const std::vector<uint32_t>& writer_cta, const std::vector<uint32_t>& compute_cta, uint32_t fidelity,
              bool fp32_dest_acc_en, bool dst_full_sync_en, bool math_approx_mode, bool bfp8_pack_precise,
              bool enable_trisc2_rvv, const std::vector<uint32_t>& unpack_to_dest,
              const std::map<std::string, std::string>& defines, uint32_t depth,
              const std::map<std::string, uint32_t>& handlers,
              const std::tuple<std::string, std::string, std::string>& opt, uint32_t trace, double deadline,
              double wait, double idle, double kernel_idle, double start, uint32_t host_depth, uint32_t event_depth,
              uint32_t batch, double settle,
              const std::vector<std::tuple<uint32_t, std::vector<std::string>, std::vector<std::string>,
                                           std::vector<uint32_t>, double, std::string>>& threads,
              const std::vector<std::pair<std::string, nb::bytes>>& regions,
              const std::string& thread) -> std::shared_ptr<Run> {
             ProgramSpec p;
             p.name = name;
             p.reader_path = reader;
             p.compute_path = compute;
             p.writer_path = writer;
             for (const auto& [index, format, page_bytes, pages] : buffers)
               p.buffers.push_back(BufferSpec{index, format, page_bytes, pages});
             const uint32_t grid_x = s.grid().x;
             if (!core_args.empty())
               p.args = [core_args, grid_x](CoreCoord c) {
                 const auto& [r, w, k] = core_args.at(c.y * grid_x + c.x);
                 return CoreArgs{r, w, k};
               };
             p.reader_compile_args = reader_cta;
             p.writer_compile_args = writer_cta;
             p.compute_compile_args = compute_cta;
             p.compute.math_fidelity = MathFidelity(fidelity);
             p.compute.fp32_dest_acc_en = fp32_dest_acc_en;
             p.compute.dst_full_sync_en = dst_full_sync_en;
             p.compute.math_approx_mode = math_approx_mode;
             p.compute.bfp8_pack_precise = bfp8_pack_precise;
             p.compute.enable_trisc2_rvv = enable_trisc2_rvv;
             for (uint32_t mode : unpack_to_dest)
               p.compute.unpack_to_dest_mode.push_back(UnpackToDestMode(mode));
             for (const auto& [k, v] : defines)
               p.defines[k] = v;
             p.depth = depth;
             p.handlers = handlers;
             p.opt = OptLevels{std::get<0>(opt), std::get<1>(opt), std::get<2>(opt)};
             LoadOptions o;
             o.trace = trace;
             o.deadline_s = deadline;
             o.wait_s = wait;
             o.idle_s = idle;
             o.kernel_idle_s = kernel_idle;
             o.start_s = start;
             o.host_depth = host_depth;
             o.event_depth = event_depth;
             o.batch = batch;
             o.settle_us = settle;
             o.thread = thread;
             for (const auto& [cluster, sources, names, words, deadline, prefetch] : threads)
               p.threads.push_back(X280ThreadSpec{cluster, sources, names, words, deadline, prefetch});
             for (const auto& [name, value] : regions) {
               const uint8_t* b = static_cast<const uint8_t*>(value.data());
               p.regions.push_back(X280Region{name, std::vector<uint8_t>(b, b + value.size())});
             }
             blocking([&] { s.load(p, o); });
             return s.run_ptr();
           });
}

} // namespace tessel::python
