// The real-time profiler's callbacks and the records of program runs.
#include "realtime_profiler.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/program_state.hpp"
#include "tessel/error.hpp"
#include "tt-metalium/experimental/realtime_profiler.hpp"

namespace tt::tt_metal {

namespace {

using Callback =
    std::variant<experimental::ProgramRealtimeProfilerCallback, experimental::ProgramRealtimeProfilerBatchCallback>;

// Reports hold the lock shared; unregistering takes it exclusively, so it
// waits for reports in flight.
std::shared_mutex g_mutex;
std::map<uint64_t, Callback> g_callbacks; // by handle: registration order
uint64_t g_last_handle = 0;
// Per chip: the end of its last timed run (estimated device cycles).
std::mutex g_clock_mutex;
std::map<const tessel::Device*, uint64_t> g_estimated_clock;
// Per device: its chip id and how many IDevices name it.
std::map<const tessel::Device*, std::pair<uint32_t, uint32_t>> g_chip_ids;

uint32_t chip_id_of(const tessel::Device& device) {
  std::lock_guard lock(g_clock_mutex);
  const auto it = g_chip_ids.find(&device);
  return it == g_chip_ids.end() ? 0 : it->second.first;
}

uint64_t register_callback(Callback callback) {
  std::unique_lock lock(g_mutex);
  g_callbacks.emplace(++g_last_handle, std::move(callback));
  return g_last_handle;
}

uint64_t host_cycles(double cycles_per_ns) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
  return uint64_t(double(ns.count()) * cycles_per_ns);
}

} // namespace

namespace experimental {

ProgramRealtimeProfilerCallbackHandle
RegisterProgramRealtimeProfilerCallback(ProgramRealtimeProfilerCallback callback) {
  return register_callback(std::move(callback));
}

ProgramRealtimeProfilerCallbackHandle
RegisterProgramRealtimeProfilerCallback(ProgramRealtimeProfilerBatchCallback callback) {
  return register_callback(std::move(callback));
}

void UnregisterProgramRealtimeProfilerCallback(ProgramRealtimeProfilerCallbackHandle handle) {
  std::unique_lock lock(g_mutex);
  if (g_callbacks.erase(handle) == 0)
    throw tessel::ValidationError("UnregisterProgramRealtimeProfilerCallback: callback " + std::to_string(handle) +
                                  " is not registered (never, or already unregistered)");
}

bool IsProgramRealtimeProfilerActive() { return true; }

} // namespace experimental

namespace detail {

void note_chip_id(const tessel::Device& device, uint32_t chip_id) {
  std::lock_guard lock(g_clock_mutex);
  auto& [id, count] = g_chip_ids[&device];
  id = chip_id;
  ++count;
}

void forget_chip_id(const tessel::Device& device) {
  std::lock_guard lock(g_clock_mutex);
  const auto it = g_chip_ids.find(&device);
  if (it != g_chip_ids.end() && --it->second.second == 0) {
    g_chip_ids.erase(it);
    g_estimated_clock.erase(&device);
  }
}

void run_and_report(tessel::Device& device, const Program& program, const std::function<void()>& run) {
  {
    std::shared_lock lock(g_mutex);
    if (g_callbacks.empty()) {
      lock.unlock();
      run();
      return;
    }
  }
  const double cycles_per_ns = double(device.clock_mhz()) / 1000.0;
  const uint64_t host_start = host_cycles(cycles_per_ns);
  run();
  uint64_t start = host_start, end = host_cycles(cycles_per_ns);
  if (device.timing_enabled()) {
    std::lock_guard lock(g_clock_mutex);
    uint64_t& clock = g_estimated_clock[&device];
    start = clock;
    end = clock += device.last_run_timing().device_cycles;
  }
  std::vector<std::string_view> sources;
  for (const auto& kernel : program.native().state().kernels)
    sources.emplace_back(kernel.name);
  const experimental::ProgramRealtimeRecord record{
      uint32_t(program.get_runtime_id() & 0xFFFF), chip_id_of(device), start, end, cycles_per_ns, sources};
  const experimental::ProgramRealtimeRecordBatch batch{std::span(&record, 1), 0};
  std::shared_lock lock(g_mutex);
  for (const auto& [handle, callback] : g_callbacks) {
    if (const auto* each = std::get_if<experimental::ProgramRealtimeProfilerCallback>(&callback))
      (*each)(record);
    else
      std::get<experimental::ProgramRealtimeProfilerBatchCallback>(callback)(batch);
  }
}

} // namespace detail

} // namespace tt::tt_metal
