// MeshDevice: opening the chips of a mesh, finding them, and mesh traces.
#include "tt-metalium/mesh_device.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "fabric_registry.hpp"
#include "mesh_checks.hpp"
#include "sim/arch.hpp"
#include "sim/memory.hpp"
#include "tessel/error.hpp"
#include "tessel/mesh.hpp"
#include "tessel/ranks.hpp"
#include "tt-metalium/mesh_command_queue.hpp"

namespace tt::tt_metal::distributed {

namespace {

// How many chips of `config` fit in one process, and a phrase naming them
// for messages ("8 simulated blackhole devices of 12x10 worker cores").
struct ChipCapacity {
  uint32_t max_chips;
  std::string description;
};

ChipCapacity chip_capacity(const tessel::DeviceConfig& config) {
  tessel::sim::ArchSpec arch = tessel::sim::arch_preset(config.arch);
  if (config.grid_x) arch = tessel::sim::with_grid(arch, config.grid_x, config.grid_y);
  const uint32_t max_chips = tessel::sim::DeviceMemory::max_devices(arch.core_count());
  const std::string description = std::to_string(max_chips) + " simulated " + arch.name + " devices of " +
                                  std::to_string(arch.grid_x) + "x" + std::to_string(arch.grid_y) + " worker cores";
  return {max_chips, description};
}

// Metalium meshes have one or two command queues. tessel's commands complete
// before their calls return, so two queues over the same chips keep every
// order a program can ask for (an event recorded on one is already complete
// when the other waits for it).
void check_command_queues(size_t num_command_queues, const char* call) {
  if (num_command_queues != 1 && num_command_queues != 2) {
    const std::string message =
        std::string(call) + ": " + std::to_string(num_command_queues) + " command queues requested; expected 1 or 2";
    throw tessel::ValidationError(message);
  }
}

void check_chip_id(int device_id, const ChipCapacity& capacity, const char* call) {
  if (device_id < 0 || uint32_t(device_id) >= capacity.max_chips) {
    const std::string message = std::string(call) + ": device " + std::to_string(device_id) +
                                " does not exist; at most " + capacity.description +
                                " fit in one process, so device ids go from 0 to " +
                                std::to_string(capacity.max_chips - 1);
    throw tessel::ValidationError(message);
  }
}

// Opens one chip per id, or none: chips opened before a failure close as
// the vector unwinds.
std::vector<std::unique_ptr<IDevice>> open_chips(const std::vector<int>& ids, const tessel::DeviceConfig& config) {
  std::vector<std::unique_ptr<IDevice>> chips;
  chips.reserve(ids.size());
  for (int id : ids)
    chips.push_back(std::make_unique<IDevice>(id, tessel::Device::open(config)));
  return chips;
}

} // namespace

namespace {
// The first chip this process holds (every chip, outside mpirun).
const IDevice& first_local(const std::vector<std::unique_ptr<IDevice>>& devices) {
  for (const auto& d : devices)
    if (d) return *d;
  throw tessel::ValidationError("MeshDevice: this process holds no chip of the mesh");
}
} // namespace

MeshDevice::MeshDevice(MeshShape shape, std::vector<std::unique_ptr<IDevice>> devices, size_t num_command_queues,
                       std::shared_ptr<tessel::Mesh> mesh)
    : IDevice(first_local(devices).id(), first_local(devices).native_ptr()), shape_(shape),
      devices_(std::move(devices)), mesh_(std::move(mesh)) {
  for (size_t id = 0; id < num_command_queues; ++id)
    queues_.push_back(std::make_unique<MeshCommandQueue>(*this, uint8_t(id)));
}

size_t MeshDevice::first_local_index() const {
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i]) return i;
  return 0;
}

tt::tt_fabric::FabricNodeId MeshDevice::get_fabric_node_id(const MeshCoordinate& coord) const {
  return tt::tt_fabric::FabricNodeId(tt::tt_fabric::MeshId{0},
                                     uint32_t(checks::chip_index(*this, coord, "MeshDevice::get_fabric_node_id")));
}

MeshDevice::~MeshDevice() = default;

std::shared_ptr<MeshDevice> MeshDevice::create_unit_mesh(int device_id, size_t, size_t, size_t num_command_queues,
                                                         const DispatchCoreConfig&, const std::vector<uint32_t>&,
                                                         size_t) {
  const char* call = "MeshDevice::create_unit_mesh";
  check_command_queues(num_command_queues, call);
  const tessel::DeviceConfig config = config_from_environment();
  check_chip_id(device_id, chip_capacity(config), call);
  return std::shared_ptr<MeshDevice>(
      new MeshDevice(MeshShape(1, 1), open_chips({device_id}, config), num_command_queues));
}

std::shared_ptr<MeshDevice> MeshDevice::wrap_unit_mesh(std::shared_ptr<tessel::Device> device, int device_id) {
  if (!device || !device->is_open())
    throw tessel::ValidationError("MeshDevice::wrap_unit_mesh: the device is closed (or null)");
  std::vector<std::unique_ptr<IDevice>> chips;
  chips.push_back(std::make_unique<IDevice>(device_id, std::move(device)));
  std::shared_ptr<MeshDevice> mesh(new MeshDevice(MeshShape(1, 1), std::move(chips)));
  mesh->borrowed_ = true;
  return mesh;
}

std::map<int, std::shared_ptr<MeshDevice>> MeshDevice::create_unit_meshes(const std::vector<int>& device_ids, size_t,
                                                                          size_t, size_t num_command_queues,
                                                                          const DispatchCoreConfig&,
                                                                          const std::vector<uint32_t>&, size_t) {
  const char* call = "MeshDevice::create_unit_meshes";
  check_command_queues(num_command_queues, call);
  if (device_ids.empty()) checks::fail(call, "no device ids given");
  const tessel::DeviceConfig config = config_from_environment();
  const ChipCapacity capacity = chip_capacity(config);
  std::set<int> seen;
  for (int id : device_ids) {
    check_chip_id(id, capacity, call);
    if (!seen.insert(id).second) {
      const std::string message =
          std::string(call) + ": device " + std::to_string(id) + " is listed twice; give each device id once";
      throw tessel::ValidationError(message);
    }
  }
  std::map<int, std::shared_ptr<MeshDevice>> meshes;
  for (int id : device_ids) // a failure destroys the meshes already opened with `meshes`
    meshes.emplace(
        id, std::shared_ptr<MeshDevice>(new MeshDevice(MeshShape(1, 1), open_chips({id}, config), num_command_queues)));
  return meshes;
}

std::shared_ptr<MeshDevice> MeshDevice::create(const MeshDeviceConfig& config, size_t, size_t,
                                               size_t num_command_queues, const DispatchCoreConfig&,
                                               const std::vector<uint32_t>&, size_t) {
  const char* call = "MeshDevice::create";
  const MeshShape& shape = config.shape;
  if (shape[0] == 0 || shape[1] == 0) {
    const std::string message =
        std::string(call) + ": " + shape.str() + " has no devices; both dimensions must be at least 1";
    throw tessel::ValidationError(message);
  }
  check_command_queues(num_command_queues, call);
  const tessel::DeviceConfig device_config = config_from_environment();
  const ChipCapacity capacity = chip_capacity(device_config);
  // Under mpirun the mesh splits over the ranks (tessel::Mesh::open checks each rank's share).
  const bool split = tessel::Ranks::world().distributed();
  if (!split && shape.mesh_size() > capacity.max_chips) {
    const std::string message =
        std::string(call) + ": " + shape.str() + " needs " + std::to_string(shape.mesh_size()) +
        " devices, but at most " + capacity.description +
        " fit in one process (every core's L1 takes 4 MiB of the address space below 4 GiB); use a mesh of at most " +
        std::to_string(capacity.max_chips) + " devices, a smaller TESSEL_GRID, or split it over MPI ranks "
        "(mpirun -np N; docs/multichip.md)";
    throw tessel::ValidationError(message);
  }
  if (shape.mesh_size() == 1)
    return std::shared_ptr<MeshDevice>(new MeshDevice(shape, open_chips({0}, device_config), num_command_queues));
  // Several chips: a tessel mesh with the fabric SetFabricConfig chose.
  std::shared_ptr<tessel::Mesh> mesh = compat_fabric::open_mesh(shape[0], shape[1], device_config);
  std::vector<std::unique_ptr<IDevice>> chips(shape.mesh_size());
  for (uint32_t i = mesh->first_local_chip(); i < mesh->first_local_chip() + mesh->local_chip_count(); ++i)
    chips[i] = std::make_unique<IDevice>(int(i), mesh->device_ptr(i));
  return std::shared_ptr<MeshDevice>(new MeshDevice(shape, std::move(chips), num_command_queues, std::move(mesh)));
}

bool MeshDevice::is_local(const MeshCoordinate& coord) const {
  return devices_[checks::chip_index(*this, coord, "MeshDevice::is_local")] != nullptr;
}

std::vector<IDevice*> MeshDevice::get_devices() const {
  std::vector<IDevice*> chips;
  chips.reserve(devices_.size());
  for (const auto& chip : devices_)
    if (chip) chips.push_back(chip.get());
  return chips;
}

IDevice* MeshDevice::local_chip(size_t linear_index, const char* call) const {
  if (!devices_[linear_index]) {
    const std::string message = std::string(call) + ": the device at linear index " + std::to_string(linear_index) +
                                " is held by rank " + std::to_string(mesh_->rank_of(uint32_t(linear_index))) +
                                ", not this process (rank " + std::to_string(tessel::Ranks::world().rank()) +
                                "): is_local(coord) tells which are this process's";
    throw tessel::ValidationError(message);
  }
  return devices_[linear_index].get();
}

IDevice* MeshDevice::get_device(const MeshCoordinate& coord) const {
  const char* call = "MeshDevice::get_device";
  return local_chip(checks::chip_index(*this, coord, call), call);
}

IDevice* MeshDevice::get_device(size_t row_idx, size_t col_idx) const {
  if (row_idx >= num_rows() || col_idx >= num_cols()) {
    const std::string message = "MeshDevice::get_device: row " + std::to_string(row_idx) + ", column " +
                                std::to_string(col_idx) + " is outside the " + std::to_string(num_rows()) + "x" +
                                std::to_string(num_cols()) + " mesh";
    throw tessel::ValidationError(message);
  }
  return local_chip(row_idx * num_cols() + col_idx, "MeshDevice::get_device");
}

IDevice* MeshDevice::get_device(ChipId physical_device_id) const {
  for (const auto& chip : devices_)
    if (chip && chip->id() == physical_device_id) return chip.get();
  const std::string message = "MeshDevice::get_device: no device of this mesh has id " +
                              std::to_string(physical_device_id) + "; get_device_ids() lists them";
  throw tessel::ValidationError(message);
}

DeviceIds MeshDevice::get_device_ids() const {
  DeviceIds ids;
  ids.reserve(devices_.size());
  for (const auto& chip : devices_)
    if (chip) ids.push_back(chip->id());
  return ids;
}

std::string MeshDevice::to_string() const {
  return "MeshDevice(" + std::to_string(num_rows()) + "x" + std::to_string(num_cols()) + " mesh of " +
         native().arch_name() + " devices)";
}

MeshCommandQueue& MeshDevice::mesh_command_queue(std::optional<uint8_t> cq_id) const {
  checks::command_queue_id(cq_id, num_command_queues(), "MeshDevice::mesh_command_queue");
  return *queues_[cq_id.value_or(0)];
}

bool MeshDevice::close() {
  if (borrowed_) return true; // its owner closes the chip
  for (const auto& chip : devices_)
    if (chip) chip->close();
  return true;
}

// ---- Traces ----------------------------------------------------------------

const std::vector<uint32_t>& MeshDevice::chip_trace_ids(const MeshTraceId& trace_id, const char* call) const {
  const auto it = traces_.find(*trace_id);
  if (it == traces_.end()) {
    const std::string message = std::string(call) + ": trace " + std::to_string(*trace_id) +
                                " does not exist on this mesh (never captured, or released)";
    throw tessel::ValidationError(message);
  }
  return it->second;
}

MeshTraceId MeshDevice::begin_mesh_trace(uint8_t cq_id) {
  const char* call = "MeshDevice::begin_mesh_trace";
  checks::command_queue_id(cq_id, num_command_queues(), call);
  if (capturing_trace_id_) {
    const std::string trace = std::to_string(*capturing_trace_id_);
    const std::string message = std::string(call) + ": trace " + trace +
                                " is being captured on this mesh; end it with end_mesh_trace(0, " + trace +
                                ") before beginning another";
    throw tessel::ValidationError(message);
  }
  std::vector<uint32_t> chip_ids;
  chip_ids.reserve(devices_.size());
  try {
    for (const auto& chip : devices_)
      chip_ids.push_back(chip ? chip->native().command_queue().begin_trace_capture() : 0);
  } catch (...) {
    // Undo the captures already begun, so no chip is left capturing.
    for (size_t i = 0; i < chip_ids.size(); ++i) {
      if (!devices_[i]) continue;
      tessel::CommandQueue& queue = devices_[i]->native().command_queue();
      queue.end_trace_capture(chip_ids[i]);
      queue.release_trace(chip_ids[i]);
    }
    throw;
  }
  const uint32_t id = ++last_trace_id_;
  traces_.emplace(id, std::move(chip_ids));
  capturing_trace_id_ = id;
  return MeshTraceId{id};
}

void MeshDevice::end_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id) {
  const char* call = "MeshDevice::end_mesh_trace";
  checks::command_queue_id(cq_id, num_command_queues(), call);
  if (capturing_trace_id_ != *trace_id) {
    const std::string now =
        capturing_trace_id_ ? "trace " + std::to_string(*capturing_trace_id_) + " is" : "no trace is";
    const std::string message = std::string(call) + ": trace " + std::to_string(*trace_id) +
                                " is not being captured (" + now + "); end the trace begin_mesh_trace returned";
    throw tessel::ValidationError(message);
  }
  const std::vector<uint32_t>& chip_ids = traces_.at(*trace_id);
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i]) devices_[i]->native().command_queue().end_trace_capture(chip_ids[i]);
  capturing_trace_id_.reset();
}

void MeshDevice::replay_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id, bool blocking) {
  const char* call = "MeshDevice::replay_mesh_trace";
  checks::command_queue_id(cq_id, num_command_queues(), call);
  const std::vector<uint32_t>& chip_ids = chip_trace_ids(trace_id, call);
  if (capturing_trace_id_) {
    const std::string message = std::string(call) + ": trace " + std::to_string(*capturing_trace_id_) +
                                " is being captured on this mesh; end it before replaying a trace";
    throw tessel::ValidationError(message);
  }
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i]) devices_[i]->native().command_queue().replay_trace(chip_ids[i], blocking);
}

void MeshDevice::release_mesh_trace(const MeshTraceId& trace_id) {
  const char* call = "MeshDevice::release_mesh_trace";
  const std::vector<uint32_t>& chip_ids = chip_trace_ids(trace_id, call);
  if (capturing_trace_id_ == *trace_id) {
    const std::string trace = std::to_string(*trace_id);
    const std::string message = std::string(call) + ": trace " + trace +
                                " is still being captured; end it with end_mesh_trace(0, " + trace + ") first";
    throw tessel::ValidationError(message);
  }
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i]) devices_[i]->native().command_queue().release_trace(chip_ids[i]);
  traces_.erase(*trace_id);
}

} // namespace tt::tt_metal::distributed
