// tessel.iron's native half: a resolved design (tessel::flow::DesignSpec,
// built field by field by tessel/iron/program.py) loaded and called.
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "tessel/device.hpp"
#include "tessel/flow/loaded_design.hpp"

namespace tessel::python {

namespace {

using namespace tessel::flow;
using Bytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

CoreCoord coord(const std::pair<uint32_t, uint32_t>& c) { return CoreCoord{c.first, c.second}; }

} // namespace

void bind_flow(nb::module_& m) {
  nb::class_<PoolSpec>(m, "FlowPool")
      .def("__init__", [](PoolSpec* p, std::string name, std::pair<uint32_t, uint32_t> core, uint32_t depth,
                          uint32_t object_bytes, uint32_t segments) {
        new (p) PoolSpec{std::move(name), coord(core), depth, object_bytes, segments};
      });
  nb::class_<HandleSpec>(m, "FlowHandle")
      .def("__init__", [](HandleSpec* h, uint32_t pool, bool producer, std::string name) {
        new (h) HandleSpec{pool, producer, std::move(name)};
      });
  nb::class_<WorkerSpec>(m, "FlowWorker")
      .def(
          "__init__",
          [](WorkerSpec* w, std::string name, std::pair<uint32_t, uint32_t> core, std::string source,
             std::string source_name, std::vector<HandleSpec> handles, std::vector<uint32_t> rtp_bytes,
             std::vector<uint32_t> barrier_initial, std::vector<std::string> include_dirs,
             std::vector<nb::bytes> buffer_initial) {
            std::vector<std::string> initial;
            for (const nb::bytes& b : buffer_initial)
              initial.emplace_back(b.c_str(), b.size());
            new (w) WorkerSpec{
                std::move(name),         coord(core),        std::move(source),    std::move(source_name),
                std::move(include_dirs), std::move(handles), std::move(rtp_bytes), std::move(barrier_initial),
                std::move(initial)};
          },
          nb::arg("name"), nb::arg("core"), nb::arg("source"), nb::arg("source_name"), nb::arg("handles"),
          nb::arg("rtp_bytes"), nb::arg("barrier_initial"), nb::arg("include_dirs"),
          nb::arg("buffer_initial") = std::vector<nb::bytes>{});
  nb::class_<ChannelEnd>(m, "FlowEnd")
      .def("__init__", [](ChannelEnd* e, int32_t pool, std::vector<uint32_t> segments, uint32_t offset_bytes) {
        new (e) ChannelEnd{pool, std::move(segments), offset_bytes};
      });
  nb::class_<ChannelSpec>(m, "FlowChannel")
      .def(
          "__init__",
          [](ChannelSpec* c, std::string name, ChannelEnd source, std::vector<ChannelEnd> dests, uint32_t move_bytes,
             int32_t shim_column, uint32_t shim_channel, std::vector<std::pair<uint32_t, uint32_t>> stream_dims,
             uint32_t stream_element_bytes, uint32_t dest_bytes, bool stream_scatter) {
            new (c)
                ChannelSpec{std::move(name), std::move(source),      std::move(dests),     move_bytes,     shim_column,
                            shim_channel,    std::move(stream_dims), stream_element_bytes, stream_scatter, dest_bytes};
          },
          nb::arg("name"), nb::arg("source"), nb::arg("dests"), nb::arg("move_bytes"), nb::arg("shim_column"),
          nb::arg("shim_channel"), nb::arg("stream_dims") = std::vector<std::pair<uint32_t, uint32_t>>{},
          nb::arg("stream_element_bytes") = 0, nb::arg("dest_bytes") = 0, nb::arg("stream_scatter") = false);
  nb::class_<ArgSpec>(m, "FlowArg")
      .def("__init__", [](ArgSpec* a, std::string name, uint64_t bytes, uint32_t element_bytes) {
        new (a) ArgSpec{std::move(name), bytes, element_bytes};
      });
  nb::class_<Expr>(m, "FlowExpr")
      .def("__init__", [](Expr* e, int64_t constant, std::vector<std::pair<uint32_t, int64_t>> terms) {
        new (e) Expr{constant, std::move(terms)};
      });
  nb::class_<Op>(m, "FlowOp")
      .def("__init__", [](Op* op, int kind, uint32_t line, uint32_t a, uint32_t b, uint32_t c, bool wait, Expr value,
                          std::vector<uint32_t> sizes, std::vector<uint32_t> strides) {
        new (op) Op{};
        op->kind = OpKind(kind), op->line = line, op->a = a, op->b = b, op->c = c, op->wait = wait;
        op->value = std::move(value);
        for (size_t i = 0; i < 4 && i < sizes.size(); ++i)
          op->sizes[i] = sizes[i], op->strides[i] = strides[i];
      });
  nb::class_<LoadedDesign>(m, "FlowDesign")
      .def_static("load",
                  [](std::shared_ptr<Device> device, std::string name, std::vector<PoolSpec> pools,
                     std::vector<WorkerSpec> workers, std::vector<ChannelSpec> channels, std::vector<ArgSpec> args,
                     std::vector<Op> ops, uint32_t parameters, uint32_t registers, uint32_t slots,
                     std::vector<std::string> parameter_names, std::string file) {
                    DesignSpec s;
                    s.name = std::move(name);
                    s.pools = std::move(pools);
                    s.workers = std::move(workers);
                    s.channels = std::move(channels);
                    s.args = std::move(args);
                    s.sequence.ops = std::move(ops);
                    s.sequence.parameters = parameters;
                    s.sequence.registers = registers;
                    s.sequence.slots = slots;
                    s.sequence.parameter_names = std::move(parameter_names);
                    s.sequence.file = std::move(file);
                    return blocking([&] { return LoadedDesign::load(device, std::move(s)); });
                  })
      .def("call",
           [](LoadedDesign& d, std::vector<Bytes> buffers, std::vector<int64_t> parameters, double timeout_s) {
             std::vector<HostSpan> spans;
             for (Bytes& b : buffers)
               spans.push_back({b.data(), b.size()});
             const CallStats st = blocking([&] { return d.call(spans, parameters, timeout_s); });
             return std::make_tuple(st.objects_moved, st.tasks, st.leftovers);
           })
      .def("close", &LoadedDesign::close)
      .def_prop_ro("calls", &LoadedDesign::calls)
      .def_prop_ro("launches", &LoadedDesign::launches);
}

} // namespace tessel::python
