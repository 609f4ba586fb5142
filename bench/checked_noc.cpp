// checked_noc: what the checked NoC mode (docs/guide.md, "NoC modes") costs.
// The pipeline copy (copy_multi_core's program) and the element-wise add
// (eltwise_binary's) on all 120 cores of a Blackhole, each on two devices in
// the same process, eager and checked, runs interleaved so that drift hits
// both alike. The figure is checked time over eager time; the outputs must
// be byte-identical.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"
#include "tessel/tessel.hpp"

namespace tessel::bench {

namespace {

ProgramSetup make_setup(const char* noc, bool eltwise, uint32_t tiles_per_core) {
  DeviceConfig config;
  config.noc = noc;
  return make_program_setup(config, eltwise, tiles_per_core);
}

std::vector<uint8_t> output(ProgramSetup& s) {
  std::vector<uint8_t> out;
  s.device->command_queue().enqueue_read_buffer(*s.c, out);
  return out;
}

void measure(const std::string& label, bool eltwise, uint32_t tiles_per_core) {
  ProgramSetup eager = make_setup("eager", eltwise, tiles_per_core);
  ProgramSetup checked = make_setup("checked", eltwise, tiles_per_core);
  if (output(eager) != output(checked)) {
    std::printf("%s_error the checked mode's output differs from the eager one's\n", label.c_str());
    return;
  }
  const uint32_t tiles = 120 * tiles_per_core;
  const int repeats = std::max(5, int(40000 / tiles));
  double t_eager = 1e30, t_checked = 1e30;
  for (int round = 0; round < 3; ++round) {
    t_eager = std::min(t_eager, best_run_seconds(eager.device->command_queue(), eager.program, repeats));
    t_checked = std::min(t_checked, best_run_seconds(checked.device->command_queue(), checked.program, repeats));
  }
  figure(label + "_eager_ns_per_tile", t_eager / tiles * 1e9, "ns");
  figure(label + "_checked_ns_per_tile", t_checked / tiles * 1e9, "ns");
  figure(label + "_checked_over_eager", t_checked / t_eager, "x");
}

} // namespace

void run_checked_noc() {
  measure("checked_noc_pipeline", false, 32);
  measure("checked_noc_eltwise", true, 32);
}

} // namespace tessel::bench
