// z = relu(sigmoid(exp(x)) * tanh(y)), every step in DST within one acquire:
// x -> DST 0, y -> DST 1, exp and sigmoid on DST 0, tanh on DST 1, the SFPU
// binary multiply DST 0 = DST 0 * DST 1, relu on DST 0, then one pack.
// Each op is preceded by its init (the SFPU is configured for one op at a time).
// Runtime args: tile count.
#include "api/compute/common.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/relu.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t count = get_arg_val<uint32_t>(0);
  constexpr auto cb_x = tt::CBIndex::c_0;
  constexpr auto cb_y = tt::CBIndex::c_1;
  constexpr auto cb_z = tt::CBIndex::c_16;

  init_sfpu(cb_x, cb_z);
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_x, 1);
    cb_wait_front(cb_y, 1);
    tile_regs_acquire();
    copy_tile(cb_x, 0, 0);
    copy_tile(cb_y, 0, 1);
    exp_tile_init();
    exp_tile(0);
    sigmoid_tile_init();
    sigmoid_tile(0);
    tanh_tile_init();
    tanh_tile(1);
    mul_binary_tile_init();
    mul_binary_tile(0, 1, 0);
    relu_tile_init();
    relu_tile(0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_z, 1);
    pack_tile(0, cb_z);
    cb_push_back(cb_z, 1);
    cb_pop_front(cb_x, 1);
    cb_pop_front(cb_y, 1);
    tile_regs_release();
  }
}
