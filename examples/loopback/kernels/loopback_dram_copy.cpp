// Copies num_pages pages from one interleaved DRAM buffer to another through
// an L1 scratch page. Runtime args: l1 scratch, src address, dst address, pages.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t l1_scratch = get_arg_val<uint32_t>(0);
  const uint32_t src_addr = get_arg_val<uint32_t>(1);
  const uint32_t dst_addr = get_arg_val<uint32_t>(2);
  const uint32_t num_pages = get_arg_val<uint32_t>(3);

  constexpr auto src_args = TensorAccessorArgs<0>();
  constexpr auto dst_args = TensorAccessorArgs<src_args.next_compile_time_args_offset()>();
  const auto src = TensorAccessor(src_args, src_addr);
  const auto dst = TensorAccessor(dst_args, dst_addr);

  for (uint32_t i = 0; i < num_pages; ++i) {
    noc_async_read_page(i, src, l1_scratch);
    noc_async_read_barrier();
    noc_async_write_page(i, dst, l1_scratch);
    noc_async_write_barrier();
  }
}
