// Reads tiles [start, start + count) of X and Y (interleaved DRAM) into
// CBs 0 and 1, one tile of each at a time.
// Compile-time args: TensorAccessorArgs of X, then of Y.
// Runtime args: X address, Y address, start tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t x_addr = get_arg_val<uint32_t>(0);
  const uint32_t y_addr = get_arg_val<uint32_t>(1);
  const uint32_t start = get_arg_val<uint32_t>(2);
  const uint32_t count = get_arg_val<uint32_t>(3);
  constexpr uint32_t cb_x = 0;
  constexpr uint32_t cb_y = 1;

  constexpr auto x_args = TensorAccessorArgs<0>();
  constexpr auto y_args = TensorAccessorArgs<x_args.next_compile_time_args_offset()>();
  const auto x = TensorAccessor(x_args, x_addr, get_tile_size(cb_x));
  const auto y = TensorAccessor(y_args, y_addr, get_tile_size(cb_y));
  for (uint32_t i = 0; i < count; ++i) {
    cb_reserve_back(cb_x, 1);
    cb_reserve_back(cb_y, 1);
    noc_async_read_tile(start + i, x, get_write_ptr(cb_x));
    noc_async_read_tile(start + i, y, get_write_ptr(cb_y));
    noc_async_read_barrier();
    cb_push_back(cb_x, 1);
    cb_push_back(cb_y, 1);
  }
}
