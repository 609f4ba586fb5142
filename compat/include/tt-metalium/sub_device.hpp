// TT-Metalium's SubDevice: a set of cores per programmable core type. The
// type exists so code naming it compiles; tessel devices are not split into
// sub-devices (no create_sub_device_manager), and calls taking sub-device
// ids accept only an empty list.
#pragma once

#include <array>
#include <cstdint>

#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/hal_types.hpp"
#include "tt-metalium/sub_device_types.hpp"

namespace tt::tt_metal {

class SubDevice {
public:
  SubDevice(const std::array<CoreRangeSet, NumHalProgrammableCoreTypes>& cores) : cores_(cores) {}
  const CoreRangeSet& cores(HalProgrammableCoreType core_type) const { return cores_[uint32_t(core_type)]; }
  bool has_core_type(HalProgrammableCoreType core_type) const { return !cores(core_type).empty(); }
  uint32_t num_cores(HalProgrammableCoreType core_type) const { return cores(core_type).num_cores(); }

private:
  std::array<CoreRangeSet, NumHalProgrammableCoreTypes> cores_;
};

} // namespace tt::tt_metal
