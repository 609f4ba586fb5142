#include "sim/arch.hpp"

#include "tessel/error.hpp"

namespace tessel::sim {

namespace {
constexpr uint32_t kKiB = 1024;
constexpr uint64_t kGiB = 1024ull * 1024 * 1024;
} // namespace

ArchSpec arch_preset(std::string_view name) {
  ArchSpec a;
  if (name == "blackhole" || name.empty()) {
    a.name = "blackhole";
    a.grid_x = 12;
    a.grid_y = 10;
    a.l1_size_bytes = 1464 * kKiB;
    a.dram_banks = 8;
    a.dram_bank_size_bytes = 4 * kGiB;
    a.l1_alignment = 16;
    a.dram_read_alignment = 64;
    a.dram_write_alignment = 16;
    a.num_cb_indices = 64;
    a.worker_noc_x0 = 1;
    a.worker_noc_y0 = 2;
    a.clock_mhz = 1350; // AICLK up to 1.35 GHz (docs.tenstorrent.com, Blackhole specifications)
    return a;
  }
  if (name == "wormhole_b0" || name == "wormhole") {
    a.name = "wormhole_b0";
    a.grid_x = 8;
    a.grid_y = 8;
    a.l1_size_bytes = 1464 * kKiB;
    a.dram_banks = 12;
    a.dram_bank_size_bytes = 1 * kGiB;
    a.l1_alignment = 16;
    a.dram_read_alignment = 32;
    a.dram_write_alignment = 16;
    a.num_cb_indices = 32;
    a.worker_noc_x0 = 1;
    a.worker_noc_y0 = 1;
    // Kernels written for Wormhole name worker (0,0) as virtual NoC (18,18).
    a.virtual_worker_x0 = 18;
    a.virtual_worker_y0 = 18;
    return a;
  }
  throw ValidationError("unknown architecture '" + std::string(name) + "': expected 'blackhole' or 'wormhole_b0'");
}

ArchSpec with_grid(ArchSpec arch, uint32_t grid_x, uint32_t grid_y) {
  const uint32_t max_x = kMaxNocCoord - arch.worker_noc_x0 + 1;
  const uint32_t max_y = kMaxNocCoord - arch.worker_noc_y0 + 1;
  if (grid_x == 0 || grid_y == 0 || grid_x > max_x || grid_y > max_y)
    throw ValidationError("grid " + std::to_string(grid_x) + "x" + std::to_string(grid_y) + " is not valid for " +
                          arch.name + ": expected 1x1 up to " + std::to_string(max_x) + "x" + std::to_string(max_y));
  if (grid_x * grid_y > kMaxCores)
    throw ValidationError("grid " + std::to_string(grid_x) + "x" + std::to_string(grid_y) + " has " +
                          std::to_string(grid_x * grid_y) + " cores: at most " + std::to_string(kMaxCores) +
                          " are supported");
  arch.grid_x = grid_x;
  arch.grid_y = grid_y;
  return arch;
}

} // namespace tessel::sim
