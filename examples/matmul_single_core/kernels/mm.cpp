// One output tile at a time: DST accumulates the Kt products A(mt, kt) x
// B(kt, nt) arriving in CBs 0 and 1, then the tile is packed into CB 16.
// tile_regs_acquire hands out zeroed registers, so no explicit clear.
// Runtime args: output tiles, Kt.
#include "api/compute/common.h"
#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t num_tiles = get_arg_val<uint32_t>(0);
  const uint32_t Kt = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb_in0 = 0;
  constexpr uint32_t cb_in1 = 1;
  constexpr uint32_t cb_out = 16;

  mm_init(cb_in0, cb_in1, cb_out);
  for (uint32_t t = 0; t < num_tiles; ++t) {
    tile_regs_acquire();
    for (uint32_t kt = 0; kt < Kt; ++kt) {
      cb_wait_front(cb_in0, 1);
      cb_wait_front(cb_in1, 1);
      matmul_tiles(cb_in0, cb_in1, 0, 0, 0);
      cb_pop_front(cb_in0, 1);
      cb_pop_front(cb_in1, 1);
    }
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    tile_regs_release();
  }
}
