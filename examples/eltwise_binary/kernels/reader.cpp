// Reads tiles [start, start + count) of A and B (interleaved DRAM) into
// CBs 0 and 1, one tile of each at a time.
// Compile-time args: TensorAccessorArgs of A, then of B.
// Runtime args: A address, B address, start tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  const uint32_t start = get_arg_val<uint32_t>(2);
  const uint32_t count = get_arg_val<uint32_t>(3);
  constexpr uint32_t cb_a = 0;
  constexpr uint32_t cb_b = 1;

  constexpr auto a_args = TensorAccessorArgs<0>();
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  const auto a = TensorAccessor(a_args, a_addr, get_tile_size(cb_a));
  const auto b = TensorAccessor(b_args, b_addr, get_tile_size(cb_b));
  for (uint32_t i = 0; i < count; ++i) {
    cb_reserve_back(cb_a, 1);
    cb_reserve_back(cb_b, 1);
    noc_async_read_tile(start + i, a, get_write_ptr(cb_a));
    noc_async_read_tile(start + i, b, get_write_ptr(cb_b));
    noc_async_read_barrier();
    cb_push_back(cb_a, 1);
    cb_push_back(cb_b, 1);
  }
}
