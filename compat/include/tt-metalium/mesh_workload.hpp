// TT-Metalium's MeshWorkload: programs mapped to ranges of mesh chips, one
// program per range, ranges not overlapping. A program's runtime args are
// the same on every chip of its range; give chips different args by giving
// them different programs (ranges). EnqueueMeshWorkload (distributed.hpp)
// checks the ranges against the mesh and runs the programs in the order
// they were added.
//
// Ownership: owns its programs (added by move). Thread-compatible.
#pragma once

#include <unordered_map>
#include <utility>
#include <vector>

#include "tt-metalium/host_api.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/program.hpp"

namespace tt::tt_metal::distributed {

class MeshWorkload {
public:
  MeshWorkload() = default;
  explicit MeshWorkload(Program&& program,
                        const MeshCoordinateRange& device_range = MeshCoordinateRange(MeshCoordinate(0, 0),
                                                                                      MeshCoordinate(0, 0))) {
    add_program(device_range, std::move(program));
  }
  MeshWorkload(MeshWorkload&&) noexcept = default;
  MeshWorkload& operator=(MeshWorkload&&) noexcept = default;

  // Throws tessel::ValidationError, adding nothing, if `device_range`
  // overlaps a range that already has a program.
  void add_program(const MeshCoordinateRange& device_range, Program&& program);
  std::unordered_map<MeshCoordinateRange, Program>& get_programs() { return programs_; }
  const std::unordered_map<MeshCoordinateRange, Program>& get_programs() const { return programs_; }
  // The ranges in the order their programs were added.
  const std::vector<MeshCoordinateRange>& ranges_in_order() const { return order_; }

private:
  std::unordered_map<MeshCoordinateRange, Program> programs_;
  std::vector<MeshCoordinateRange> order_;
};

} // namespace tt::tt_metal::distributed
