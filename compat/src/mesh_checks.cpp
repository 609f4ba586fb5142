// Argument checks shared by the mesh calls.
#include "mesh_checks.hpp"

#include <string>

#include "tessel/error.hpp"

namespace tt::tt_metal::distributed::checks {

void fail(const char* call, const std::string& what) {
  const std::string message = std::string(call) + ": " + what;
  throw tessel::ValidationError(message);
}

MeshDevice& non_null(MeshDevice* device, const char* call) {
  if (!device) fail(call, "the mesh device is null");
  return *device;
}

size_t chip_index(const MeshDevice& device, const MeshCoordinate& coord, const char* call) {
  const MeshShape& shape = device.shape();
  if (coord[0] >= shape[0] || coord[1] >= shape[1]) {
    const std::string message = std::string(call) + ": " + coord.str() + " is outside the " + std::to_string(shape[0]) +
                                "x" + std::to_string(shape[1]) + " mesh; rows go from 0 to " +
                                std::to_string(shape[0] - 1) + " and columns from 0 to " + std::to_string(shape[1] - 1);
    throw tessel::ValidationError(message);
  }
  return coord.to_linear_index(shape);
}

void range_in_mesh(const MeshDevice& device, const MeshCoordinateRange& range, const char* call) {
  const MeshCoordinateRange whole(device.shape());
  if (!whole.contains(range)) {
    const std::string message = std::string(call) + ": " + range.str() + " is not inside the " +
                                std::to_string(device.num_rows()) + "x" + std::to_string(device.num_cols()) +
                                " mesh, " + whole.str();
    throw tessel::ValidationError(message);
  }
}

void command_queue_id(std::optional<uint8_t> cq_id, uint32_t num_command_queues, const char* call) {
  if (cq_id && *cq_id >= num_command_queues) {
    const std::string message = std::string(call) + ": command queue " + std::to_string(*cq_id) +
                                " does not exist; this mesh has " +
                                (num_command_queues == 1 ? std::string("one command queue, id 0")
                                                         : std::string("two command queues, ids 0 and 1"));
    throw tessel::ValidationError(message);
  }
}

void no_sub_devices(std::span<const SubDeviceId> sub_device_ids, const char* call) {
  if (!sub_device_ids.empty()) fail(call, "sub-devices are not supported; pass no sub-device ids");
}

const MeshBuffer& buffer_on(const MeshDevice& device, const MeshBuffer* mesh_buffer, const char* call) {
  if (!mesh_buffer) fail(call, "the mesh buffer is null");
  if (mesh_buffer->device() != &device)
    fail(call, "the mesh buffer belongs to another MeshDevice than this command queue's");
  if (!mesh_buffer->is_allocated()) fail(call, "the mesh buffer has been deallocated");
  return *mesh_buffer;
}

} // namespace tt::tt_metal::distributed::checks
