// TT-Metalium's MeshCommandQueue: the command queue of a 1x1 mesh, over the
// device's tessel::CommandQueue. Commands complete before their calls return
// (command_queue.hpp says what that means for blocking, Finish and events).
//
// Ownership: owned by its MeshDevice (mesh_command_queue()).
// Thread-safety: one host thread at a time, as the device.
#pragma once

#include <cstdint>
#include <memory>

#include "tessel/command_queue.hpp"
#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/mesh_workload.hpp"

namespace tt::tt_metal::distributed {

class MeshDevice;

class MeshCommandQueue {
public:
  explicit MeshCommandQueue(MeshDevice& device);
  MeshCommandQueue(const MeshCommandQueue&) = delete;
  MeshCommandQueue& operator=(const MeshCommandQueue&) = delete;

  MeshDevice* device() const { return &device_; }
  uint32_t id() const { return 0; }

  void enqueue_mesh_workload(MeshWorkload& mesh_workload, bool blocking);
  // Writes mesh_buffer->size() bytes from host_data (to every device of the mesh).
  void enqueue_write_mesh_buffer(const std::shared_ptr<MeshBuffer>& mesh_buffer, const void* host_data, bool blocking);
  // Reads mesh_buffer->size() bytes into host_data.
  void enqueue_read_mesh_buffer(void* host_data, const std::shared_ptr<MeshBuffer>& mesh_buffer, bool blocking);
  void finish();

  tessel::CommandQueue& native() const { return queue_; }

private:
  MeshDevice& device_;
  tessel::CommandQueue& queue_;
};

} // namespace tt::tt_metal::distributed
