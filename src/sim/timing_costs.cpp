// The timing model's constants per architecture (docs/timing.md, "Constants",
// names each one's source; "assumed" ones have none and are rough).
#include "sim/timing.hpp"

namespace tessel::sim {

TimingCosts timing_costs(const ArchSpec& arch) {
  TimingCosts c;
  c.clock_mhz = arch.clock_mhz;
  const double cycles_per_ns = arch.clock_mhz / 1000.0;
  if (arch.name == "wormhole_b0") {
    c.noc_bytes_per_cycle = 32;                                  // NoC interface 256 bits/cycle
    c.dram_bank_bytes_per_cycle = 288.0 / cycles_per_ns / 12;    // n150: 288 GB/s over 12 banks
    c.dispatch_cycles = 1050;                                    // null program, 1 core: 1.05 us
    c.dispatch_per_core_millicycles = (1210 - 1050) * 1000 / 63; // all 64 cores: 1.21 us
  } else {
    c.noc_bytes_per_cycle = 64;                                // NoC interface 512 bits/cycle
    c.dram_bank_bytes_per_cycle = 512.0 / cycles_per_ns / 8;   // p150: 512 GB/s over 8 banks
    c.dispatch_cycles = uint32_t(0.92 * arch.clock_mhz + 0.5); // null program, 1 core: 0.92 us
    c.dispatch_per_core_millicycles = uint32_t((0.94 - 0.92) * arch.clock_mhz * 1000 / 119 + 0.5); // 120: 0.94 us
  }
  // Both: the matrix engine's 8x16 x 16x16 per cycle (4096 flops) at LoFi, so
  // a 32x32x32 tile product takes 16 cycles per fidelity phase; eltwise
  // add/sub 8x16 per cycle (8 per tile); reduce 16x16 per cycle (4 per tile).
  c.matmul_tile_cycles = 16;
  c.eltwise_tile_cycles = 8;
  c.reduce_tile_cycles = 4;
  return c;
}

} // namespace tessel::sim
