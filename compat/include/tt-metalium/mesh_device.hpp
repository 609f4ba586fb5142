// TT-Metalium's MeshDevice: a rows x cols grid of simulated chips opened
// together in this process, with one mesh command queue over their queues.
//
// MeshDevice::create(MeshDeviceConfig(MeshShape(2, 4))) opens 8 chips, each
// configured from the environment as for CreateDevice (device.hpp), so all
// are alike. How many fit in one process is bounded by the address space
// below 4 GiB that every core's L1 lives in: at most 8 full Blackhole grids
// (fewer with other devices open, more with a smaller TESSEL_GRID). The chips
// of a mesh get ids 0 .. num_devices()-1 in row-major order; a unit mesh's
// chip has the id it was created with. Chips are independent: no fabric or
// Ethernet links between them.
//
// As an IDevice, a MeshDevice is the chip at (0, 0), the reference device:
// the grid size, L1 and DRAM sizes and clock it reports are every chip's
// values (all chips are alike), and its command_queue() and buffers created
// on it with CreateBuffer are chip (0, 0)'s. A buffer on one chip only takes
// space that chip's allocator and no other's, so a later MeshBuffer::create
// may find no address free on every chip (it throws, naming both addresses);
// allocate buffers meant for the whole mesh with MeshBuffer::create.
//
// Ownership: shared_ptr from create / create_unit_mesh(es); close() (or the
// last reference) closes every chip. IDevice::close is not virtual: called
// through an IDevice*, it closes chip (0, 0) only. IDevice pointers from get_device(s),
// MeshBuffers and MeshCommandQueue references must not outlive it.
// Thread-safety: one host thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tt-metalium/device.hpp"
#include "tt-metalium/experimental/fabric/fabric_types.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_trace_id.hpp"
#include "tt-metalium/sub_device.hpp"

namespace tessel {
class Mesh;
}

namespace tt::tt_metal::distributed {

class MeshCommandQueue;

using DeviceIds = std::vector<int>;

struct MeshDeviceConfig {
  MeshDeviceConfig(const MeshShape& mesh_shape) : shape(mesh_shape) {}
  MeshShape shape;
};

class MeshDevice : public IDevice, public std::enable_shared_from_this<MeshDevice> {
public:
  // A 1x1 mesh over chip `device_id` (0 .. the most that fit in one process - 1).
  static std::shared_ptr<MeshDevice>
  create_unit_mesh(int device_id, size_t l1_small_size = DEFAULT_L1_SMALL_SIZE,
                   size_t trace_region_size = DEFAULT_TRACE_REGION_SIZE, size_t num_command_queues = 1,
                   const DispatchCoreConfig& dispatch_core_config = DispatchCoreConfig{},
                   const std::vector<uint32_t>& l1_bank_remap = {}, size_t worker_l1_size = DEFAULT_WORKER_L1_SIZE);
  // One unit mesh per id (ids distinct); opens all or none.
  static std::map<int, std::shared_ptr<MeshDevice>>
  create_unit_meshes(const std::vector<int>& device_ids, size_t l1_small_size = DEFAULT_L1_SMALL_SIZE,
                     size_t trace_region_size = DEFAULT_TRACE_REGION_SIZE, size_t num_command_queues = 1,
                     const DispatchCoreConfig& dispatch_core_config = DispatchCoreConfig{},
                     const std::vector<uint32_t>& l1_bank_remap = {}, size_t worker_l1_size = DEFAULT_WORKER_L1_SIZE);
  // Opens every chip of config.shape, or none: throws tessel::ValidationError
  // for a zero dimension, more chips than fit in one process or more than one
  // two command queues, and tessel::OutOfMemoryError if the address space is taken.
  static std::shared_ptr<MeshDevice>
  create(const MeshDeviceConfig& config, size_t l1_small_size = DEFAULT_L1_SMALL_SIZE,
         size_t trace_region_size = DEFAULT_TRACE_REGION_SIZE, size_t num_command_queues = 1,
         const DispatchCoreConfig& dispatch_core_config = DispatchCoreConfig{},
         const std::vector<uint32_t>& l1_bank_remap = {}, size_t worker_l1_size = DEFAULT_WORKER_L1_SIZE);
  // A 1x1 mesh over a tessel device opened elsewhere (a dispatch session's
  // card, handed over as a "tessel.mesh_device" capsule): the mesh borrows it,
  // and close() leaves it open for its owner.
  static std::shared_ptr<MeshDevice> wrap_unit_mesh(std::shared_ptr<tessel::Device> device, int device_id = 0);
  ~MeshDevice() override;

  const MeshShape& shape() const { return shape_; }
  size_t num_devices() const { return shape_.mesh_size(); }
  size_t num_rows() const { return shape_[0]; }
  size_t num_cols() const { return shape_[1]; }
  // Every chip is local (one process drives the whole mesh); throws
  // tessel::ValidationError for a coordinate outside the mesh.
  bool is_local(const MeshCoordinate& coord) const;
  // The chips in row-major order.
  std::vector<IDevice*> get_devices() const;
  // The chip at `coord` (throws tessel::ValidationError outside the mesh).
  IDevice* get_device(const MeshCoordinate& coord) const;
  IDevice* get_device(size_t row_idx, size_t col_idx) const;
  // The chip with this id (throws tessel::ValidationError if none has it).
  IDevice* get_device(ChipId physical_device_id) const;
  DeviceIds get_device_ids() const;
  std::string to_string() const;

  // Mesh command queue cq_id (0 when none is given): a mesh has the 1 or 2
  // it was created with; other ids throw.
  MeshCommandQueue& mesh_command_queue(std::optional<uint8_t> cq_id = std::nullopt) const;
  uint8_t num_command_queues() const { return uint8_t(queues_.size()); }

  // Kernel binaries are always cached (docs/guide.md); these exist for source compatibility.
  void enable_program_cache() {}
  void clear_program_cache() {}
  void disable_and_clear_program_cache() {}

  // Traces of mesh workloads, captured and replayed on every chip
  // (command_queue.hpp has the rules for one chip). begin throws if a trace is
  // being captured; end takes the trace being captured; replay and release
  // take a captured trace.
  MeshTraceId begin_mesh_trace(uint8_t cq_id);
  void end_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id);
  void replay_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id, bool blocking);
  void release_mesh_trace(const MeshTraceId& trace_id);

  // Sub-device managers: Metalium splits a device's cores into sub-devices
  // so programs on different ones run concurrently. tessel runs each chip's
  // programs one at a time, so a manager only records its sub-devices:
  // create checks them (Tensix cores inside the worker grid, no core in two
  // sub-devices, no Ethernet cores) and returns a new id, load makes a
  // manager the active one, and programs run on the cores they name either
  // way. local_l1_size is accepted and reserves nothing. Manager 0 is the
  // default: the whole grid as one sub-device. Each call throws
  // tessel::ValidationError, changing nothing, for bad sub-devices or an
  // unknown id; removing the active manager also throws.
  SubDeviceManagerId create_sub_device_manager(std::initializer_list<SubDevice> sub_devices, uint64_t local_l1_size);
  SubDeviceManagerId create_sub_device_manager(std::span<const SubDevice> sub_devices, uint64_t local_l1_size);
  void load_sub_device_manager(SubDeviceManagerId sub_device_manager_id);
  void clear_loaded_sub_device_manager();
  void remove_sub_device_manager(SubDeviceManagerId sub_device_manager_id);
  SubDeviceManagerId get_active_sub_device_manager_id() const { return active_sub_device_manager_; }
  // The active manager's sub-devices: 0 .. num_sub_devices() - 1.
  std::vector<SubDeviceId> get_sub_device_ids() const;
  uint8_t num_sub_devices() const;

  // Waits for the chips to go idle: they are (every command completes
  // before its call returns).
  void quiesce_devices() {}

  // Closes every chip; later use of the mesh or its buffers throws.
  bool close();

  // For the compat layer: the chips' tessel devices in row-major order.
  // The chip at `linear_index`, which must be this process's (local).
  tessel::Device& native_device(size_t linear_index) const {
    return local_chip(linear_index, "MeshDevice")->native();
  }
  bool is_local_index(size_t linear_index) const { return devices_[linear_index] != nullptr; }
  // The first chip this process holds (chip 0 outside mpirun).
  size_t first_local_index() const;
  // The chip at `coord` as TT-Fabric names it: mesh 0, its row-major index.
  tt::tt_fabric::FabricNodeId get_fabric_node_id(const MeshCoordinate& coord) const;
  // The chips joined by the fabric (a mesh of more than one chip), or null.
  tessel::Mesh* native_mesh() const { return mesh_.get(); }

private:
  MeshDevice(MeshShape shape, std::vector<std::unique_ptr<IDevice>> devices, size_t num_command_queues = 1,
             std::shared_ptr<tessel::Mesh> mesh = nullptr);
  IDevice* local_chip(size_t linear_index, const char* call) const;
  const std::vector<uint32_t>& chip_trace_ids(const MeshTraceId& trace_id, const char* call) const;

  MeshShape shape_;
  std::vector<std::unique_ptr<IDevice>> devices_;         // row-major; null: another MPI rank's chip
  std::shared_ptr<tessel::Mesh> mesh_;                    // more than one chip: the fabric between them
  bool borrowed_ = false;                                 // wrap_unit_mesh: the chip's owner closes it
  std::vector<std::unique_ptr<MeshCommandQueue>> queues_; // by cq id
  // Traces: mesh trace id -> each chip's trace id (row-major).
  std::map<uint32_t, std::vector<uint32_t>> traces_;
  uint32_t last_trace_id_ = 0;
  std::optional<uint32_t> capturing_trace_id_;
  // Sub-device managers by id (not the default, 0), and the active one.
  std::map<SubDeviceManagerId, std::vector<SubDevice>> sub_device_managers_;
  SubDeviceManagerId last_sub_device_manager_ = 0;
  SubDeviceManagerId active_sub_device_manager_ = 0;
};

} // namespace tt::tt_metal::distributed
