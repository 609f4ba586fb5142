// TT-Metalium's distributed (mesh) host API over tessel, for 1x1 meshes:
// workloads, mesh buffer reads and writes, events, traces, Finish.
//
// Every command completes before its call returns; `blocking` is kept for
// source compatibility. Writes take mesh_buffer->size() bytes from the
// source vector (which must hold at least that many); reads resize the
// destination vector to the buffer's size. The only coordinate is (0, 0)
// and the only command queue id is 0: others throw tessel::ValidationError.
// Sub-device ids are accepted only empty.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessel/error.hpp"
#include "tt-metalium/buffer.hpp"
#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/mesh_command_queue.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/mesh_event.hpp"
#include "tt-metalium/mesh_trace_id.hpp"
#include "tt-metalium/mesh_workload.hpp"

namespace tt::tt_metal::distributed {

MeshWorkload CreateMeshWorkload();
void AddProgramToMeshWorkload(MeshWorkload& mesh_workload, Program&& program, const MeshCoordinateRange& device_range);
void EnqueueMeshWorkload(MeshCommandQueue& mesh_cq, MeshWorkload& mesh_workload, bool blocking);

namespace detail {
// Throws unless `src_bytes` covers the mesh buffer and `coord` is (0, 0).
void check_shard_write(const MeshBuffer& mesh_buffer, uint64_t src_bytes, const MeshCoordinate& coord,
                       const char* call);
void check_coordinate(const MeshCoordinate& coord, const char* call);
} // namespace detail

template <typename DType>
void EnqueueWriteMeshBuffer(MeshCommandQueue& mesh_cq, std::shared_ptr<MeshBuffer>& mesh_buffer,
                            const std::vector<DType>& src, bool blocking = false) {
  detail::check_shard_write(*mesh_buffer, src.size() * sizeof(DType), MeshCoordinate(0, 0), "EnqueueWriteMeshBuffer");
  mesh_cq.enqueue_write_mesh_buffer(mesh_buffer, src.data(), blocking);
}

template <typename DType>
void EnqueueReadMeshBuffer(MeshCommandQueue& mesh_cq, std::vector<DType>& dst, std::shared_ptr<MeshBuffer>& mesh_buffer,
                           bool blocking = true) {
  mesh_cq.native().enqueue_read_buffer(mesh_buffer->get_backing_buffer()->native(), dst, blocking);
}

template <typename DType>
void WriteShard(MeshCommandQueue& mesh_cq, const std::shared_ptr<MeshBuffer>& mesh_buffer, std::vector<DType>& src,
                const MeshCoordinate& coord, bool blocking = false) {
  detail::check_shard_write(*mesh_buffer, src.size() * sizeof(DType), coord, "WriteShard");
  mesh_cq.enqueue_write_mesh_buffer(mesh_buffer, src.data(), blocking);
}

template <typename DType>
void ReadShard(MeshCommandQueue& mesh_cq, std::vector<DType>& dst, const std::shared_ptr<MeshBuffer>& mesh_buffer,
               const MeshCoordinate& coord, bool blocking = true) {
  detail::check_coordinate(coord, "ReadShard");
  mesh_cq.native().enqueue_read_buffer(mesh_buffer->get_backing_buffer()->native(), dst, blocking);
}

// Events. A recorded event is complete once the call returns; ToHost is the same.
MeshEvent EnqueueRecordEvent(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids = {},
                             const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
MeshEvent EnqueueRecordEventToHost(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids = {},
                                   const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
void EnqueueWaitForEvent(MeshCommandQueue& mesh_cq, const MeshEvent& event);
void EventSynchronize(const MeshEvent& event);
bool EventQuery(const MeshEvent& event);

// Traces of workload launches (command_queue.hpp has the rules).
MeshTraceId BeginTraceCapture(MeshDevice* device, uint8_t cq_id);
void EndTraceCapture(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id);
void ReplayTrace(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id, bool blocking);
void ReleaseTrace(MeshDevice* device, const MeshTraceId& trace_id);

void Synchronize(MeshDevice* device, std::optional<uint8_t> cq_id, std::span<const SubDeviceId> sub_device_ids = {});
void Finish(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids = {});

} // namespace tt::tt_metal::distributed
