// Writes each block of CB 0 to this core's slice of the output buffer:
// block b goes to pages [start + b * pages_per_block, ...).
//
// Compile-time args: TensorAccessorArgs of the output (2), pages per block.
// Runtime args: output address, start page, blocks.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t num_blocks = get_arg_val<uint32_t>(2);

  constexpr auto dst_args = TensorAccessorArgs<0>();
  constexpr uint32_t pages_per_block = get_compile_time_arg_val(dst_args.next_compile_time_args_offset());
  constexpr uint32_t cb = 0;

  const uint32_t page_bytes = get_tile_size(cb);
  const auto dst = TensorAccessor(dst_args, dst_addr, page_bytes);
  for (uint32_t block = 0; block < num_blocks; ++block) {
    cb_wait_front(cb, pages_per_block);
    const uint32_t l1 = get_read_ptr(cb);
    for (uint32_t p = 0; p < pages_per_block; ++p)
      noc_async_write_page(start + block * pages_per_block + p, dst, l1 + p * page_bytes);
    noc_async_write_barrier();
    cb_pop_front(cb, pages_per_block);
  }
}
