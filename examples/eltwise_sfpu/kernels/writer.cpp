// Writes tiles from CB 16 to [start, start + count) of Y (interleaved DRAM).
// Compile-time args: TensorAccessorArgs of Y. Runtime args: Y address, start
// tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t y_addr = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_y = 16;

  constexpr auto y_args = TensorAccessorArgs<0>();
  const auto y = TensorAccessor(y_args, y_addr, get_tile_size(cb_y));
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_y, 1);
    noc_async_write_tile(start + i, y, get_read_ptr(cb_y));
    noc_async_write_barrier();
    cb_pop_front(cb_y, 1);
  }
}
