// Reads this core's operand blocks from DRAM, one K block at a time: in0
// (CB 0) gets the per_core_M x in0_block_w tiles of A at rows m0.., columns
// kb * in0_block_w..; in1 (CB 1) the in0_block_w x per_core_N tiles of B at
// those rows, columns n0... Both blocks are row-major in their CB.
//
// Compile-time args: TensorAccessorArgs of A, then of B; per_core_M,
// per_core_N, in0_block_w.
// Runtime args: A address, B address, Kt, Nt, first output tile row m0,
// first output tile column n0.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  const uint32_t Kt = get_arg_val<uint32_t>(2);
  const uint32_t Nt = get_arg_val<uint32_t>(3);
  const uint32_t m0 = get_arg_val<uint32_t>(4);
  const uint32_t n0 = get_arg_val<uint32_t>(5);

  constexpr auto a_args = TensorAccessorArgs<0>();
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  constexpr uint32_t cta = b_args.next_compile_time_args_offset();
  constexpr uint32_t per_core_M = get_compile_time_arg_val(cta);
  constexpr uint32_t per_core_N = get_compile_time_arg_val(cta + 1);
  constexpr uint32_t in0_block_w = get_compile_time_arg_val(cta + 2);
  constexpr uint32_t cb_in0 = 0;
  constexpr uint32_t cb_in1 = 1;

  const uint32_t in0_tile_bytes = get_tile_size(cb_in0);
  const uint32_t in1_tile_bytes = get_tile_size(cb_in1);
  const auto a = TensorAccessor(a_args, a_addr, in0_tile_bytes);
  const auto b = TensorAccessor(b_args, b_addr, in1_tile_bytes);
  for (uint32_t kb = 0; kb < Kt / in0_block_w; ++kb) {
    const uint32_t k0 = kb * in0_block_w;
    cb_reserve_back(cb_in0, per_core_M * in0_block_w);
    uint32_t l1 = get_write_ptr(cb_in0);
    for (uint32_t m = 0; m < per_core_M; ++m)
      for (uint32_t k = 0; k < in0_block_w; ++k) {
        noc_async_read_tile((m0 + m) * Kt + k0 + k, a, l1);
        l1 += in0_tile_bytes;
      }
    cb_reserve_back(cb_in1, in0_block_w * per_core_N);
    l1 = get_write_ptr(cb_in1);
    for (uint32_t k = 0; k < in0_block_w; ++k)
      for (uint32_t n = 0; n < per_core_N; ++n) {
        noc_async_read_tile((k0 + k) * Nt + n0 + n, b, l1);
        l1 += in1_tile_bytes;
      }
    noc_async_read_barrier();
    cb_push_back(cb_in0, per_core_M * in0_block_w);
    cb_push_back(cb_in1, in0_block_w * per_core_N);
  }
}
