// The distributed free functions, MeshWorkload, and the size checks of
// distributed.hpp's vector forms.
#include "tt-metalium/distributed.hpp"

#include <string>

#include "mesh_checks.hpp"
#include "tessel/error.hpp"
#include "tessel/event.hpp"

namespace tt::tt_metal::distributed {

namespace detail {

namespace {
const MeshBuffer& non_null(const MeshBuffer* mesh_buffer, const char* call) {
  if (!mesh_buffer) checks::fail(call, "the mesh buffer is null");
  return *mesh_buffer;
}
} // namespace

uint64_t mesh_write_bytes(const MeshBuffer* mesh_buffer, const char* call) {
  const MeshBuffer& buffer = non_null(mesh_buffer, call);
  return buffer.global_layout() == MeshBufferLayout::SHARDED ? buffer.size() : buffer.device_local_size();
}

uint64_t mesh_read_bytes(const MeshBuffer* mesh_buffer, const char* call) {
  const MeshBuffer& buffer = non_null(mesh_buffer, call);
  if (buffer.global_layout() == MeshBufferLayout::SHARDED) return buffer.size();
  if (buffer.device()->num_devices() != 1) {
    const std::string message = std::string(call) + ": the buffer is replicated over " +
                                std::to_string(buffer.device()->num_devices()) +
                                " devices, so there is no one copy to read; read one device's with ReadShard";
    throw tessel::ValidationError(message);
  }
  return buffer.device_local_size();
}

uint64_t shard_bytes(const MeshBuffer* mesh_buffer, const MeshCoordinate& coord, const char* call) {
  const MeshBuffer& buffer = non_null(mesh_buffer, call);
  checks::chip_index(*buffer.device(), coord, call);
  return buffer.device_local_size();
}

void check_source_bytes(uint64_t src_bytes, uint64_t needed_bytes, const char* call) {
  if (src_bytes < needed_bytes) {
    const std::string message = std::string(call) + ": the source vector holds " + std::to_string(src_bytes) +
                                " B, less than the " + std::to_string(needed_bytes) + " B the write takes";
    throw tessel::ValidationError(message);
  }
}

void check_whole_elements(uint64_t bytes, size_t element_bytes, const char* call) {
  if (bytes % element_bytes != 0) {
    const std::string message = std::string(call) + ": the read returns " + std::to_string(bytes) +
                                " B, not a whole number of the vector's " + std::to_string(element_bytes) +
                                " B elements";
    throw tessel::ValidationError(message);
  }
}

} // namespace detail

// ---- MeshWorkload ----------------------------------------------------------

void MeshWorkload::add_program(const MeshCoordinateRange& device_range, Program&& program) {
  for (const MeshCoordinateRange& held : order_)
    if (held.intersects(device_range)) {
      const std::string message = "MeshWorkload::add_program: " + device_range.str() +
                                  " overlaps the range of an earlier program, " + held.str() +
                                  "; each device runs at most one program of a workload";
      throw tessel::ValidationError(message);
    }
  programs_.emplace(device_range, std::move(program));
  order_.push_back(device_range);
}

MeshWorkload CreateMeshWorkload() { return MeshWorkload(); }

void AddProgramToMeshWorkload(MeshWorkload& mesh_workload, Program&& program, const MeshCoordinateRange& device_range) {
  mesh_workload.add_program(device_range, std::move(program));
}

void EnqueueMeshWorkload(MeshCommandQueue& mesh_cq, MeshWorkload& mesh_workload, bool blocking) {
  mesh_cq.enqueue_mesh_workload(mesh_workload, blocking);
}

// ---- Events ----------------------------------------------------------------

MeshEvent EnqueueRecordEvent(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids,
                             const std::optional<MeshCoordinateRange>& device_range) {
  return mesh_cq.enqueue_record_event(sub_device_ids, device_range);
}

MeshEvent EnqueueRecordEventToHost(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids,
                                   const std::optional<MeshCoordinateRange>& device_range) {
  return mesh_cq.enqueue_record_event_to_host(sub_device_ids, device_range);
}

void EnqueueWaitForEvent(MeshCommandQueue& mesh_cq, const MeshEvent& event) { mesh_cq.enqueue_wait_for_event(event); }

void EventSynchronize(const MeshEvent& event) {
  for (const auto& chip_event : event.chip_events())
    tessel::event_synchronize(*chip_event);
}

bool EventQuery(const MeshEvent& event) {
  for (const auto& chip_event : event.chip_events())
    if (!tessel::event_query(*chip_event)) return false;
  return true;
}

// ---- Traces and synchronization --------------------------------------------

MeshTraceId BeginTraceCapture(MeshDevice* device, uint8_t cq_id) {
  return checks::non_null(device, "BeginTraceCapture").begin_mesh_trace(cq_id);
}

void EndTraceCapture(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id) {
  checks::non_null(device, "EndTraceCapture").end_mesh_trace(cq_id, trace_id);
}

void ReplayTrace(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id, bool blocking) {
  checks::non_null(device, "ReplayTrace").replay_mesh_trace(cq_id, trace_id, blocking);
}

void ReleaseTrace(MeshDevice* device, const MeshTraceId& trace_id) {
  checks::non_null(device, "ReleaseTrace").release_mesh_trace(trace_id);
}

void Synchronize(MeshDevice* device, std::optional<uint8_t> cq_id, std::span<const SubDeviceId> sub_device_ids) {
  checks::no_sub_devices(sub_device_ids, "Synchronize");
  checks::non_null(device, "Synchronize").mesh_command_queue(cq_id).finish();
}

void Finish(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids) { mesh_cq.finish(sub_device_ids); }

} // namespace tt::tt_metal::distributed
