// The compat layer's bridge from MeshDevice to the fabric (fabric.cpp):
// a mesh of more than one chip joins its chips into a tessel::Mesh with the
// fabric config SetFabricConfig set, and becomes the mesh FabricNodeIds name.
#pragma once

#include <memory>
#include <vector>

#include "tessel/device.hpp"
#include "tessel/mesh.hpp"

namespace tt::tt_metal::compat_fabric {

std::shared_ptr<tessel::Mesh> join_mesh(std::vector<std::shared_ptr<tessel::Device>> chips, uint32_t rows,
                                        uint32_t cols);

} // namespace tt::tt_metal::compat_fabric
