// The legacy command-queue calls, events and traces, and detail::LaunchProgram:
// each forwards to the device's tessel::CommandQueue.
#include <string>

#include <cstring>

#include "realtime_profiler.hpp"
#include "runtime/device_state.hpp"
#include "tessel/error.hpp"
#include "tessel/event.hpp"
#include "tt-metalium/command_queue.hpp"
#include "tt-metalium/tt_metal.hpp"

namespace tt::tt_metal {

namespace {

IDevice& checked(IDevice* device, const char* call) {
  if (!device) throw tessel::ValidationError(std::string(call) + ": null device");
  return *device;
}

CommandQueue& queue(IDevice* device, uint8_t cq_id, const char* call) {
  if (cq_id != 0)
    throw tessel::ValidationError(std::string(call) + ": command queue " + std::to_string(cq_id) +
                                  " does not exist; tessel devices have one command queue, id 0");
  return checked(device, call).command_queue();
}

const std::shared_ptr<Event>& checked(const std::shared_ptr<Event>& event, const char* call) {
  if (!event)
    throw tessel::ValidationError(std::string(call) + ": null event (create one with std::make_shared<Event>())");
  return event;
}

} // namespace

Buffer& buffer_of(const BufferRef& buffer, const char* call) {
  if (const auto* ref = std::get_if<std::reference_wrapper<Buffer>>(&buffer)) return ref->get();
  const std::shared_ptr<Buffer>& ptr = std::get<std::shared_ptr<Buffer>>(buffer);
  if (!ptr) throw tessel::ValidationError(std::string(call) + ": null buffer");
  return *ptr;
}

void EnqueueWriteBuffer(CommandQueue& cq, const BufferRef& buffer, const void* src, bool blocking) {
  Buffer& b = buffer_of(buffer, "EnqueueWriteBuffer");
  cq.enqueue_write_buffer(b.native(), src, b.size(), blocking);
}

void EnqueueReadBuffer(CommandQueue& cq, const BufferRef& buffer, void* dst, bool blocking) {
  Buffer& b = buffer_of(buffer, "EnqueueReadBuffer");
  cq.enqueue_read_buffer(b.native(), dst, b.size(), blocking);
}

void EnqueueProgram(CommandQueue& cq, Program& program, bool blocking) {
  detail::run_and_report(cq.device(), program, [&] { cq.enqueue_program(program.native(), blocking); });
}

void Finish(CommandQueue& cq) { cq.finish(); }

void EnqueueRecordEvent(CommandQueue& cq, const std::shared_ptr<Event>& event) {
  cq.enqueue_record_event(checked(event, "EnqueueRecordEvent"));
}

void EnqueueWaitForEvent(CommandQueue& cq, const std::shared_ptr<Event>& event) {
  cq.enqueue_wait_for_event(checked(event, "EnqueueWaitForEvent"));
}

void EventSynchronize(const std::shared_ptr<Event>& event) {
  tessel::event_synchronize(*checked(event, "EventSynchronize"));
}

bool EventQuery(const std::shared_ptr<Event>& event) { return tessel::event_query(*checked(event, "EventQuery")); }

uint32_t BeginTraceCapture(IDevice* device, uint8_t cq_id) {
  return queue(device, cq_id, "BeginTraceCapture").begin_trace_capture();
}

void EndTraceCapture(IDevice* device, uint8_t cq_id, uint32_t trace_id) {
  queue(device, cq_id, "EndTraceCapture").end_trace_capture(trace_id);
}

void ReplayTrace(IDevice* device, uint8_t cq_id, uint32_t trace_id, bool blocking) {
  queue(device, cq_id, "ReplayTrace").replay_trace(trace_id, blocking);
}

void ReleaseTrace(IDevice* device, uint32_t trace_id) {
  checked(device, "ReleaseTrace").command_queue().release_trace(trace_id);
}

void EnqueueTrace(CommandQueue& cq, uint32_t trace_id, bool blocking) { cq.replay_trace(trace_id, blocking); }

namespace detail {

namespace {
uint8_t* l1_range(IDevice* device, const CoreCoord& core, uint32_t address, uint64_t size, CoreType core_type,
                  const char* call) {
  if (!device) throw tessel::ValidationError(std::string(call) + ": null device");
  if (core_type != CoreType::WORKER)
    throw tessel::ValidationError(std::string(call) + ": tessel simulates worker (Tensix) cores only");
  tessel::runtime::DeviceState& ds = device->native().state();
  ds.require_open(call);
  if (core.x >= ds.arch.grid_x || core.y >= ds.arch.grid_y)
    throw tessel::ValidationError(std::string(call) + ": core " + core.str() + " is outside the " +
                                  std::to_string(ds.arch.grid_x) + "x" + std::to_string(ds.arch.grid_y) + " grid");
  const uint64_t offset = address & TESSEL_L1_SLOT_MASK;
  if (size % 4 != 0 || offset + size > ds.arch.l1_size_bytes)
    throw tessel::ValidationError(std::string(call) + ": " + std::to_string(size) + " bytes at L1 " +
                                  std::to_string(offset) + " are not whole words inside L1 (" +
                                  std::to_string(ds.arch.l1_size_bytes) + " bytes)");
  return ds.chip->core(uint32_t(core.x), uint32_t(core.y)).l1 + offset;
}
} // namespace

bool ReadFromDeviceL1(IDevice* device, const CoreCoord& logical_core, uint32_t address, uint32_t size,
                      std::vector<uint32_t>& host_buffer, CoreType core_type) {
  const uint8_t* l1 = l1_range(device, logical_core, address, size, core_type, "detail::ReadFromDeviceL1");
  host_buffer.resize(size / 4);
  std::memcpy(host_buffer.data(), l1, size);
  return true;
}

bool WriteToDeviceL1(IDevice* device, const CoreCoord& logical_core, uint32_t address,
                     const std::vector<uint32_t>& host_buffer, CoreType core_type) {
  const uint64_t size = host_buffer.size() * 4;
  uint8_t* l1 = l1_range(device, logical_core, address, size, core_type, "detail::WriteToDeviceL1");
  std::memcpy(l1, host_buffer.data(), size);
  return true;
}

void LaunchProgram(IDevice* device, Program& program, bool /*wait_until_cores_done*/, bool /*force_slow_dispatch*/) {
  CommandQueue& cq = checked(device, "detail::LaunchProgram").command_queue();
  run_and_report(cq.device(), program, [&] { cq.enqueue_program(program.native(), true); });
}

void CompileProgram(IDevice* device, Program& program, bool /*force_slow_dispatch*/) {
  checked(device, "detail::CompileProgram").command_queue().compile_program(program.native());
}

} // namespace detail

} // namespace tt::tt_metal
