// TT-Metalium's distributed (mesh) host API over tessel: workloads, mesh
// buffer reads and writes, events, traces, Finish.
//
// Every command completes before its call returns; `blocking` is kept for
// source compatibility. Writes from a vector check that it holds the bytes
// the write takes (EnqueueWriteMeshBuffer: a replicated buffer's per-chip
// size or a sharded buffer's global size; WriteShard: the per-chip size);
// reads resize the destination vector to what they return (EnqueueReadMeshBuffer
// on a sharded buffer: the assembled global array; on a 1x1 mesh's replicated
// buffer: its one copy; ReadShard: one chip's buffer) and leave it unchanged
// if they throw. The only command queue id is 0. Sub-device ids are accepted
// only empty. Misuse throws tessel::ValidationError before anything is sent.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tt-metalium/buffer.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/mesh_command_queue.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/mesh_event.hpp"
#include "tt-metalium/mesh_trace_id.hpp"
#include "tt-metalium/mesh_workload.hpp"
#include "tt-metalium/system_mesh.hpp"

namespace tt::tt_metal::distributed {

MeshWorkload CreateMeshWorkload();
void AddProgramToMeshWorkload(MeshWorkload& mesh_workload, Program&& program, const MeshCoordinateRange& device_range);
void EnqueueMeshWorkload(MeshCommandQueue& mesh_cq, MeshWorkload& mesh_workload, bool blocking);

namespace detail {
// The bytes EnqueueWriteMeshBuffer takes from the host; throws for a null buffer.
uint64_t mesh_write_bytes(const MeshBuffer* mesh_buffer, const char* call);
// The bytes EnqueueReadMeshBuffer returns; throws for a null buffer or one it cannot read.
uint64_t mesh_read_bytes(const MeshBuffer* mesh_buffer, const char* call);
// One chip's bytes; throws for a null buffer or a coordinate outside its mesh.
uint64_t shard_bytes(const MeshBuffer* mesh_buffer, const MeshCoordinate& coord, const char* call);
// Throws unless a source of `src_bytes` holds `needed_bytes`.
void check_source_bytes(uint64_t src_bytes, uint64_t needed_bytes, const char* call);
// Throws unless `bytes` is a whole number of `element_bytes` elements.
void check_whole_elements(uint64_t bytes, size_t element_bytes, const char* call);
} // namespace detail

template <typename DType>
void EnqueueWriteMeshBuffer(MeshCommandQueue& mesh_cq, std::shared_ptr<MeshBuffer>& mesh_buffer,
                            const std::vector<DType>& src, bool blocking = false) {
  const uint64_t bytes = detail::mesh_write_bytes(mesh_buffer.get(), "EnqueueWriteMeshBuffer");
  detail::check_source_bytes(src.size() * sizeof(DType), bytes, "EnqueueWriteMeshBuffer");
  mesh_cq.enqueue_write_mesh_buffer(mesh_buffer, src.data(), blocking);
}

template <typename DType>
void EnqueueReadMeshBuffer(MeshCommandQueue& mesh_cq, std::vector<DType>& dst, std::shared_ptr<MeshBuffer>& mesh_buffer,
                           bool blocking = true) {
  const uint64_t bytes = detail::mesh_read_bytes(mesh_buffer.get(), "EnqueueReadMeshBuffer");
  detail::check_whole_elements(bytes, sizeof(DType), "EnqueueReadMeshBuffer");
  std::vector<DType> out(bytes / sizeof(DType));
  mesh_cq.enqueue_read_mesh_buffer(out.data(), mesh_buffer, blocking);
  dst = std::move(out);
}

template <typename DType>
void WriteShard(MeshCommandQueue& mesh_cq, const std::shared_ptr<MeshBuffer>& mesh_buffer, std::vector<DType>& src,
                const MeshCoordinate& coord, bool blocking = false) {
  const uint64_t bytes = detail::shard_bytes(mesh_buffer.get(), coord, "WriteShard");
  detail::check_source_bytes(src.size() * sizeof(DType), bytes, "WriteShard");
  mesh_cq.enqueue_write_shards(mesh_buffer, {{.shard_coord = coord, .host_data = src.data()}}, blocking);
}

template <typename DType>
void ReadShard(MeshCommandQueue& mesh_cq, std::vector<DType>& dst, const std::shared_ptr<MeshBuffer>& mesh_buffer,
               const MeshCoordinate& coord, bool blocking = true) {
  const uint64_t bytes = detail::shard_bytes(mesh_buffer.get(), coord, "ReadShard");
  detail::check_whole_elements(bytes, sizeof(DType), "ReadShard");
  std::vector<DType> out(bytes / sizeof(DType));
  mesh_cq.enqueue_read_shards({{.shard_coord = coord, .host_data = out.data()}}, mesh_buffer, blocking);
  dst = std::move(out);
}

// Events over `device_range` (default: the whole mesh). A recorded event is
// complete once the call returns; ToHost is the same.
MeshEvent EnqueueRecordEvent(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids = {},
                             const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
MeshEvent EnqueueRecordEventToHost(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids = {},
                                   const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
void EnqueueWaitForEvent(MeshCommandQueue& mesh_cq, const MeshEvent& event);
void EventSynchronize(const MeshEvent& event);
bool EventQuery(const MeshEvent& event);

// Traces of workload launches on every chip (mesh_device.hpp).
MeshTraceId BeginTraceCapture(MeshDevice* device, uint8_t cq_id);
void EndTraceCapture(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id);
void ReplayTrace(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id, bool blocking);
void ReleaseTrace(MeshDevice* device, const MeshTraceId& trace_id);

void Synchronize(MeshDevice* device, std::optional<uint8_t> cq_id, std::span<const SubDeviceId> sub_device_ids = {});
void Finish(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids = {});

} // namespace tt::tt_metal::distributed
