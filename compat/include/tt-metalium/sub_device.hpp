// TT-Metalium's SubDevice: a set of cores per programmable core type
// (Tensix, active Ethernet, idle Ethernet), given as an array of one to
// three CoreRangeSets. MeshDevice::create_sub_device_manager takes them; calls
// taking sub-device ids accept only an empty list (mesh_device.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "tessel/error.hpp"

#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/hal_types.hpp"
#include "tt-metalium/sub_device_types.hpp"

namespace tt::tt_metal {

class SubDevice {
public:
  SubDevice(const std::array<CoreRangeSet, NumHalProgrammableCoreTypes>& cores) : cores_(cores) {}
  // The first cores.size() core types; SubDevice(std::array{CoreRangeSet(...)}) is Tensix cores only.
  SubDevice(std::span<const CoreRangeSet> cores) {
    if (cores.size() > NumHalProgrammableCoreTypes)
      throw tessel::ValidationError(
          "SubDevice: " + std::to_string(cores.size()) + " core range sets; expected at most " +
          std::to_string(NumHalProgrammableCoreTypes) + " (Tensix, active Ethernet, idle Ethernet)");
    for (size_t i = 0; i < cores.size(); ++i)
      cores_[i] = cores[i];
  }
  const CoreRangeSet& cores(HalProgrammableCoreType core_type) const { return cores_[uint32_t(core_type)]; }
  bool has_core_type(HalProgrammableCoreType core_type) const { return !cores(core_type).empty(); }
  uint32_t num_cores(HalProgrammableCoreType core_type) const { return cores(core_type).num_cores(); }

private:
  std::array<CoreRangeSet, NumHalProgrammableCoreTypes> cores_;
};

} // namespace tt::tt_metal
