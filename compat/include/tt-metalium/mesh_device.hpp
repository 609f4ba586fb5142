// TT-Metalium's MeshDevice: here always a 1x1 mesh, whose one device is the
// MeshDevice itself (it is an IDevice, as in Metalium). The device comes
// from the environment as for CreateDevice (device.hpp).
//
// Ownership: shared_ptr from create_unit_mesh / create; close() (or the last
// reference) closes the device. MeshBuffers and MeshCommandQueue references
// must not outlive it. Thread-safety: one host thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "tt-metalium/device.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_trace_id.hpp"

namespace tt::tt_metal::distributed {

class MeshCommandQueue;

struct MeshDeviceConfig {
  MeshDeviceConfig(const MeshShape& mesh_shape) : shape(mesh_shape) {}
  MeshShape shape;
};

class MeshDevice : public IDevice, public std::enable_shared_from_this<MeshDevice> {
public:
  // Throws tessel::ValidationError for a device_id other than 0 or more than one command queue.
  static std::shared_ptr<MeshDevice>
  create_unit_mesh(int device_id, size_t l1_small_size = DEFAULT_L1_SMALL_SIZE,
                   size_t trace_region_size = DEFAULT_TRACE_REGION_SIZE, size_t num_command_queues = 1,
                   const DispatchCoreConfig& dispatch_core_config = DispatchCoreConfig{},
                   const std::vector<uint32_t>& l1_bank_remap = {}, size_t worker_l1_size = DEFAULT_WORKER_L1_SIZE);
  static std::map<int, std::shared_ptr<MeshDevice>>
  create_unit_meshes(const std::vector<int>& device_ids, size_t l1_small_size = DEFAULT_L1_SMALL_SIZE,
                     size_t trace_region_size = DEFAULT_TRACE_REGION_SIZE, size_t num_command_queues = 1,
                     const DispatchCoreConfig& dispatch_core_config = DispatchCoreConfig{});
  // Only a 1x1 shape; others throw tessel::ValidationError.
  static std::shared_ptr<MeshDevice> create(const MeshDeviceConfig& config,
                                            size_t l1_small_size = DEFAULT_L1_SMALL_SIZE,
                                            size_t trace_region_size = DEFAULT_TRACE_REGION_SIZE,
                                            size_t num_command_queues = 1,
                                            const DispatchCoreConfig& dispatch_core_config = DispatchCoreConfig{});
  ~MeshDevice() override;

  MeshShape shape() const { return MeshShape(1, 1); }
  size_t num_devices() const { return 1; }
  size_t num_rows() const { return 1; }
  size_t num_cols() const { return 1; }
  bool is_local(const MeshCoordinate& coord) const { return coord == MeshCoordinate(0, 0); }
  std::vector<IDevice*> get_devices() { return {this}; }
  // The device at `coord`: this one at (0, 0); others throw.
  IDevice* get_device(const MeshCoordinate& coord);

  // The one mesh command queue (cq_id 0 or none; others throw).
  MeshCommandQueue& mesh_command_queue(std::optional<uint8_t> cq_id = std::nullopt);

  // Kernel binaries are always cached (docs/guide.md); these exist for source compatibility.
  void enable_program_cache() {}
  void disable_and_clear_program_cache() {}

  MeshTraceId begin_mesh_trace(uint8_t cq_id);
  void end_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id);
  void replay_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id, bool blocking);
  void release_mesh_trace(const MeshTraceId& trace_id);

private:
  MeshDevice(int device_id, std::shared_ptr<tessel::Device> device);
  std::unique_ptr<MeshCommandQueue> queue_;
};

} // namespace tt::tt_metal::distributed
