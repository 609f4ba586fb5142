// Reads tiles [start, start + count) of X (interleaved DRAM) into CB 0, one
// tile at a time.
// Compile-time args: TensorAccessorArgs of X. Runtime args: X address,
// start tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t x_addr = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_x = 0;

  constexpr auto x_args = TensorAccessorArgs<0>();
  const auto x = TensorAccessor(x_args, x_addr, get_tile_size(cb_x));
  for (uint32_t i = 0; i < count; ++i) {
    cb_reserve_back(cb_x, 1);
    noc_async_read_tile(start + i, x, get_write_ptr(cb_x));
    noc_async_read_barrier();
    cb_push_back(cb_x, 1);
  }
}
