#include "sim/silicon_tiles.hpp"

namespace tessel::sim {

namespace {

using Kind = SiliconTile::Kind;

SiliconTile tile(Kind kind, uint32_t dram_channel = 0, uint32_t l1_bytes = 0) { return {kind, dram_channel, l1_bytes}; }

// The channel of the DRAM endpoint at row y of a DRAM column on either arch:
// the columns list their channels' three endpoints as rows {0,1,11} first,
// then (Blackhole) {2,10,3}, {9,4,8}, {5,7,6} or (Wormhole, column 5)
// {2,9,10}, {3,4,8}, {5,6,7}.
int blackhole_dram_group(uint32_t y) {
  switch (y) {
  case 0:
  case 1:
  case 11: return 0;
  case 2:
  case 10:
  case 3: return 1;
  case 9:
  case 4:
  case 8: return 2;
  default: return 3; // 5, 7, 6
  }
}

int wormhole_column5_group(uint32_t y) {
  switch (y) {
  case 0:
  case 1:
  case 11: return 0;
  case 2:
  case 9:
  case 10: return 1;
  case 3:
  case 4:
  case 8: return 2;
  default: return 3; // 5, 6, 7
  }
}

// blackhole_140_arch.yaml
SiliconTile blackhole(uint32_t x, uint32_t y) {
  if (x >= 17 || y >= 12) return tile(Kind::OutsideGrid);
  if (x == 0 || x == 9) return tile(Kind::Dram, uint32_t(blackhole_dram_group(y) + (x == 9 ? 4 : 0)));
  if (y == 0) {
    if (x == 2 || x == 11) return tile(Kind::Pcie);
    if (x == 8) return tile(Kind::Arc);
    return tile(Kind::RouterOnly);
  }
  if (x == 8) return tile(Kind::RouterOnly);
  if (y == 1) return tile(Kind::Ethernet, 0, 512 * 1024);
  return tile(Kind::Tensix);
}

// wormhole_b0_80_arch.yaml
SiliconTile wormhole(uint32_t x, uint32_t y) {
  if (x >= 10 || y >= 12) return tile(Kind::OutsideGrid);
  if (x == 0) {
    switch (y) {
    case 0:
    case 1:
    case 11: return tile(Kind::Dram, 0);
    case 5:
    case 6:
    case 7: return tile(Kind::Dram, 1);
    case 3: return tile(Kind::Pcie);
    case 10: return tile(Kind::Arc);
    default: return tile(Kind::RouterOnly); // 2, 4, 8, 9
    }
  }
  if (x == 5) return tile(Kind::Dram, uint32_t(2 + wormhole_column5_group(y)));
  if (y == 0 || y == 6) return tile(Kind::Ethernet, 0, 256 * 1024);
  return tile(Kind::Tensix);
}

} // namespace

SiliconTile silicon_tile_at(const ArchSpec& arch, uint32_t x, uint32_t y) {
  return arch.name == "wormhole_b0" ? wormhole(x, y) : blackhole(x, y);
}

std::string silicon_tile_text(const ArchSpec& arch, const SiliconTile& t) {
  switch (t.kind) {
  case Kind::Tensix: return "a Tensix core outside this device's grid";
  case Kind::Ethernet: return "an Ethernet core";
  case Kind::Dram: return "an endpoint of DRAM channel " + std::to_string(t.dram_channel);
  case Kind::Pcie: return "the PCIe tile";
  case Kind::Arc: return "the ARC tile";
  case Kind::RouterOnly: return "a router-only tile (a NoC router with no memory behind it)";
  case Kind::OutsideGrid: break;
  }
  return std::string("outside the chip's NoC grid (") + (arch.name == "wormhole_b0" ? "10x12" : "17x12") + ")";
}

} // namespace tessel::sim
