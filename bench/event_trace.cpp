// event_trace: what the event trace (docs/trace.md) costs. The pipeline copy
// (copy_multi_core's program: DRAM -> reader -> CB -> writer -> DRAM) and the
// element-wise add (reader -> compute -> writer) on all 120 cores of a
// Blackhole, each on three devices in the same process: untraced, traced to
// a file (every event streamed), and traced with a ring of 1000 events per
// RISC. Runs are interleaved so that drift hits all alike; the figures are
// traced time over untraced time, and the bytes the trace writes per tile.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "example.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::bench {

namespace {

ProgramSetup make_setup(const std::string& trace_path, uint64_t ring, bool eltwise, uint32_t tiles_per_core) {
  DeviceConfig config;
  config.trace_path = trace_path;
  config.trace_ring_events = ring;
  return make_program_setup(config, eltwise, tiles_per_core);
}

void measure(const std::string& label, bool eltwise, uint32_t tiles_per_core) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string stream_path = dir + "/tessel_bench_trace_" + std::to_string(getpid()) + ".json";
  const std::string ring_path = dir + "/tessel_bench_trace_ring_" + std::to_string(getpid()) + ".json";
  double t_off = 1e30, t_on = 1e30, t_ring = 1e30;
  const uint32_t tiles = 120 * tiles_per_core;
  const int repeats = std::max(7, int(40000 / tiles));
  uint64_t trace_bytes = 0, traced_runs = 0;
  {
    ProgramSetup off = make_setup("", 0, eltwise, tiles_per_core);
    ProgramSetup on = make_setup(stream_path, 0, eltwise, tiles_per_core);
    ProgramSetup ring = make_setup(ring_path, 1000, eltwise, tiles_per_core);
    const uint64_t bytes_before = std::filesystem::file_size(stream_path);
    for (int round = 0; round < 3; ++round) {
      t_off = std::min(t_off, best_run_seconds(off.device->command_queue(), off.program, repeats));
      t_on = std::min(t_on, best_run_seconds(on.device->command_queue(), on.program, repeats));
      t_ring = std::min(t_ring, best_run_seconds(ring.device->command_queue(), ring.program, repeats));
      traced_runs += uint64_t(repeats);
    }
    on.device->close(); // the trace is written out
    trace_bytes = std::filesystem::file_size(stream_path) - bytes_before;
  }
  std::filesystem::remove(stream_path);
  std::filesystem::remove(ring_path);
  figure(label + "_untraced_ns_per_tile", t_off / tiles * 1e9, "ns");
  figure(label + "_traced_ns_per_tile", t_on / tiles * 1e9, "ns");
  figure(label + "_traced_over_untraced", t_on / t_off, "x");
  figure(label + "_ring_over_untraced", t_ring / t_off, "x");
  figure(label + "_trace_bytes_per_tile", double(trace_bytes) / double(traced_runs * tiles), "B");
}

} // namespace

void run_event_trace() {
  measure("event_trace_pipeline", false, 32);
  measure("event_trace_eltwise", true, 32);
}

} // namespace tessel::bench
