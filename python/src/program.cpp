// Program: kernels, circular buffers, semaphores and runtime arguments.
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "tessel/buffer.hpp"
#include "tessel/program.hpp"

namespace tessel::python {

namespace {

using Words = nb::ndarray<const uint32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using WordView = nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>>;

std::span<const uint32_t> span_of(const Words& w) { return {w.data(), w.shape(0)}; }

// A writable numpy view of words the program owns (valid while the program
// keeps that length: the Python layer documents it).
WordView view_of(std::span<uint32_t> s, nb::handle owner) { return WordView(s.data(), {s.size()}, owner); }

// KernelBindings from Python (tessel.KernelBindings._native()).
using BindingsTuple = std::tuple<std::vector<std::string>, std::vector<std::string>, std::map<std::string, uint32_t>,
                                 std::map<std::string, uint32_t>, std::vector<std::pair<std::string, uint32_t>>,
                                 std::vector<std::tuple<std::string, uint32_t, uint8_t>>>;

std::optional<KernelBindings> bindings_of(const std::optional<BindingsTuple>& t) {
  if (!t) return std::nullopt;
  KernelBindings b;
  b.runtime_args = std::get<0>(*t);
  b.common_runtime_args = std::get<1>(*t);
  b.dataflow_buffers = std::get<2>(*t);
  b.semaphores = std::get<3>(*t);
  for (const auto& [name, offset] : std::get<4>(*t))
    b.tensors.push_back({name, offset});
  for (const auto& [name, size, format] : std::get<5>(*t))
    b.scratchpads.push_back({name, size, DataFormat(format)});
  return b;
}

} // namespace

CoreRangeSet ranges_of(const std::vector<Rect>& rects) {
  std::vector<CoreRange> out;
  out.reserve(rects.size());
  for (const auto& [x0, y0, x1, y1] : rects)
    out.emplace_back(CoreCoord{x0, y0}, CoreCoord{x1, y1});
  return CoreRangeSet(std::move(out));
}

void bind_program(nb::module_& m) {
  nb::class_<CircularBufferConfig>(m, "CircularBufferConfig")
      .def("__init__",
           [](CircularBufferConfig* self, uint32_t total, const std::map<uint8_t, uint8_t>& formats) {
             std::map<uint8_t, DataFormat> f;
             for (const auto& [index, format] : formats)
               f[index] = DataFormat(format);
             new (self) CircularBufferConfig(total, std::move(f));
           })
      .def("set_page_size",
           [](CircularBufferConfig& c, uint8_t index, uint32_t bytes) { c.set_page_size(index, bytes); })
      .def("set_globally_allocated_address",
           [](CircularBufferConfig& c, const Buffer& b) { c.set_globally_allocated_address(b); })
      .def("total_size", &CircularBufferConfig::total_size);

  nb::class_<Program>(m, "Program")
      .def(nb::init<>())
      .def("add_data_movement_kernel",
           [](Program& p, const std::string& text, bool is_source, const std::string& name,
              const std::vector<Rect>& cores, int processor, int noc, const std::vector<uint32_t>& compile_args,
              const Defines& defines, const NamedCompileArgs& named, int opt_level,
              const std::optional<BindingsTuple>& bindings) {
             DataMovementConfig c{DataMovementProcessor(processor), NOC(noc), compile_args, defines, named, opt_level};
             c.bindings = bindings_of(bindings);
             return is_source ? p.add_kernel_from_source(text, name, ranges_of(cores), c)
                              : p.add_kernel(text, ranges_of(cores), c);
           })
      .def("add_compute_kernel",
           [](Program& p, const std::string& text, bool is_source, const std::string& name,
              const std::vector<Rect>& cores, int fidelity, bool fp32_dest_acc_en, bool dst_full_sync_en,
              bool math_approx_mode, bool bfp8_pack_precise, bool enable_trisc2_rvv,
              const std::vector<uint8_t>& unpack_modes, const std::vector<uint32_t>& compile_args,
              const Defines& defines, const NamedCompileArgs& named, int opt_level,
              const std::optional<BindingsTuple>& bindings) {
             ComputeConfig c;
             c.bindings = bindings_of(bindings);
             c.math_fidelity = MathFidelity(fidelity);
             c.fp32_dest_acc_en = fp32_dest_acc_en;
             c.dst_full_sync_en = dst_full_sync_en;
             c.math_approx_mode = math_approx_mode;
             c.bfp8_pack_precise = bfp8_pack_precise;
             c.enable_trisc2_rvv = enable_trisc2_rvv;
             for (uint8_t u : unpack_modes)
               c.unpack_to_dest_mode.push_back(UnpackToDestMode(u));
             c.compile_args = compile_args;
             c.defines = defines;
             c.named_compile_args = named;
             c.opt_level = opt_level;
             return is_source ? p.add_kernel_from_source(text, name, ranges_of(cores), c)
                              : p.add_kernel(text, ranges_of(cores), c);
           })
      .def("add_circular_buffer",
           [](Program& p, const std::vector<Rect>& cores, const CircularBufferConfig& c) {
             return p.add_circular_buffer(ranges_of(cores), c);
           })
      .def("add_semaphore",
           [](Program& p, const std::vector<Rect>& cores, uint32_t initial, int id) {
             return id < 0 ? p.add_semaphore(ranges_of(cores), initial)
                           : p.add_semaphore(ranges_of(cores), initial, uint32_t(id));
           })
      .def("set_runtime_args", [](Program& p, KernelHandle k, const std::vector<Rect>& cores,
                                  Words args) { p.set_runtime_args(k, ranges_of(cores), span_of(args)); })
      .def("set_common_runtime_args",
           [](Program& p, KernelHandle k, Words args) { p.set_common_runtime_args(k, span_of(args)); })
      .def("runtime_args",
           [](nb::handle self, KernelHandle k, uint32_t x, uint32_t y) {
             return view_of(nb::cast<Program&>(self).runtime_args(k, {x, y}), self);
           })
      .def("common_runtime_args",
           [](nb::handle self, KernelHandle k) {
             return view_of(nb::cast<Program&>(self).common_runtime_args(k), self);
           })
      .def("num_kernels", &Program::num_kernels);
}

} // namespace tessel::python
