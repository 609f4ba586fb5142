// What silicon has at a NoC coordinate, from TT-Metalium's SoC descriptors
// (NoC 0 coordinates of a full, unharvested chip: Blackhole's 17x12 grid,
// Wormhole's 10x12). tessel lays out its own NoC (arch.hpp: workers from
// (1,1) or (1,2), DRAM bank b at (0,b)); this table names what a kernel that
// uses a fixed coordinate would reach on silicon where tessel has no core or
// bank, so the NoC calls can say so (noc_api.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "sim/arch.hpp"

namespace tessel::sim {

struct SiliconTile {
  enum class Kind { Tensix, Ethernet, Dram, Pcie, Arc, RouterOnly, OutsideGrid };
  Kind kind = Kind::OutsideGrid;
  uint32_t dram_channel = 0; // Kind::Dram: the channel whose endpoint this is
  uint32_t l1_bytes = 0;     // Kind::Ethernet: the core's L1
};

SiliconTile silicon_tile_at(const ArchSpec& arch, uint32_t x, uint32_t y);

// "an Ethernet core", "an endpoint of DRAM channel 2", "a router-only tile
// (a NoC router with no memory behind it)", ...
std::string silicon_tile_text(const ArchSpec& arch, const SiliconTile& tile);

} // namespace tessel::sim
