// Writes tiles from CB 16 to [start, start + count) of C (interleaved DRAM).
// Compile-time args: TensorAccessorArgs of C.
// Runtime args: C address, tile count, start tile.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t c_addr = get_arg_val<uint32_t>(0);
  const uint32_t count = get_arg_val<uint32_t>(1);
  const uint32_t start = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_out = 16;

  constexpr auto c_args = TensorAccessorArgs<0>();
  const auto c = TensorAccessor(c_args, c_addr, get_tile_size(cb_out));
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_out, 1);
    noc_async_write_tile(start + i, c, get_read_ptr(cb_out));
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
  }
}
