// Writes tiles from CB 16 to [start, start + count) of the output
// (interleaved DRAM).
// Compile-time args: TensorAccessorArgs of the output.
// Runtime args: output address, start tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_out = 16;

  constexpr auto dst_args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(dst_args, dst_addr, get_tile_size(cb_out));
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_out, 1);
    noc_async_write_tile(start + i, dst, get_read_ptr(cb_out));
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
  }
}
