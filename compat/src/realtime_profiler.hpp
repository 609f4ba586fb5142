// The compat layer's side of the real-time profiler: program runs report
// through run_and_report (tt-metalium/experimental/realtime_profiler.hpp).
#pragma once

#include <cstdint>
#include <functional>

#include "tessel/device.hpp"
#include "tt-metalium/program.hpp"

namespace tt::tt_metal::detail {

// Runs `run` (one run of `program` on `device`) and, when a callback is
// registered, reports it under the chip id an IDevice gave the device.
void run_and_report(tessel::Device& device, const Program& program, const std::function<void()>& run);

// Each IDevice names its tessel device's chip id while it lives (a mesh and
// its chip (0, 0) name the same device alike).
void note_chip_id(const tessel::Device& device, uint32_t chip_id);
void forget_chip_id(const tessel::Device& device);

} // namespace tt::tt_metal::detail
