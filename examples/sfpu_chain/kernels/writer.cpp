// Writes tiles from CB 16 to [start, start + count) of Z (interleaved DRAM).
// Compile-time args: TensorAccessorArgs of Z. Runtime args: Z address, start
// tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t z_addr = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_z = 16;

  constexpr auto z_args = TensorAccessorArgs<0>();
  const auto z = TensorAccessor(z_args, z_addr, get_tile_size(cb_z));
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_z, 1);
    noc_async_write_tile(start + i, z, get_read_ptr(cb_z));
    noc_async_write_barrier();
    cb_pop_front(cb_z, 1);
  }
}
