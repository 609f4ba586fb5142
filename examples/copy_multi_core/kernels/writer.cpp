// Writes pages from CB 0 to [start, start + count) of an interleaved buffer.
// Runtime args: dst address, start page, page count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb = 0;

  constexpr auto args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(args, dst_addr, get_tile_size(cb));
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb, 1);
    noc_async_write_page(start + i, dst, get_read_ptr(cb));
    noc_async_write_barrier();
    cb_pop_front(cb, 1);
  }
}
