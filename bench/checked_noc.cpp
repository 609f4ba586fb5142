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
  compare_setups(label, checked, "checked", eager, "eager", tiles, std::max(5, int(40000 / tiles)));
}

} // namespace

void run_checked_noc() {
  measure("checked_noc_pipeline", false, 32);
  measure("checked_noc_eltwise", true, 32);
}

} // namespace tessel::bench
