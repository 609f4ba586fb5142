// Device.mesh_capsule(): the device as a compat MeshDevice (a 1x1 mesh that
// borrows it), in a PyCapsule named "tessel.mesh_device" holding a
// heap-allocated std::shared_ptr<tt::tt_metal::distributed::MeshDevice>, so
// that another native module built against compat/ drives the same card:
//
//   auto* mesh = static_cast<std::shared_ptr<MeshDevice>*>(PyCapsule_GetPointer(capsule, "tessel.mesh_device"));
//
// The capsule owns its shared_ptr (deleted with the capsule); a module that
// keeps the mesh copies the shared_ptr. Closing the mesh leaves the device open.
#include <nanobind/stl/shared_ptr.h>

#include <tt-metalium/mesh_device.hpp>

#include "bindings.hpp"
#include "tessel/device.hpp"

namespace tessel::python {

namespace {
using tt::tt_metal::distributed::MeshDevice;
constexpr const char* kCapsuleName = "tessel.mesh_device";
} // namespace

void bind_mesh_capsule(nb::module_& m) {
  m.def("mesh_capsule", [](std::shared_ptr<Device> device) {
    auto* held = new std::shared_ptr<MeshDevice>(MeshDevice::wrap_unit_mesh(std::move(device)));
    PyObject* capsule = PyCapsule_New(held, kCapsuleName, [](PyObject* c) {
      delete static_cast<std::shared_ptr<MeshDevice>*>(PyCapsule_GetPointer(c, kCapsuleName));
    });
    if (!capsule) {
      delete held;
      throw nb::python_error();
    }
    return nb::steal(capsule);
  });
  // What a consumer of the capsule sees: the mesh's shape and whether its
  // chip is `device` (tests of the hand-over).
  m.def("mesh_capsule_probe", [](nb::handle capsule, std::shared_ptr<Device> device) {
    auto* held = static_cast<std::shared_ptr<MeshDevice>*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
    if (!held) throw nb::python_error();
    const MeshDevice& mesh = **held;
    return nb::make_tuple(mesh.num_rows(), mesh.num_cols(), &mesh.native_device(0) == device.get());
  });
}

} // namespace tessel::python
