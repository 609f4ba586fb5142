// The compat layer's bridge from MeshDevice to the fabric (fabric.cpp):
// a mesh of more than one chip is a tessel::Mesh with the fabric config
// SetFabricConfig set, and becomes the mesh FabricNodeIds name.
#pragma once

#include <memory>
#include <vector>

#include "tessel/device.hpp"
#include "tessel/mesh.hpp"

namespace tt::tt_metal::compat_fabric {

// Opens a rows x cols mesh of `device` chips (split over MPI ranks under mpirun).
std::shared_ptr<tessel::Mesh> open_mesh(uint32_t rows, uint32_t cols, const tessel::DeviceConfig& device);

} // namespace tt::tt_metal::compat_fabric
