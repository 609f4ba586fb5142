// y = op(x), one tile at a time. The op comes from the defines SFPU_OP_INIT
// (its init, e.g. exp_tile_init()) and SFPU_OP (the call on DST tile 0, e.g.
// exp_tile(0)), as in TT-Metalium's eltwise_sfpu example.
// Runtime args: tile count.
#include "api/compute/common.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/sfpu_split_includes.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t count = get_arg_val<uint32_t>(0);
  constexpr auto cb_in = tt::CBIndex::c_0;
  constexpr auto cb_out = tt::CBIndex::c_16;

  init_sfpu(cb_in, cb_out);
  SFPU_OP_INIT;
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_in, 1);
    tile_regs_acquire();
    copy_tile(cb_in, 0, 0);
    SFPU_OP;
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    cb_pop_front(cb_in, 1);
    tile_regs_release();
  }
}
