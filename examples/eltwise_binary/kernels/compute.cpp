// C = A op B, one tile at a time. The op comes from the defines
// ELTWISE_OP (add_tiles, sub_tiles or mul_tiles) and ELTWISE_OP_INIT (its
// init), as in TT-Metalium's legacy eltwise_binary example.
// Runtime args: tile count.
#include "api/compute/common.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t count = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb_a = 0;
  constexpr uint32_t cb_b = 1;
  constexpr uint32_t cb_c = 16;

  binary_op_init_common(cb_a, cb_b, cb_c);
  ELTWISE_OP_INIT(cb_a, cb_b);
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_a, 1);
    cb_wait_front(cb_b, 1);
    tile_regs_acquire();
    ELTWISE_OP(cb_a, cb_b, 0, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_c, 1);
    pack_tile(0, cb_c);
    cb_push_back(cb_c, 1);
    cb_pop_front(cb_a, 1);
    cb_pop_front(cb_b, 1);
    tile_regs_release();
  }
}
