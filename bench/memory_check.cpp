// memory_check: what the device-memory checker costs. The pipeline copy
// (copy_multi_core's program) and the element-wise add (eltwise_binary's)
// on all 120 cores of a Blackhole, each on two devices in the same process,
// one with the checker and one without, runs interleaved so that drift hits
// both alike. The figure is checked time over unchecked time.
#include <algorithm>
#include <string>
#include <vector>

#include "bench.hpp"
#include "example.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::bench {

namespace {

ProgramSetup make_setup(bool checked, bool eltwise, uint32_t tiles_per_core) {
  DeviceConfig config;
  config.check_memory = checked;
  return make_program_setup(config, eltwise, tiles_per_core);
}

void measure(const std::string& label, bool eltwise, uint32_t tiles_per_core) {
  ProgramSetup on = make_setup(true, eltwise, tiles_per_core), off = make_setup(false, eltwise, tiles_per_core);
  const uint32_t tiles = 120 * tiles_per_core;
  compare_setups(label, on, "checked", off, "unchecked", tiles, std::max(7, int(40000 / tiles)));
}

} // namespace

void run_memory_check() {
  measure("memory_check_pipeline_small", false, 8);
  measure("memory_check_pipeline", false, 32);
  measure("memory_check_eltwise_small", true, 8);
  measure("memory_check_eltwise", true, 32);
}

} // namespace tessel::bench
