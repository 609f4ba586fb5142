// Architecture presets: the numbers a simulated chip is built from.
//
// Logical worker (x, y) maps to NoC (x + worker_noc_x0, y + worker_noc_y0);
// DRAM bank b sits at NoC (0, b). Any consistent mapping is allowed (kernels
// learn coordinates only from the host or the bank tables); this one keeps
// worker rectangles contiguous so multicast rectangles map one to one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tessel::sim {

struct ArchSpec {
  std::string name;
  uint32_t grid_x = 0; // worker columns
  uint32_t grid_y = 0; // worker rows
  uint32_t l1_size_bytes = 0;
  uint32_t dram_banks = 0;
  uint64_t dram_bank_size_bytes = 0;
  uint32_t l1_alignment = 16;
  uint32_t dram_read_alignment = 32;
  uint32_t dram_write_alignment = 16;
  uint32_t num_cb_indices = 32;
  uint32_t clock_mhz = 1000;
  uint32_t worker_noc_x0 = 1;
  uint32_t worker_noc_y0 = 1;
  // TT-Metalium's virtual ("translated") worker coordinates, where they differ
  // from the ones above: logical (x, y) is also NoC (x + virtual_worker_x0,
  // y + virtual_worker_y0) (Wormhole: 18, 18); 0: none.
  uint32_t virtual_worker_x0 = 0;
  uint32_t virtual_worker_y0 = 0;

  uint32_t core_count() const { return grid_x * grid_y; }
  // Metalium's DRAM_ALIGNMENT: the larger of the DRAM read and write
  // alignments (64 bytes on Blackhole, 32 on Wormhole). Its allocator starts
  // and sizes every buffer's range in a bank, L1 ones too, at this alignment.
  uint32_t dram_alignment() const {
    return dram_read_alignment > dram_write_alignment ? dram_read_alignment : dram_write_alignment;
  }
};

// "blackhole" (default) or "wormhole_b0"; throws ValidationError otherwise.
ArchSpec arch_preset(std::string_view name);
// The preset with its worker grid replaced (1x1 .. preset limits of the NoC).
ArchSpec with_grid(ArchSpec arch, uint32_t grid_x, uint32_t grid_y);

// NoC coordinates are 6 bits each.
inline constexpr uint32_t kMaxNocCoord = 63;
// One L1 bank per worker core; the kernel ABI's bank table holds this many.
inline constexpr uint32_t kMaxCores = 256;

} // namespace tessel::sim
