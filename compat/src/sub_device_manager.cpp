// MeshDevice's sub-device managers: recorded and checked, not enforced
// (mesh_device.hpp says why: each chip runs one program at a time).
#include <string>
#include <vector>

#include "tessel/error.hpp"
#include "tt-metalium/mesh_device.hpp"

namespace tt::tt_metal::distributed {

namespace {

[[noreturn]] void fail(const char* call, const std::string& problem) {
  throw tessel::ValidationError(std::string(call) + ": " + problem);
}

} // namespace

SubDeviceManagerId MeshDevice::create_sub_device_manager(std::initializer_list<SubDevice> sub_devices,
                                                         uint64_t local_l1_size) {
  return create_sub_device_manager(std::span<const SubDevice>(sub_devices.begin(), sub_devices.size()), local_l1_size);
}

SubDeviceManagerId MeshDevice::create_sub_device_manager(std::span<const SubDevice> sub_devices, uint64_t) {
  constexpr const char* call = "MeshDevice::create_sub_device_manager";
  if (sub_devices.empty()) fail(call, "no sub-devices; expected at least one");
  const CoreCoord grid = compute_with_storage_grid_size();
  const CoreRangeSet whole(CoreRange({0, 0}, {grid.x - 1, grid.y - 1}));
  for (size_t i = 0; i < sub_devices.size(); ++i) {
    const std::string which = "sub-device " + std::to_string(i);
    for (auto type : {HalProgrammableCoreType::ACTIVE_ETH, HalProgrammableCoreType::IDLE_ETH})
      if (sub_devices[i].has_core_type(type))
        fail(call, which + " has Ethernet cores; tessel devices have Tensix worker cores only");
    const CoreRangeSet& cores = sub_devices[i].cores(HalProgrammableCoreType::TENSIX);
    if (cores.empty()) fail(call, which + " has no Tensix cores; expected at least one");
    for (const CoreRange& range : cores.ranges())
      if (!whole.contains(range))
        fail(call, which + "'s cores " + fmt::format("{}", range) + " are not all inside the " +
                       std::to_string(grid.x) + "x" + std::to_string(grid.y) + " worker grid");
    for (size_t j = 0; j < i; ++j)
      if (sub_devices[j].cores(HalProgrammableCoreType::TENSIX).intersects(cores))
        fail(call, which + " and sub-device " + std::to_string(j) +
                       " share cores; expected each core in at most one sub-device");
  }
  const SubDeviceManagerId id = ++last_sub_device_manager_;
  sub_device_managers_.emplace(id, std::vector<SubDevice>(sub_devices.begin(), sub_devices.end()));
  return id;
}

void MeshDevice::load_sub_device_manager(SubDeviceManagerId sub_device_manager_id) {
  if (sub_device_manager_id != 0 && !sub_device_managers_.count(sub_device_manager_id))
    fail("MeshDevice::load_sub_device_manager", "sub-device manager " + std::to_string(sub_device_manager_id) +
                                                    " does not exist on this mesh (never created, or removed)");
  active_sub_device_manager_ = sub_device_manager_id;
}

void MeshDevice::clear_loaded_sub_device_manager() { active_sub_device_manager_ = 0; }

void MeshDevice::remove_sub_device_manager(SubDeviceManagerId sub_device_manager_id) {
  constexpr const char* call = "MeshDevice::remove_sub_device_manager";
  if (!sub_device_managers_.count(sub_device_manager_id))
    fail(call, "sub-device manager " + std::to_string(sub_device_manager_id) +
                   " does not exist on this mesh (never created, removed, or the default, 0)");
  if (sub_device_manager_id == active_sub_device_manager_)
    fail(call, "sub-device manager " + std::to_string(sub_device_manager_id) +
                   " is the active one; load another (or clear_loaded_sub_device_manager) first");
  sub_device_managers_.erase(sub_device_manager_id);
}

uint8_t MeshDevice::num_sub_devices() const {
  return active_sub_device_manager_ == 0 ? 1 : uint8_t(sub_device_managers_.at(active_sub_device_manager_).size());
}

std::vector<SubDeviceId> MeshDevice::get_sub_device_ids() const {
  std::vector<SubDeviceId> ids;
  for (uint8_t i = 0; i < num_sub_devices(); ++i)
    ids.push_back(SubDeviceId(i));
  return ids;
}

} // namespace tt::tt_metal::distributed
