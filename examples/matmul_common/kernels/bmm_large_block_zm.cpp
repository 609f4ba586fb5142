// The blocked matmul of the reuse examples. This core computes a
// per_core_M x per_core_N block of output tiles. K arrives in num_blocks
// blocks: in0 (CB 0) as per_core_M x in0_block_w tiles, in1 (CB 1) as
// in0_block_w x per_core_N tiles, both row-major. The output block is
// computed in out_subblock_h x out_subblock_w sub-blocks, each fitting one
// DST acquire, in row-major sub-block order.
//
// Partials: after every block but the last, each sub-block's partial sums are
// packed into the intermediate CB 24 and reloaded (copy_block_matmul_partials)
// before the next block accumulates on top. CB 24 shares its memory with the
// output CB 16: on the last block, sub-block s is reloaded from CB 24 pages
// before the result is packed into CB 16 at the same pages, so one output
// block of L1 serves both.
//
// Compile-time args: in0_block_w, in0_num_subblocks, in0_block_num_tiles,
// in0_subblock_num_tiles, in1_num_subblocks, in1_block_num_tiles,
// in1_per_core_w, num_blocks, out_subblock_h, out_subblock_w,
// out_subblock_num_tiles, batch.
#include "api/compute/common.h"
#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr uint32_t in0_block_w = get_compile_time_arg_val(0);
  constexpr uint32_t in0_num_subblocks = get_compile_time_arg_val(1);
  constexpr uint32_t in0_block_num_tiles = get_compile_time_arg_val(2);
  constexpr uint32_t in0_subblock_num_tiles = get_compile_time_arg_val(3);
  constexpr uint32_t in1_num_subblocks = get_compile_time_arg_val(4);
  constexpr uint32_t in1_block_num_tiles = get_compile_time_arg_val(5);
  constexpr uint32_t in1_per_core_w = get_compile_time_arg_val(6);
  constexpr uint32_t num_blocks = get_compile_time_arg_val(7);
  constexpr uint32_t out_subblock_h = get_compile_time_arg_val(8);
  constexpr uint32_t out_subblock_w = get_compile_time_arg_val(9);
  constexpr uint32_t out_subblock_num_tiles = get_compile_time_arg_val(10);
  constexpr uint32_t batch = get_compile_time_arg_val(11);
  constexpr uint32_t cb_in0 = 0;
  constexpr uint32_t cb_in1 = 1;
  constexpr uint32_t cb_out = 16;
  constexpr uint32_t cb_interm = 24;

  mm_block_init(cb_in0, cb_in1, cb_interm, false, out_subblock_w, out_subblock_h, in0_block_w);
  for (uint32_t b = 0; b < batch; ++b) {
    bool reload = false;
    for (uint32_t block = 0; block < num_blocks; ++block) {
      const bool last = block == num_blocks - 1;
      cb_wait_front(cb_in0, in0_block_num_tiles);
      cb_wait_front(cb_in1, in1_block_num_tiles);
      uint32_t in0_subblock_offset = 0;
      for (uint32_t sh = 0; sh < in0_num_subblocks; ++sh) {
        uint32_t in1_subblock_offset = 0;
        for (uint32_t sw = 0; sw < in1_num_subblocks; ++sw) {
          tile_regs_acquire();
          if (reload) {
            copy_tile_to_dst_init_short(cb_interm);
            cb_wait_front(cb_interm, out_subblock_num_tiles);
            copy_block_matmul_partials(cb_interm, 0, 0, out_subblock_num_tiles);
            cb_pop_front(cb_interm, out_subblock_num_tiles);
            mm_block_init_short(cb_in0, cb_in1, false, out_subblock_w, out_subblock_h, in0_block_w);
          }
          // One call per k: DST[r * w + c] += in0[sub-block row r, k] x in1[k, sub-block column c].
          uint32_t in0_index = in0_subblock_offset;
          uint32_t in1_index = in1_subblock_offset;
          for (uint32_t k = 0; k < in0_block_w; ++k) {
            matmul_block(cb_in0, cb_in1, in0_index, in1_index, 0, false, out_subblock_w, out_subblock_h, in0_block_w);
            in0_index += 1;
            in1_index += in1_per_core_w;
          }
          tile_regs_commit();
          tile_regs_wait();
          const uint32_t cb_dst = last ? cb_out : cb_interm;
          cb_reserve_back(cb_dst, out_subblock_num_tiles);
          for (uint32_t i = 0; i < out_subblock_num_tiles; ++i)
            pack_tile(i, cb_dst);
          cb_push_back(cb_dst, out_subblock_num_tiles);
          tile_regs_release();
          in1_subblock_offset += out_subblock_w;
        }
        in0_subblock_offset += in0_subblock_num_tiles;
      }
      reload = num_blocks > 1;
      cb_pop_front(cb_in0, in0_block_num_tiles);
      cb_pop_front(cb_in1, in1_block_num_tiles);
    }
  }
}
