// Compute-API headers TT-Metalium's operation kernels include by their
// operation's name: each must bring the calls those kernels make.
#include "api/compute/binary_max_min.h"
#include "api/compute/layernorm.h"
#include "api/compute/reduce.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_unary/negative.h"
#include "api/debug/waypoint.h"
#include "api/compute/tilize.h"
#include "api/compute/softmax.h"
#include "compute_kernel_api/layernorm.h"
#include "compute_kernel_api/softmax.h"

void kernel_main() {
  rsqrt_tile_init();
  rsqrt_tile(0);
  exp_tile_init();
  exp_tile(0);
  recip_tile_init();
  recip_tile(0);
  binary_max_int32_tile_init();
  binary_max_int32_tile(0, 1, 2);
  binary_min_uint32_tile_init();
  binary_min_uint32_tile(0, 1, 2);
  fast_tilize_uninit(0, 16, 4);
  // The LLK calls ttnn's reduce helpers make.
  UNPACK((llk_unpack_reconfig_data_format_srca<DST_ACCUM_MODE, p_dim_stride_target::IGNORE>(0, 1)));
  MATH((llk_math_reconfig_data_format_srca<DST_ACCUM_MODE>(0, 1)));
  UNPACK((llk_unpack_AB_reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>(0, 2)));
  MATH((llk_math_reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW, DST_ACCUM_MODE, MATH_FIDELITY>(0, 2)));
  PACK((llk_pack_reduce_mask_config<ReduceDim::REDUCE_ROW, PackMode::Default>(16)));
  PACK((llk_pack_reduce_mask_clear()));
  copy_tile_to_dst_init_short(0, 0, 0);
  negative_tile_init();
  negative_tile_int32(0);
  UNPACK(tensix_sync());
  WAYPOINT("DONE");
}
