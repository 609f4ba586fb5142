// CommandQueue: moves data between host and device buffers and runs
// programs on the device, in order.
//
// Every command completes before its enqueue call returns (the simulated
// device executes it on the calling thread), so `blocking` only matters for
// source compatibility and finish() returns at once. A failed command throws
// and leaves the device usable.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tessel/buffer.hpp"

namespace tessel {

class Device;
class Program;

class CommandQueue {
public:
  explicit CommandQueue(Device& device) : device_(device) {}

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
  void finish();

  uint64_t programs_run() const { return programs_run_; }

private:
  Device& device_;
  uint64_t programs_run_ = 0;
};

} // namespace tessel
