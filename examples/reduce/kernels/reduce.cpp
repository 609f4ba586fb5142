// Reduces each run of tiles_per_output input tiles (CB 0) into one output
// tile (CB 16): reduce_tile accumulates into the same DST tile over the run
// (SUM adds, MAX keeps the larger), each value times the scaler (CB 2).
// The pool and direction come from the defines REDUCE_OP (PoolType::SUM, AVG
// or MAX) and REDUCE_DIM (ReduceDim::REDUCE_ROW, REDUCE_COL or
// REDUCE_SCALAR).
// Runtime args: num_outputs, tiles_per_output.
#include "api/compute/reduce.h"
#include "api/compute/common.h"

void kernel_main() {
  const uint32_t num_outputs = get_arg_val<uint32_t>(0);
  const uint32_t tiles_per_output = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb_in = 0;
  constexpr uint32_t cb_scaler = 2;
  constexpr uint32_t cb_out = 16;

  compute_kernel_hw_startup(cb_in, cb_scaler, cb_out);
  reduce_init<REDUCE_OP, REDUCE_DIM>(cb_in, cb_scaler, cb_out);
  cb_wait_front(cb_scaler, 1);
  for (uint32_t o = 0; o < num_outputs; ++o) {
    tile_regs_acquire();
    for (uint32_t i = 0; i < tiles_per_output; ++i) {
      cb_wait_front(cb_in, 1);
      reduce_tile<REDUCE_OP, REDUCE_DIM>(cb_in, cb_scaler, 0, 0, 0);
      cb_pop_front(cb_in, 1);
    }
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    tile_regs_release();
  }
  reduce_uninit();
  cb_pop_front(cb_scaler, 1);
}
