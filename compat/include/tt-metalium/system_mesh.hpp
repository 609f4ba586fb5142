// TT-Metalium's SystemMesh: the shape of the machine's mesh of chips. A
// simulated machine has the mesh $TESSEL_MESH names, rows x cols (e.g.
// TESSEL_MESH=2x4), 1x1 when unset; MeshDevice::create opens any shape that
// fits in memory whatever this says. A malformed TESSEL_MESH throws
// tessel::ValidationError naming it.
//
// Thread-safety: instance() is safe to call from any thread.
#pragma once

#include "tt-metalium/mesh_coord.hpp"

namespace tt::tt_metal::distributed {

class SystemMesh {
public:
  static SystemMesh& instance();
  // The whole system's mesh ($TESSEL_MESH, default 1x1).
  const MeshShape& shape() const { return shape_; }
  // This process's share of it under mpirun (row-major blocks of chips, as
  // a MeshDevice of shape() splits; docs/multichip.md); shape() otherwise.
  MeshShape local_shape() const;
  size_t num_devices() const { return size_t(shape_[0]) * shape_[1]; }

private:
  SystemMesh();
  MeshShape shape_;
};

} // namespace tt::tt_metal::distributed
