// TT-Metalium's real-time profiler: callbacks that receive a record of each
// program run (its runtime id, chip, start and end timestamps in device
// cycles, the clock, its kernels' sources).
//
// tessel reports every program a compat call runs (EnqueueProgram,
// EnqueueMeshWorkload once per chip, detail::LaunchProgram; not runs replayed
// from a trace), on the calling thread, after the run and before the call
// returns, in registration order. Timestamps count cycles of the chip's
// clock: the cycle estimate's device time when the device estimates time
// (TESSEL_TIMING=1, docs/timing.md), else host time converted at the clock.
// The runtime id is truncated to 16 bits, as Metalium's is. Nothing is ever
// dropped (a batch's `dropped` is 0).
//
// Thread-safety: registration and reports may come from any thread;
// unregistering waits for a report in flight on another thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace tt::tt_metal::experimental {

struct ProgramRealtimeRecord {
  uint32_t runtime_id;                              // Program::get_runtime_id(), low 16 bits
  uint32_t chip_id;                                 // the chip's device id
  uint64_t start_timestamp;                         // device cycles
  uint64_t end_timestamp;                           // device cycles
  double frequency;                                 // cycles per ns
  std::span<const std::string_view> kernel_sources; // valid during the callback
};

// The records of one report (one record per program run).
struct ProgramRealtimeRecordBatch {
  std::span<const ProgramRealtimeRecord> records;
  uint64_t dropped = 0;
};

using ProgramRealtimeProfilerCallback = std::function<void(const ProgramRealtimeRecord& record)>;
using ProgramRealtimeProfilerBatchCallback = std::function<void(const ProgramRealtimeRecordBatch& batch)>;
using ProgramRealtimeProfilerCallbackHandle = uint64_t;

// A callback for each record, or for each batch; returns its handle.
ProgramRealtimeProfilerCallbackHandle RegisterProgramRealtimeProfilerCallback(ProgramRealtimeProfilerCallback callback);
ProgramRealtimeProfilerCallbackHandle
RegisterProgramRealtimeProfilerCallback(ProgramRealtimeProfilerBatchCallback callback);
// Throws tessel::ValidationError for a handle that is not registered.
void UnregisterProgramRealtimeProfilerCallback(ProgramRealtimeProfilerCallbackHandle handle);
// Always true: every program run is reported.
bool IsProgramRealtimeProfilerActive();

} // namespace tt::tt_metal::experimental
