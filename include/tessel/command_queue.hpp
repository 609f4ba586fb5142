// CommandQueue: moves data between host and device buffers and runs
// programs on the device, in order.
//
// Every command completes before its enqueue call returns (the simulated
// device executes it on the calling thread), so `blocking` only matters for
// source compatibility and finish() returns at once. A failed command throws
// and leaves the device usable.
//
// Events (event.hpp) mark points in the queue: enqueue_record_event,
// enqueue_wait_for_event, synchronize, query.
//
// Traces: between begin_trace_capture() and end_trace_capture(id), each
// enqueue_program is validated and planned (compiling its kernels if needed)
// but not run: the launch is recorded with its dispatch values as they are at
// that moment (runtime and common args, CB and semaphore configuration).
// replay_trace(id) runs the recorded launches in order, without re-planning;
// later changes to the programs, or their destruction, do not affect it. The
// buffers whose addresses the recorded args hold must stay allocated. While a
// capture is open, every other queue command (buffer writes and reads, event
// records and waits, finish, replay_trace) and Buffer::create on this device
// throw ValidationError, leaving the capture open and unchanged.
//
// Ownership: owned by its Device (Device::command_queue()). Traces live in the
// queue until release_trace or the device is destroyed.
// Thread-safety: one host thread at a time, as for the device.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tessel/buffer.hpp"

namespace tessel {

class Device;
class Event;
class Program;
namespace runtime {
struct QueueProgress;
struct Trace;
} // namespace runtime

class CommandQueue {
public:
  explicit CommandQueue(Device& device);
  ~CommandQueue();
  CommandQueue(const CommandQueue&) = delete;
  CommandQueue& operator=(const CommandQueue&) = delete;

  // The device whose queue this is.
  Device& device() const { return device_; }

  void enqueue_write_buffer(Buffer& buffer, const void* src, uint64_t size_bytes, bool blocking = true);
  template <typename T>
  void enqueue_write_buffer(Buffer& buffer, const std::vector<T>& src, bool blocking = true) {
    enqueue_write_buffer(buffer, src.data(), src.size() * sizeof(T), blocking);
  }
  void enqueue_read_buffer(Buffer& buffer, void* dst, uint64_t size_bytes, bool blocking = true);
  // Resizes dst to the buffer's size; dst is unchanged if the read fails.
  template <typename T>
  void enqueue_read_buffer(Buffer& buffer, std::vector<T>& dst, bool blocking = true) {
    std::vector<T> out(buffer.size() / sizeof(T));
    enqueue_read_buffer(buffer, out.data(), out.size() * sizeof(T), blocking);
    dst = std::move(out);
  }
  void enqueue_program(Program& program, bool blocking = true);
  // Validate the program against this device and build its kernels without
  // running it (enqueue_program does this on first use). Throws as enqueue would.
  void compile_program(Program& program);
  // Returns once every command enqueued so far has completed. Not allowed
  // during a trace capture.
  void finish();

  // Events (event.hpp). Recording marks the point after every command
  // enqueued so far; the event binds to this queue's device on its first
  // record and moves to the new point when recorded again.
  void enqueue_record_event(const std::shared_ptr<Event>& event);
  // Commands enqueued after this start once `event` (recorded on this device)
  // has completed.
  void enqueue_wait_for_event(const std::shared_ptr<Event>& event);
  // Block the host until `event` (recorded on this device) has completed.
  void synchronize(const Event& event);
  // Whether `event` (recorded on this device) has completed.
  bool query(const Event& event);

  // Traces of program launches (see the top of this file). Ids count from 1
  // and are never reused on a queue.
  uint32_t begin_trace_capture();
  void end_trace_capture(uint32_t trace_id);
  void replay_trace(uint32_t trace_id, bool blocking = true);
  void release_trace(uint32_t trace_id);
  // Launches recorded in a captured trace (throws as replay_trace would for a
  // trace that does not exist or was released).
  uint32_t trace_launch_count(uint32_t trace_id) const;

  // Program launches executed (each launch of a replayed trace counts).
  uint64_t programs_run() const { return programs_run_; }

private:
  void reject_during_capture(const char* call) const;
  void check_recorded_here(const Event& event, const char* call) const;
  runtime::Trace& trace_at(uint32_t trace_id, const char* call) const;

  Device& device_;
  uint64_t programs_run_ = 0;
  // Events: the id of the last record; progress_ tells events what completed.
  uint32_t last_event_id_ = 0;
  std::shared_ptr<runtime::QueueProgress> progress_;
  // Traces by id - 1 (null once released). The one being captured is
  // DeviceState::capturing_trace_id (Buffer::create checks it too).
  std::vector<std::unique_ptr<runtime::Trace>> traces_;
};

} // namespace tessel
