// Writes this core's per_core_M x per_core_N block of output tiles from
// CB 16 to C, one out_subblock_h x out_subblock_w sub-block at a time in the
// compute kernel's order (row-major sub-blocks, row-major tiles within each).
//
// Compile-time args: TensorAccessorArgs of C, out_subblock_h, out_subblock_w,
// in0_num_subblocks (sub-block rows), in1_num_subblocks (sub-block columns).
// Runtime args: C address, Nt, first output tile row, first output tile column.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t c_addr = get_arg_val<uint32_t>(0);
  const uint32_t Nt = get_arg_val<uint32_t>(1);
  const uint32_t m0 = get_arg_val<uint32_t>(2);
  const uint32_t n0 = get_arg_val<uint32_t>(3);

  constexpr auto c_args = TensorAccessorArgs<0>();
  constexpr uint32_t cta = c_args.next_compile_time_args_offset();
  constexpr uint32_t out_subblock_h = get_compile_time_arg_val(cta);
  constexpr uint32_t out_subblock_w = get_compile_time_arg_val(cta + 1);
  constexpr uint32_t num_subblock_rows = get_compile_time_arg_val(cta + 2);
  constexpr uint32_t num_subblock_cols = get_compile_time_arg_val(cta + 3);
  constexpr uint32_t subblock_tiles = out_subblock_h * out_subblock_w;
  constexpr uint32_t cb_out = 16;

  const uint32_t tile_bytes = get_tile_size(cb_out);
  const auto c = TensorAccessor(c_args, c_addr, tile_bytes);
  for (uint32_t sh = 0; sh < num_subblock_rows; ++sh)
    for (uint32_t sw = 0; sw < num_subblock_cols; ++sw) {
      cb_wait_front(cb_out, subblock_tiles);
      uint32_t l1 = get_read_ptr(cb_out);
      for (uint32_t r = 0; r < out_subblock_h; ++r) {
        const uint32_t row = m0 + sh * out_subblock_h + r;
        for (uint32_t col = 0; col < out_subblock_w; ++col) {
          noc_async_write_tile(row * Nt + n0 + sw * out_subblock_w + col, c, l1);
          l1 += tile_bytes;
        }
      }
      noc_async_write_barrier();
      cb_pop_front(cb_out, subblock_tiles);
    }
}
