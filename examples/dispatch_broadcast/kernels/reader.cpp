// broadcast, reader: the root (the group's leader) reads each block of the
// job from DRAM into its slot of the ring and multicasts it to the
// rectangle; every receiver waits for each block, adds its words to a
// checksum and releases the slot. Each core of the rectangle writes its
// checksum to the output tensor (page job * cores + its index).
#include "api/dataflow/dataflow_api.h"
#include "broadcast.hpp"
#include "tessel/persistent.h"

// The block is stable once received (the protocol's waits order it), so a
// plain loop the compiler may vectorise reads it.
uint32_t sum_words(uint32_t l1, uint32_t count) {
  const uint32_t* words = reinterpret_cast<const uint32_t*>(l1);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < count; ++i)
    sum += words[i];
  return sum;
}

void broadcast(const persistent::Command& c) {
  const uint32_t job = c.arg(kArgJob), blocks = c.arg(kArgBlocks), pages = c.arg(kArgShape) & 0xFFFF;
  const uint32_t window = c.arg(kArgShape) >> 16;
  const bool check = c.arg(kArgCheck) != 0;
  const uint32_t page_bytes = tessel_ctx()->cbs[kCbRegion].page_size; // the CB's page, as the host made it
  const uint32_t region = get_write_ptr(kCbRegion);
  persistent::Broadcast b(c, c.args, region, pages * page_bytes, window);
  const uint32_t x0 = c.arg(0) & 0xFFFF, y0 = c.arg(0) >> 16, x1 = c.arg(1) & 0xFFFF, y1 = c.arg(1) >> 16;
  const tessel_kernel_ctx* k = tessel_ctx();
  if (k->noc_x < x0 || k->noc_x > x1 || k->noc_y < y0 || k->noc_y > y1) return; // in the group, not the rectangle

  constexpr auto in_args = TensorAccessorArgs<0>();
  const auto input = TensorAccessor(in_args, c.arg(kArgInput), page_bytes);
  uint32_t checksum = 0;
  if (b.root()) {
    for (uint32_t block = 0; block < blocks; ++block) {
      const uint32_t slot = b.slot_address(block);
      for (uint32_t p = 0; p < pages; ++p)
        noc_async_read_page((job * blocks + block) * pages + p, input, slot + p * page_bytes);
      noc_async_read_barrier();
      if (check) checksum += sum_words(slot, pages * page_bytes / 4);
      b.send(block, slot);
    }
    b.finish(blocks);
  } else {
    b.open(blocks);
    for (uint32_t block = 0; block < blocks; ++block) {
      const uint32_t slot = b.receive(block);
      if (check) checksum += sum_words(slot, pages * page_bytes / 4);
      b.release(block, blocks);
    }
    b.done();
  }
  constexpr auto out_args = TensorAccessorArgs<in_args.next_compile_time_args_offset()>();
  const auto output = TensorAccessor(out_args, c.arg(kArgOutput), 64);
  const uint32_t scratch = get_write_ptr(kCbScratch);
  *reinterpret_cast<volatile uint32_t*>(scratch) = checksum;
  noc_async_write_page(job * persistent::core_count() + persistent::core_index(), output, scratch);
  noc_async_write_barrier();
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerBroadcast, broadcast))
