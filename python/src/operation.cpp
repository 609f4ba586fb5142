// Operations with per-dispatch runtime resources (tessel/operation.hpp),
// emitted runners (tessel/runner.hpp) and host-side tensor accessor args
// (tessel/tensor_accessor_args.hpp), for tessel.ttl.
//
// The factory crosses the language boundary once per execution.
// Operation::run (called with the GIL released) calls the C++ factory, which
// takes the GIL and calls the Python callable given to run() with
// first_free_semaphore_id. That callable (python/tessel/ttl/operation.py)
// calls the user's factory, checks the result's types in Python terms and
// returns it lowered to plain values, which resources_of() turns into the C++
// records:
//
//   (semaphores, kernel_resources, lifetimes, fabric_connections)
//   semaphores          [(id, initial_value, [rect, ...]), ...]
//   kernel_resources    [(selector, [(x, y, [word, ...]), ...], [(name, value), ...]), ...]
//   lifetimes           [object, ...]
//   fabric_connections  [(claim, [(local, remote, [rect, ...], link), ...], abi_identity, [object, ...]), ...]
//   selector            an int (KernelKind) or a Kernel;  rect  (x0, y0, x1, y1)
//
// Validation (every semantic rule), planning, the program cache and its fast
// path are the C++ Operation's. A Python exception raised by the callable
// leaves run() before anything is built, and reaches the caller unchanged.
//
// Lifetimes: each Python object becomes a tessel::Lifetime that holds one
// reference and releases it under the GIL when the C++ side lets go (the
// Operation keeps the last successful run's until the next one replaces
// them). lifetimes() reads those objects back.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "tessel/buffer.hpp"
#include "tessel/device.hpp"
#include "tessel/operation.hpp"
#include "tessel/runner.hpp"
#include "tessel/tensor_accessor_args.hpp"

namespace tessel::python {

namespace {

using Link = std::tuple<uint32_t, uint32_t, uint32_t>; // local device, remote device, link index
using Buffers = std::vector<std::shared_ptr<Buffer>>;

std::vector<Rect> rects_of(const CoreRangeSet& set) {
  std::vector<Rect> out;
  for (const CoreRange& r : set.ranges())
    out.emplace_back(r.start_coord.x, r.start_coord.y, r.end_coord.x, r.end_coord.y);
  return out;
}

// ---- Python objects as lifetimes ----

struct PythonReference {
  void operator()(const void* object) const noexcept {
    if (!Py_IsInitialized()) return; // the interpreter is gone, and the reference with it
    nb::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(const_cast<void*>(object)));
  }
};

Lifetime hold(nb::handle object) {
  object.inc_ref();
  return Lifetime(static_cast<const void*>(object.ptr()), PythonReference{});
}

// The Python objects among `lifetimes`, in order (the tensors' buffers, which
// the Operation also keeps, are C++ owners and are left out).
nb::list python_objects(const std::vector<Lifetime>& lifetimes) {
  nb::list out;
  for (const Lifetime& l : lifetimes)
    if (std::get_deleter<PythonReference>(l))
      out.append(nb::borrow(static_cast<PyObject*>(const_cast<void*>(l.get()))));
  return out;
}

std::vector<Lifetime> lifetimes_of(nb::handle list) {
  std::vector<Lifetime> out;
  for (nb::handle object : list)
    out.push_back(hold(object));
  return out;
}

// ---- the lowered factory result (see the file comment) ----

KernelSelector selector_of(nb::handle h) {
  if (nb::isinstance<Kernel>(h)) return nb::cast<Kernel>(h);
  return KernelKind(nb::cast<int>(h));
}

ProgramRuntimeResources resources_of(nb::handle raw) {
  nb::tuple t = nb::cast<nb::tuple>(raw);
  std::vector<SemaphoreDescriptor> semaphores;
  for (nb::handle s : t[0]) {
    auto [id, initial, rects] = nb::cast<std::tuple<uint32_t, uint32_t, std::vector<Rect>>>(s);
    semaphores.push_back(SemaphoreDescriptor{id, ranges_of(rects), initial});
  }
  std::vector<KernelRuntimeResources> kernels;
  for (nb::handle k : t[1]) {
    nb::tuple e = nb::cast<nb::tuple>(k);
    std::vector<CoreRuntimeArgs> args;
    for (nb::handle a : e[1]) {
      auto [x, y, words] = nb::cast<std::tuple<uint32_t, uint32_t, std::vector<uint32_t>>>(a);
      args.emplace_back(CoreCoord{x, y}, std::move(words));
    }
    std::vector<KernelDefine> defines;
    for (nb::handle d : e[2]) {
      auto [name, value] = nb::cast<std::tuple<std::string, std::string>>(d);
      defines.emplace_back(std::move(name), std::move(value));
    }
    kernels.emplace_back(selector_of(e[0]), std::move(args), std::move(defines));
  }
  std::vector<FabricConnectionBinding> fabric;
  for (nb::handle b : t[3]) {
    nb::tuple e = nb::cast<nb::tuple>(b);
    std::vector<FabricConnectionRequirement> connections;
    for (nb::handle c : e[1]) {
      auto [local, remote, rects, link] = nb::cast<std::tuple<uint32_t, uint32_t, std::vector<Rect>, uint32_t>>(c);
      connections.emplace_back(local, remote, ranges_of(rects), link);
    }
    fabric.emplace_back(nb::cast<FabricManagerClaim>(e[0]), std::move(connections), nb::cast<std::string>(e[2]),
                        lifetimes_of(e[3]));
  }
  return ProgramRuntimeResources(std::move(semaphores), std::move(kernels), lifetimes_of(t[2]), std::move(fabric));
}

// The C++ factory over a Python callable(first_free_semaphore_id) -> lowered
// resources; None gives no factory. `f` must outlive the run (the caller's
// argument does).
RuntimeResourceFactory factory_of(nb::handle f) {
  if (f.is_none()) return {};
  return [f](const Buffers&, const CoreRangeSet&, uint32_t first_free) {
    nb::gil_scoped_acquire gil;
    return resources_of(f(first_free));
  };
}

std::vector<FabricLink> links_of(const std::vector<Link>& links) {
  std::vector<FabricLink> out;
  for (const auto& [local, remote, index] : links)
    out.push_back({local, remote, index});
  return out;
}

// A planned descriptor as plain values: (kernel source, core rects, compile
// args, common runtime args, defines, [(x, y, runtime args), ...]).
nb::list descriptors_of(const ProgramDescriptor& d) {
  nb::list out;
  for (const KernelDescriptor& k : d.kernels) {
    std::vector<std::tuple<uint32_t, uint32_t, std::vector<uint32_t>>> args;
    for (const auto& [core, words] : k.runtime_args)
      args.emplace_back(core.x, core.y, words);
    std::vector<std::tuple<std::string, std::string>> defines(k.defines.begin(), k.defines.end());
    out.append(nb::make_tuple(k.kernel_source, rects_of(k.core_ranges), k.compile_time_args, k.common_runtime_args,
                              defines, args));
  }
  return out;
}

// compute: (math fidelity, fp32_dest_acc_en, dst_full_sync_en, math_approx_mode, [unpack_to_dest_mode per
// CB]) or None for the defaults.
KernelDescriptor::Config config_of(int processor, nb::handle compute) {
  if (processor >= 0) return DataMovementConfigDescriptor{DataMovementProcessor(processor), NOC(processor)};
  ComputeConfigDescriptor c;
  if (!compute.is_none()) {
    const auto [fidelity, fp32, full_sync, approx, unpack] =
        nb::cast<std::tuple<int, bool, bool, bool, std::vector<int>>>(compute);
    c.math_fidelity = MathFidelity(fidelity);
    c.fp32_dest_acc_en = fp32;
    c.dst_full_sync_en = full_sync;
    c.math_approx_mode = approx;
    for (const int mode : unpack)
      c.unpack_to_dest_mode.push_back(UnpackToDestMode(mode));
  }
  return c;
}

} // namespace

void bind_operation(nb::module_& m) {
  // KernelKind crosses as its value: 0 = Compute, 1 = DataMovement.
  nb::class_<Kernel>(m, "Kernel")
      .def("__init__",
           [](Kernel* self, int kind, const std::string& name) { new (self) Kernel(KernelKind(kind), name); })
      .def("kind", [](const Kernel& k) { return int(k.kind()); })
      .def("name", &Kernel::name)
      .def("same", [](const Kernel& a, const Kernel& b) { return a == b; });

  nb::class_<FabricManagerClaim>(m, "FabricManagerClaim")
      .def("__init__", [](FabricManagerClaim* self, const std::string& name,
                          nb::handle selector) { new (self) FabricManagerClaim(name, selector_of(selector)); })
      .def("name", &FabricManagerClaim::name)
      .def("acquire", &FabricManagerClaim::acquire)
      .def("use", &FabricManagerClaim::use)
      .def("release", &FabricManagerClaim::release)
      .def("held", &FabricManagerClaim::held)
      .def("uses", &FabricManagerClaim::uses)
      .def("same", [](const FabricManagerClaim& a, const FabricManagerClaim& b) { return a == b; });

  nb::class_<Operation>(m, "Operation")
      .def(nb::init<std::string>())
      .def("name", &Operation::name)
      // processor: -1 for a compute kernel, else the data-movement RISC (0 or 1, with the NoC of that number).
      .def(
          "add_kernel",
          [](Operation& op, nb::handle selector, const std::string& source, bool source_is_path, int processor,
             nb::handle compute) {
            OperationKernel k;
            k.kernel = selector_of(selector);
            k.source = source;
            k.source_is_path = source_is_path;
            k.config = config_of(processor, compute);
            op.add_kernel(std::move(k));
          },
          nb::arg("selector"), nb::arg("source"), nb::arg("source_is_path"), nb::arg("processor"),
          nb::arg("compute").none() = nb::none())
      // A CB on every launch core: its total size and its (buffer index, data format, page size) entries.
      .def("add_circular_buffer",
           [](Operation& op, uint32_t total_size, const std::vector<std::tuple<uint32_t, int, uint32_t>>& formats) {
             std::vector<CBFormatDescriptor> f;
             for (const auto& [index, format, page] : formats)
               f.push_back(CBFormatDescriptor{uint8_t(index), DataFormat(format), page});
             op.add_circular_buffer(total_size, std::move(f));
           })
      .def("add_semaphore", &Operation::add_semaphore)
      .def("add_fabric_claim", &Operation::add_fabric_claim)
      .def("set_fabric_topology",
           [](Operation& op, uint32_t num_devices, const std::vector<Link>& links, const std::vector<Link>& generated) {
             op.set_fabric_topology(FabricTopology{num_devices, links_of(links), links_of(generated)});
           })
      .def("first_free_semaphore_id", &Operation::first_free_semaphore_id)
      .def(
          "run",
          [](Operation& op, Device& device, const Buffers& tensors, const std::vector<Rect>& launch,
             nb::handle factory) {
            const CoreRangeSet cores = ranges_of(launch);
            const RuntimeResourceFactory f = factory_of(factory);
            blocking([&] { op.run(device, tensors, cores, f); });
          },
          nb::arg("device"), nb::arg("tensors"), nb::arg("launch"), nb::arg("factory").none())
      // The descriptors run() would build for these lowered resources (after validation).
      .def("plan",
           [](const Operation& op, const Buffers& tensors, const std::vector<Rect>& launch, nb::handle raw) {
             const CoreRangeSet cores = ranges_of(launch);
             const ProgramRuntimeResources r = resources_of(raw);
             op.validate(r, cores);
             return descriptors_of(op.plan(tensors, cores, r));
           })
      .def("validate", [](const Operation& op, const std::vector<Rect>& launch,
                          nb::handle raw) { op.validate(resources_of(raw), ranges_of(launch)); })
      .def("lifetimes", [](const Operation& op) { return python_objects(op.lifetimes()); })
      .def("last_timings", [](const Operation& op) {
        const OperationTimings& t = op.last_timings();
        return std::make_tuple(t.factory, t.validate, t.plan, t.lookup, t.execute);
      });

  m.def("emit_runner", [](const Operation& op, const std::string& directory) { emit_runner(op, directory); });

  nb::class_<Runner>(m, "Runner")
      .def_static("load", &Runner::load)
      .def("kernel", &Runner::kernel)
      .def("claim", &Runner::claim)
      .def("directory", &Runner::directory)
      .def("operation_name", [](const Runner& r) { return r.operation().name(); })
      .def("lifetimes", [](const Runner& r) { return python_objects(r.operation().lifetimes()); })
      .def(
          "run",
          [](Runner& r, Device& device, const Buffers& tensors, const std::vector<Rect>& launch, nb::handle factory) {
            const CoreRangeSet cores = ranges_of(launch);
            const RuntimeResourceFactory f = factory_of(factory);
            blocking([&] { r.run(device, tensors, cores, f); });
          },
          nb::arg("device"), nb::arg("tensors"), nb::arg("launch"), nb::arg("factory").none());

  // (compile-time args, common runtime args) of a buffer's TensorAccessorArgs.
  m.def("tensor_accessor_args", [](const Buffer& b) {
    const TensorAccessorArgs a(b);
    return std::make_tuple(a.get_compile_time_args(), a.get_common_runtime_args());
  });
}

} // namespace tessel::python
