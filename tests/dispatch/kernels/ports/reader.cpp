// Ports: the group's first core sends arg 0 64-byte blocks to the second
// over port 3 (word i of block b = b * 1000 + i); the second waits for arg 1
// blocks, checks each and fails at the first wrong word.
#include "../basic.hpp"
#include "api/dataflow/dataflow_api.h"
#include "tessel/persistent.h"

void stream(const persistent::Command& c) {
  const uint32_t blocks = c.index == 0 ? c.arg(0) : c.arg(1);
  tessel_kernel_ctx* k = tessel_ctx();
  const uint32_t peer_index = c.first_core + 1 - c.index;
  const uint32_t xy = k->l1_bank_noc_xy[peer_index];
  const uint32_t region = get_write_ptr(kScratchCb);
  persistent::Port port(3, (xy & 0xFF) | (xy >> 8) << 16, region, 64, 1);
  if (c.index == 0) {
    for (uint32_t b = 0; b < blocks; ++b) {
      uint32_t block[16];
      for (uint32_t i = 0; i < 16; ++i)
        block[i] = b * 1000 + i;
      // The source must be L1: stage the block in this core's own ring slot.
      volatile uint32_t* staging = reinterpret_cast<volatile uint32_t*>(region);
      for (uint32_t i = 0; i < 16; ++i)
        staging[i] = block[i];
      port.send(region);
    }
  } else {
    port.open(blocks);
    for (uint32_t b = 0; b < blocks; ++b) {
      const volatile uint32_t* words = reinterpret_cast<const volatile uint32_t*>(port.receive());
      for (uint32_t i = 0; i < 16; ++i)
        if (words[i] != b * 1000 + i) k->api->fail(k, "ports: a block arrived with a wrong word", __FILE__, __LINE__);
      port.release(blocks - 1 - b);
    }
  }
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(6, stream)) // 6: no handler of the basic writer
