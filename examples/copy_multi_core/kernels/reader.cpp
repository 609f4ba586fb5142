// Reads pages [start, start + count) of an interleaved buffer into CB 0.
// Runtime args: src address, start page, page count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb = 0;

  constexpr auto args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(args, src_addr, get_tile_size(cb));
  for (uint32_t i = 0; i < count; ++i) {
    cb_reserve_back(cb, 1);
    noc_async_read_page(start + i, src, get_write_ptr(cb));
    noc_async_read_barrier();
    cb_push_back(cb, 1);
  }
}
