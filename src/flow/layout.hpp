// Where a design's tables, locks and pools live in its cores' L1
// (tessel/iron_abi.h), and the initial image of every core's table.
// Internal to flow.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessel/flow/design.hpp"

namespace tessel::sim {
class Chip;
}

namespace tessel::flow {

// One lock word: where it lives and what it counts, for reports and the
// end-of-call check.
struct LockInfo {
  uint32_t core = 0; // index into Layout::cores
  uint32_t addr = 0; // L1 address
  uint32_t pool = 0, segment = 0;
  bool free_lock = false; // free (initial depth) or full (initial 0)
  uint32_t initial = 0;
};

struct CoreImage {
  CoreCoord core;
  uint32_t chip_index = 0; // sim core index
  uint32_t noc_xy = 0;
  int32_t worker = -1;
  std::vector<uint32_t> channels; // design channel numbers served here
  std::vector<uint8_t> table;     // bytes from IRON_TABLE_L1
  uint32_t handles_addr = 0, channels_addr = 0, barriers_addr = 0;
  std::vector<uint32_t> rtp_addrs;
};

struct Layout {
  std::vector<CoreImage> cores;
  std::vector<LockInfo> locks;
  std::vector<uint32_t> channel_core;  // per channel: index into cores
  std::vector<uint32_t> channel_addr;  // per channel: L1 address of its iron_channel
  std::vector<uint32_t> stream_buffer; // per channel: L1 address of its layout-transform buffer (0: none)
  std::vector<uint32_t> worker_core;   // per worker: index into cores
  uint32_t region_bytes = 0;           // the largest table + pools, from IRON_TABLE_L1
};

// Validated spec in, layout out (ValidationError when a core's L1 is too
// small, naming the core and its pools).
Layout lay_out(const DesignSpec& spec, sim::Chip& chip, uint32_t l1_bytes);

} // namespace tessel::flow
