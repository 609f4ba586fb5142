// TT-Metalium's tt::tt_metal::detail helpers: launching a program on a
// device without a command queue object, whole-buffer copies, tile sizes.
// All of them go through the device's command queue (command_queue.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tt-metalium/host_api.hpp"

namespace tt::tt_metal::detail {

// Runs `program` on `device` and returns when it has finished (every launch
// does; wait_until_cores_done and force_slow_dispatch change nothing).
void LaunchProgram(IDevice* device, Program& program, bool wait_until_cores_done = true,
                   bool force_slow_dispatch = false);
// Builds the program's kernels for `device` without running it.
void CompileProgram(IDevice* device, Program& program, bool force_slow_dispatch = false);

template <typename T>
void WriteToBuffer(const std::shared_ptr<Buffer>& buffer, const std::vector<T>& host_buffer) {
  EnqueueWriteBuffer(buffer_of(buffer, "detail::WriteToBuffer").device()->command_queue(), buffer, host_buffer, true);
}
template <typename T>
void ReadFromBuffer(const std::shared_ptr<Buffer>& buffer, std::vector<T>& host_buffer) {
  EnqueueReadBuffer(buffer_of(buffer, "detail::ReadFromBuffer").device()->command_queue(), buffer, host_buffer, true);
}

// Host reads and writes of a worker core's L1 (logical core, L1 address),
// with no program running: `size` bytes (a multiple of 4). Throw
// tessel::ValidationError for another core type, a core outside the grid or
// a range outside L1; return true.
bool ReadFromDeviceL1(IDevice* device, const CoreCoord& logical_core, uint32_t address, uint32_t size,
                      std::vector<uint32_t>& host_buffer, CoreType core_type = CoreType::WORKER);
bool WriteToDeviceL1(IDevice* device, const CoreCoord& logical_core, uint32_t address,
                     const std::vector<uint32_t>& host_buffer, CoreType core_type = CoreType::WORKER);

inline uint32_t TileSize(const tt::DataFormat& data_format) { return tt::tile_size(data_format); }

} // namespace tt::tt_metal::detail
