// IDevice over tessel::Device; CreateDevice / CloseDevice.
#include "tt-metalium/device.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "realtime_profiler.hpp"
#include "sim/arch.hpp"
#include "sim/chip.hpp"
#include "tessel/error.hpp"
#include "tessel/ranks.hpp"
#include "tessel/timing.hpp"
#include "tt-metalium/system_mesh.hpp"

namespace tt::tt_metal {

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// "4x2" -> (4, 2); false unless both are positive decimal numbers.
bool parse_grid(const std::string& text, uint32_t& x, uint32_t& y) {
  const size_t sep = text.find('x');
  if (sep == std::string::npos || sep == 0 || sep + 1 == text.size() || text.size() > 12) return false;
  for (size_t i = 0; i < text.size(); ++i)
    if (i != sep && (text[i] < '0' || text[i] > '9')) return false;
  x = uint32_t(std::stoul(text.substr(0, sep)));
  y = uint32_t(std::stoul(text.substr(sep + 1)));
  return x > 0 && y > 0;
}

} // namespace

IDevice::IDevice(ChipId id, std::shared_ptr<tessel::Device> device)
    : id_(id), device_(std::move(device)), allocator_(std::make_unique<Allocator>(*device_)) {
  detail::note_chip_id(*device_, uint32_t(id_));
}

const std::unique_ptr<Allocator>& IDevice::allocator() const { return allocator_; }

IDevice::~IDevice() { detail::forget_chip_id(*device_); }

tt::ARCH IDevice::arch() const {
  const std::string& name = device_->arch_name();
  if (name == "blackhole") return tt::ARCH::BLACKHOLE;
  if (name == "wormhole_b0") return tt::ARCH::WORMHOLE_B0;
  return tt::ARCH::Invalid;
}

CoreCoord IDevice::virtual_core_from_logical_core(const CoreCoord& logical, const CoreType& core_type) const {
  if (core_type != CoreType::WORKER)
    throw tessel::ValidationError("virtual_core_from_logical_core: only CoreType::WORKER cores exist in tessel's "
                                  "simulated chip (no Ethernet or DRAM cores)");
  return device_->worker_core_from_logical_core(logical);
}

CommandQueue& IDevice::command_queue(std::optional<uint8_t> cq_id) {
  if (cq_id && *cq_id != 0)
    throw tessel::ValidationError("command_queue(" + std::to_string(*cq_id) +
                                  "): tessel devices have one command queue, id 0");
  return device_->command_queue();
}

bool IDevice::close() {
  // Under TESSEL_TIMING=1 the estimate is this front door's only output of
  // it (Metalium has no call that reads it): one line on stderr.
  if (device_->is_open() && device_->timing_enabled())
    std::fputs(tessel::format_timing_summary(device_->last_run_timing()).c_str(), stderr);
  device_->close();
  return true;
}

tessel::DeviceConfig IDevice::config_from_environment() {
  tessel::DeviceConfig config;
  // A variable the parsers reject names itself in the error.
  const auto checked = [](const char* name, const std::string& value, auto&& parse) {
    try {
      parse(value);
    } catch (const tessel::ValidationError& e) {
      throw tessel::ValidationError(std::string(name) + "='" + value + "' is not valid: " + e.what());
    }
    return value;
  };
  if (std::string arch = environment("TESSEL_ARCH"); !arch.empty())
    config.arch = checked("TESSEL_ARCH", arch, [](const std::string& v) { tessel::sim::arch_preset(v); });
  if (std::string grid = environment("TESSEL_GRID"); !grid.empty()) {
    if (!parse_grid(grid, config.grid_x, config.grid_y))
      throw tessel::ValidationError("TESSEL_GRID='" + grid +
                                    "' is not a worker grid; give columns x rows, e.g. TESSEL_GRID=4x2");
  }
  if (std::string policy = environment("TESSEL_POLICY"); !policy.empty())
    config.policy =
        checked("TESSEL_POLICY", policy, [](const std::string& v) { tessel::sim::SchedulerPolicy::parse(v); });
  return config;
}

void IDevice::check_device_request(const char* call, ChipId id, size_t num_command_queues) {
  if (id != 0)
    throw tessel::ValidationError(std::string(call) + ": device " + std::to_string(id) +
                                  " does not exist; tessel simulates one device, id 0");
  if (num_command_queues != 1)
    throw tessel::ValidationError(std::string(call) + ": " + std::to_string(num_command_queues) +
                                  " command queues requested; tessel devices have one");
}

IDevice* CreateDevice(ChipId device_id, uint8_t num_hw_cqs, size_t /*l1_small_size*/, size_t /*trace_region_size*/,
                      const DispatchCoreConfig& /*dispatch_core_config*/,
                      const std::vector<uint32_t>& /*l1_bank_remap*/, size_t /*worker_l1_size*/) {
  IDevice::check_device_request("CreateDevice", device_id, num_hw_cqs);
  auto* device = new IDevice(device_id, tessel::Device::open(IDevice::config_from_environment()));
  device->from_create_device_ = true;
  return device;
}

bool CloseDevice(IDevice* device) {
  if (!device) throw tessel::ValidationError("CloseDevice: null device");
  if (!device->from_create_device_)
    throw tessel::ValidationError("CloseDevice: this device was not opened by CreateDevice (a MeshDevice closes with "
                                  "mesh_device->close() and is freed with its last shared_ptr)");
  const bool closed = device->close();
  delete device;
  return closed;
}

size_t GetNumAvailableDevices() { return 1; }
size_t GetNumPCIeDevices() { return 1; }

namespace distributed {

SystemMesh::SystemMesh() : shape_(1, 1) {
  if (std::string mesh = environment("TESSEL_MESH"); !mesh.empty()) {
    uint32_t rows = 0, cols = 0;
    if (!parse_grid(mesh, rows, cols))
      throw tessel::ValidationError("TESSEL_MESH='" + mesh +
                                    "' is not a mesh shape; give rows x columns, e.g. TESSEL_MESH=2x4");
    shape_ = MeshShape(rows, cols);
  }
}

MeshShape SystemMesh::local_shape() const {
  const tessel::Ranks& ranks = tessel::Ranks::world();
  const size_t chips = num_devices() / ranks.size();
  if (!ranks.distributed() || chips == 0) return shape_;
  return chips % shape_[1] == 0 ? MeshShape(uint32_t(chips / shape_[1]), shape_[1]) : MeshShape(1, uint32_t(chips));
}

SystemMesh& SystemMesh::instance() {
  static SystemMesh mesh;
  return mesh;
}

} // namespace distributed

} // namespace tt::tt_metal
