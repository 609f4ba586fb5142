// The reduction stage's compute: each output tile is the sum, in slot order,
// of `slots` tiles from CB 1, the partial sums kept in CB 2 (bfloat16, as
// TT-Metalium's ccl reductions accumulate), the total packed to CB 16.
// Runtime args: tiles, slots.
#include "api/compute/common.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t tiles = get_arg_val<uint32_t>(0);
  const uint32_t slots = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb_in = 1, cb_partial = 2, cb_out = 16;
  binary_op_init_common(cb_partial, cb_in, cb_out);
  for (uint32_t t = 0; t < tiles; ++t) {
    for (uint32_t s = 0; s < slots; ++s) {
      const uint32_t target = s + 1 == slots ? cb_out : cb_partial;
      cb_wait_front(cb_in, 1);
      if (s > 0) cb_wait_front(cb_partial, 1);
      tile_regs_acquire();
      if (s == 0) {
        copy_tile_init(cb_in);
        copy_tile(cb_in, 0, 0);
      } else {
        add_tiles_init(cb_partial, cb_in);
        add_tiles(cb_partial, cb_in, 0, 0, 0);
      }
      tile_regs_commit();
      tile_regs_wait();
      cb_reserve_back(target, 1);
      pack_tile(0, target);
      cb_push_back(target, 1);
      tile_regs_release();
      cb_pop_front(cb_in, 1);
      if (s > 0) cb_pop_front(cb_partial, 1);
    }
  }
}
