// The 1x1 mesh: MeshDevice, MeshBuffer, MeshWorkload, MeshCommandQueue and
// the distributed free functions, over one tessel device and its queue.
#include <string>

#include "tessel/error.hpp"
#include "tessel/event.hpp"
#include "tt-metalium/distributed.hpp"
#include "tt-metalium/host_api.hpp"

namespace tt::tt_metal::distributed {

namespace {

const MeshCoordinateRange kUnitRange(MeshCoordinate(0, 0), MeshCoordinate(0, 0));

void check_cq(std::optional<uint8_t> cq_id, const char* call) {
  if (cq_id && *cq_id != 0)
    throw tessel::ValidationError(std::string(call) + ": command queue " + std::to_string(*cq_id) +
                                  " does not exist; tessel meshes have one command queue, id 0");
}

void check_range(const MeshCoordinateRange& range, const char* call) {
  if (!(range == kUnitRange))
    throw tessel::ValidationError(std::string(call) + ": " + range.str() +
                                  " is outside the mesh; tessel meshes are 1x1, so the only range is "
                                  "MeshCoordinateRange(mesh_device->shape()) = (0, 0)-(0, 0)");
}

void check_no_sub_devices(std::span<const SubDeviceId> ids, const char* call) {
  if (!ids.empty())
    throw tessel::ValidationError(std::string(call) + ": sub-devices are not supported; pass no sub-device ids");
}

MeshDevice& checked(MeshDevice* device, const char* call) {
  if (!device) throw tessel::ValidationError(std::string(call) + ": null mesh device");
  return *device;
}

} // namespace

namespace detail {

void check_coordinate(const MeshCoordinate& coord, const char* call) {
  if (!(coord == MeshCoordinate(0, 0)))
    throw tessel::ValidationError(std::string(call) + ": " + coord.str() +
                                  " is outside the mesh; tessel meshes are 1x1, so the only coordinate is (0, 0)");
}

void check_shard_write(const MeshBuffer& mesh_buffer, uint64_t src_bytes, const MeshCoordinate& coord,
                       const char* call) {
  check_coordinate(coord, call);
  if (src_bytes < mesh_buffer.size())
    throw tessel::ValidationError(std::string(call) + ": the source vector holds " + std::to_string(src_bytes) +
                                  " B, less than the mesh buffer's " + std::to_string(mesh_buffer.size()) +
                                  " B; a write fills the whole buffer");
}

} // namespace detail

// ---- MeshDevice ------------------------------------------------------------

MeshDevice::MeshDevice(int device_id, std::shared_ptr<tessel::Device> device)
    : IDevice(device_id, std::move(device)), queue_(std::make_unique<MeshCommandQueue>(*this)) {}

MeshDevice::~MeshDevice() = default;

std::shared_ptr<MeshDevice> MeshDevice::create_unit_mesh(int device_id, size_t, size_t, size_t num_command_queues,
                                                         const DispatchCoreConfig&, const std::vector<uint32_t>&,
                                                         size_t) {
  check_device_request("MeshDevice::create_unit_mesh", device_id, num_command_queues);
  return std::shared_ptr<MeshDevice>(new MeshDevice(device_id, tessel::Device::open(config_from_environment())));
}

std::map<int, std::shared_ptr<MeshDevice>> MeshDevice::create_unit_meshes(const std::vector<int>& device_ids, size_t,
                                                                          size_t, size_t num_command_queues,
                                                                          const DispatchCoreConfig&) {
  if (device_ids.size() != 1)
    throw tessel::ValidationError("MeshDevice::create_unit_meshes: " + std::to_string(device_ids.size()) +
                                  " devices requested; tessel simulates one device, id 0");
  return {{device_ids[0], create_unit_mesh(device_ids[0], 0, 0, num_command_queues)}};
}

std::shared_ptr<MeshDevice> MeshDevice::create(const MeshDeviceConfig& config, size_t, size_t,
                                               size_t num_command_queues, const DispatchCoreConfig&) {
  if (!(config.shape == MeshShape(1, 1)))
    throw tessel::ValidationError("MeshDevice::create: " + config.shape.str() +
                                  " requested; tessel meshes are 1x1 (MeshShape(1, 1))");
  return create_unit_mesh(0, 0, 0, num_command_queues);
}

IDevice* MeshDevice::get_device(const MeshCoordinate& coord) {
  detail::check_coordinate(coord, "MeshDevice::get_device");
  return this;
}

MeshCommandQueue& MeshDevice::mesh_command_queue(std::optional<uint8_t> cq_id) {
  check_cq(cq_id, "MeshDevice::mesh_command_queue");
  return *queue_;
}

MeshTraceId MeshDevice::begin_mesh_trace(uint8_t cq_id) {
  check_cq(cq_id, "MeshDevice::begin_mesh_trace");
  return MeshTraceId{native().command_queue().begin_trace_capture()};
}

void MeshDevice::end_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id) {
  check_cq(cq_id, "MeshDevice::end_mesh_trace");
  native().command_queue().end_trace_capture(*trace_id);
}

void MeshDevice::replay_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id, bool blocking) {
  check_cq(cq_id, "MeshDevice::replay_mesh_trace");
  native().command_queue().replay_trace(*trace_id, blocking);
}

void MeshDevice::release_mesh_trace(const MeshTraceId& trace_id) { native().command_queue().release_trace(*trace_id); }

// ---- MeshBuffer ------------------------------------------------------------

std::shared_ptr<MeshBuffer> MeshBuffer::create(const MeshBufferConfig& mesh_buffer_config,
                                               const DeviceLocalBufferConfig& device_local_config,
                                               MeshDevice* mesh_device, std::optional<DeviceAddr> address) {
  MeshDevice& device = checked(mesh_device, "MeshBuffer::create");
  const auto* replicated = std::get_if<ReplicatedBufferConfig>(&mesh_buffer_config);
  if (!replicated)
    throw tessel::ValidationError("MeshBuffer::create: ShardedBufferConfig is not supported; tessel meshes are 1x1, "
                                  "so use ReplicatedBufferConfig{.size = ...}");
  if (device_local_config.sharding_args.sharded)
    throw tessel::ValidationError("MeshBuffer::create: sharded device-local buffers are not supported; tessel "
                                  "buffers are interleaved");
  if (device_local_config.sub_device_id)
    throw tessel::ValidationError("MeshBuffer::create: sub-devices are not supported; leave sub_device_id unset");
  if (address)
    throw tessel::ValidationError("MeshBuffer::create: placing a buffer at a given address is not supported");
  std::shared_ptr<Buffer> buffer = CreateBuffer(InterleavedBufferConfig{
      &device, replicated->size, device_local_config.page_size, device_local_config.buffer_type});
  return std::shared_ptr<MeshBuffer>(
      new MeshBuffer(mesh_buffer_config, device_local_config, &device, std::move(buffer)));
}

Buffer* MeshBuffer::get_device_buffer(const MeshCoordinate& device_coord) const {
  detail::check_coordinate(device_coord, "MeshBuffer::get_device_buffer");
  return buffer_.get();
}

// ---- MeshWorkload ----------------------------------------------------------

void MeshWorkload::add_program(const MeshCoordinateRange& device_range, Program&& program) {
  if (programs_.count(device_range))
    throw tessel::ValidationError("MeshWorkload::add_program: " + device_range.str() + " already has a program");
  programs_.emplace(device_range, std::move(program));
  order_.push_back(device_range);
}

MeshWorkload CreateMeshWorkload() { return MeshWorkload(); }

void AddProgramToMeshWorkload(MeshWorkload& mesh_workload, Program&& program, const MeshCoordinateRange& device_range) {
  mesh_workload.add_program(device_range, std::move(program));
}

// ---- MeshCommandQueue ------------------------------------------------------

MeshCommandQueue::MeshCommandQueue(MeshDevice& device) : device_(device), queue_(device.native().command_queue()) {}

void MeshCommandQueue::enqueue_mesh_workload(MeshWorkload& mesh_workload, bool blocking) {
  if (mesh_workload.ranges_in_order().empty())
    throw tessel::ValidationError(
        "EnqueueMeshWorkload: the workload has no programs; add one with "
        "workload.add_program(MeshCoordinateRange(mesh_device->shape()), std::move(program))");
  for (const MeshCoordinateRange& range : mesh_workload.ranges_in_order())
    check_range(range, "EnqueueMeshWorkload");
  for (const MeshCoordinateRange& range : mesh_workload.ranges_in_order())
    queue_.enqueue_program(mesh_workload.get_programs().at(range).native(), blocking);
}

void MeshCommandQueue::enqueue_write_mesh_buffer(const std::shared_ptr<MeshBuffer>& mesh_buffer, const void* host_data,
                                                 bool blocking) {
  if (!mesh_buffer) throw tessel::ValidationError("enqueue_write_mesh_buffer: null mesh buffer");
  queue_.enqueue_write_buffer(mesh_buffer->get_backing_buffer()->native(), host_data, mesh_buffer->size(), blocking);
}

void MeshCommandQueue::enqueue_read_mesh_buffer(void* host_data, const std::shared_ptr<MeshBuffer>& mesh_buffer,
                                                bool blocking) {
  if (!mesh_buffer) throw tessel::ValidationError("enqueue_read_mesh_buffer: null mesh buffer");
  queue_.enqueue_read_buffer(mesh_buffer->get_backing_buffer()->native(), host_data, mesh_buffer->size(), blocking);
}

void MeshCommandQueue::finish() { queue_.finish(); }

// ---- Free functions --------------------------------------------------------

void EnqueueMeshWorkload(MeshCommandQueue& mesh_cq, MeshWorkload& mesh_workload, bool blocking) {
  mesh_cq.enqueue_mesh_workload(mesh_workload, blocking);
}

MeshEvent EnqueueRecordEvent(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids,
                             const std::optional<MeshCoordinateRange>& device_range) {
  check_no_sub_devices(sub_device_ids, "EnqueueRecordEvent");
  if (device_range) check_range(*device_range, "EnqueueRecordEvent");
  auto event = std::make_shared<tessel::Event>();
  mesh_cq.native().enqueue_record_event(event);
  return MeshEvent(std::move(event), mesh_cq.device(), kUnitRange);
}

MeshEvent EnqueueRecordEventToHost(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids,
                                   const std::optional<MeshCoordinateRange>& device_range) {
  return EnqueueRecordEvent(mesh_cq, sub_device_ids, device_range);
}

void EnqueueWaitForEvent(MeshCommandQueue& mesh_cq, const MeshEvent& event) {
  mesh_cq.native().enqueue_wait_for_event(event.native_ptr());
}

void EventSynchronize(const MeshEvent& event) { tessel::event_synchronize(event.native()); }

bool EventQuery(const MeshEvent& event) { return tessel::event_query(event.native()); }

MeshTraceId BeginTraceCapture(MeshDevice* device, uint8_t cq_id) {
  return checked(device, "BeginTraceCapture").begin_mesh_trace(cq_id);
}

void EndTraceCapture(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id) {
  checked(device, "EndTraceCapture").end_mesh_trace(cq_id, trace_id);
}

void ReplayTrace(MeshDevice* device, uint8_t cq_id, const MeshTraceId& trace_id, bool blocking) {
  checked(device, "ReplayTrace").replay_mesh_trace(cq_id, trace_id, blocking);
}

void ReleaseTrace(MeshDevice* device, const MeshTraceId& trace_id) {
  checked(device, "ReleaseTrace").release_mesh_trace(trace_id);
}

void Synchronize(MeshDevice* device, std::optional<uint8_t> cq_id, std::span<const SubDeviceId> sub_device_ids) {
  check_no_sub_devices(sub_device_ids, "Synchronize");
  checked(device, "Synchronize").mesh_command_queue(cq_id).finish();
}

void Finish(MeshCommandQueue& mesh_cq, std::span<const SubDeviceId> sub_device_ids) {
  check_no_sub_devices(sub_device_ids, "Finish");
  mesh_cq.finish();
}

} // namespace tt::tt_metal::distributed
