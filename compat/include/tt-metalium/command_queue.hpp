// TT-Metalium's legacy command-queue calls over tessel::CommandQueue (the
// device's one queue, IDevice::command_queue()).
//
// Every command completes before its call returns, so `blocking` is kept for
// source compatibility only, Finish returns at once and a recorded event is
// already complete. Reads and writes move the whole buffer: a write takes
// buffer->size() bytes from src (a vector must hold at least that many), a
// read into a vector resizes it to the buffer's size.
//
// Traces record program launches between BeginTraceCapture and
// EndTraceCapture without running them; ReplayTrace (or EnqueueTrace) runs
// them with the args they had when captured. While a capture is open, other
// queue commands and buffer allocation throw (tessel::CommandQueue's rules).
// Only command queue 0 exists; other cq ids throw tessel::ValidationError.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tessel/error.hpp"
#include "tt-metalium/buffer.hpp"
#include "tt-metalium/device.hpp"
#include "tt-metalium/event.hpp"
#include "tt-metalium/program.hpp"

namespace tt::tt_metal {

using BufferRef = std::variant<std::reference_wrapper<Buffer>, std::shared_ptr<Buffer>>;

// The buffer a BufferRef names; throws tessel::ValidationError for a null shared_ptr.
Buffer& buffer_of(const BufferRef& buffer, const char* call);

// Writes buffer.size() bytes from src.
void EnqueueWriteBuffer(CommandQueue& cq, const BufferRef& buffer, const void* src, bool blocking);
template <typename T>
void EnqueueWriteBuffer(CommandQueue& cq, const BufferRef& buffer, const std::vector<T>& src, bool blocking) {
  const Buffer& b = buffer_of(buffer, "EnqueueWriteBuffer");
  if (src.size() * sizeof(T) < b.size())
    throw tessel::ValidationError("EnqueueWriteBuffer: the source vector holds " +
                                  std::to_string(src.size() * sizeof(T)) + " B, less than the buffer's " +
                                  std::to_string(b.size()) + " B; a write fills the whole buffer");
  EnqueueWriteBuffer(cq, buffer, static_cast<const void*>(src.data()), blocking);
}

// Reads buffer.size() bytes into dst.
void EnqueueReadBuffer(CommandQueue& cq, const BufferRef& buffer, void* dst, bool blocking);
// Resizes dst to the buffer's size (in T) and reads into it.
template <typename T>
void EnqueueReadBuffer(CommandQueue& cq, const BufferRef& buffer, std::vector<T>& dst, bool blocking) {
  Buffer& b = buffer_of(buffer, "EnqueueReadBuffer");
  cq.enqueue_read_buffer(b.native(), dst, blocking);
}

void EnqueueProgram(CommandQueue& cq, Program& program, bool blocking);
void Finish(CommandQueue& cq);

// Events (event.hpp).
void EnqueueRecordEvent(CommandQueue& cq, const std::shared_ptr<Event>& event);
void EnqueueWaitForEvent(CommandQueue& cq, const std::shared_ptr<Event>& event);
void EventSynchronize(const std::shared_ptr<Event>& event);
bool EventQuery(const std::shared_ptr<Event>& event);

// Traces of program launches on `device`'s queue; ids count from 1.
uint32_t BeginTraceCapture(IDevice* device, uint8_t cq_id);
void EndTraceCapture(IDevice* device, uint8_t cq_id, uint32_t trace_id);
void ReplayTrace(IDevice* device, uint8_t cq_id, uint32_t trace_id, bool blocking);
void ReleaseTrace(IDevice* device, uint32_t trace_id);
void EnqueueTrace(CommandQueue& cq, uint32_t trace_id, bool blocking);

} // namespace tt::tt_metal
