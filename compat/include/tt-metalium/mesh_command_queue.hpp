// TT-Metalium's MeshCommandQueue: the command queue of a mesh, over each
// chip's tessel::CommandQueue. A command for several chips is issued to them
// in row-major order; every command completes before its call returns
// (command_queue.hpp says what that means for blocking, Finish and events).
//
// Host-data contracts of the raw-pointer calls (distributed.hpp's vector
// forms check sizes): a replicated write reads device_local_size() bytes, a
// sharded write or read global_size bytes, a shard write or read
// device_local_size() bytes. Reading a replicated buffer of a mesh of more
// than one chip throws (which chip's copy? use ReadShard), as does reading a
// sharded buffer with a replicating shard dimension. Coordinates and ranges
// outside the mesh throw tessel::ValidationError before anything is sent.
//
// Ownership: owned by its MeshDevice (mesh_command_queue()).
// Thread-safety: one host thread at a time, as the device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tessel/command_queue.hpp"
#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_event.hpp"
#include "tt-metalium/mesh_workload.hpp"

namespace tt::tt_metal::distributed {

class MeshDevice;

class MeshCommandQueue {
public:
  explicit MeshCommandQueue(MeshDevice& device, uint8_t id = 0);
  MeshCommandQueue(const MeshCommandQueue&) = delete;
  MeshCommandQueue& operator=(const MeshCommandQueue&) = delete;

  MeshDevice* device() const { return &device_; }
  uint32_t id() const { return id_; }

  // Runs each program on every chip of its range (ranges in the order they
  // were added). Throws tessel::ValidationError, running nothing, for an empty
  // workload, a range outside the mesh, or a program the first chip of its
  // range rejects.
  void enqueue_mesh_workload(MeshWorkload& mesh_workload, bool blocking);

  // Host data for one chip's buffer.
  struct ShardDataTransfer {
    MeshCoordinate shard_coord;
    void* host_data = nullptr;
  };

  void enqueue_write_mesh_buffer(const std::shared_ptr<MeshBuffer>& mesh_buffer, const void* host_data, bool blocking);
  // Replicated: the data to every chip of `device_range`; sharded: the whole
  // buffer, split into shards (device_range must then be the whole mesh).
  void enqueue_write_shard_to_sub_grid(const MeshBuffer& mesh_buffer, const void* host_data,
                                       const MeshCoordinateRange& device_range, bool blocking);
  void enqueue_write_shards(const std::shared_ptr<MeshBuffer>& mesh_buffer,
                            const std::vector<ShardDataTransfer>& shard_data_transfers, bool blocking);
  void enqueue_read_mesh_buffer(void* host_data, const std::shared_ptr<MeshBuffer>& mesh_buffer, bool blocking);
  void enqueue_read_shards(const std::vector<ShardDataTransfer>& shard_data_transfers,
                           const std::shared_ptr<MeshBuffer>& mesh_buffer, bool blocking);

  // Events over `device_range` (default: the whole mesh). Sub-device ids are accepted only empty.
  MeshEvent enqueue_record_event(std::span<const SubDeviceId> sub_device_ids = {},
                                 const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
  MeshEvent enqueue_record_event_to_host(std::span<const SubDeviceId> sub_device_ids = {},
                                         const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
  // The chips of the event's range wait for it; it must come from this mesh.
  void enqueue_wait_for_event(const MeshEvent& sync_event);
  void finish(std::span<const SubDeviceId> sub_device_ids = {});

  // For the compat layer: the queue of the chip at a row-major index.
  tessel::CommandQueue& chip_queue(size_t linear_index) const;

private:
  void write_sharded(const MeshBuffer& mesh_buffer, const uint8_t* host_data);
  void read_sharded(const MeshBuffer& mesh_buffer, uint8_t* host_data);

  MeshDevice& device_;
  uint8_t id_ = 0;
  uint32_t last_event_id_ = 0;
};

} // namespace tt::tt_metal::distributed
