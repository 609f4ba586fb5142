// FPU ops that take one operand from DST or write DST from one CB tile:
//   binary_dest_reuse_tiles<op, DEST_TO_SRCA>(cb, itile, idst)  DST[idst] = DST[idst] op cb[itile]
//   binary_dest_reuse_tiles<op, DEST_TO_SRCB>(cb, itile, idst)  DST[idst] = cb[itile] op DST[idst]
//   unary_bcast<ROW|COL|SCALAR>(cb, itile, idst)                DST[idst] = cb[itile]'s row 0, column 0 or
//                                                                [0][0] broadcast over the tile
// each after its init (binary_dest_reuse_tiles_init, unary_bcast_init), as
// Metalium's eltwise_binary.h and bcast.h declare them. Included by
// tessel/compute.h.
#ifndef TESSEL_DEST_TILES_H
#define TESSEL_DEST_TILES_H

#include "tessel/compute.h"

namespace ckernel {

template <EltwiseBinaryType eltwise_binary_type = EltwiseBinaryType::ELWADD,
          EltwiseBinaryReuseDestType binary_reuse_dest = EltwiseBinaryReuseDestType::NONE>
ALWI void binary_dest_reuse_tiles_init(uint32_t icb0, TESSEL_SITE_PARAMS) {
  static_assert(binary_reuse_dest != EltwiseBinaryReuseDestType::NONE,
                "binary_dest_reuse_tiles_init: name which source register DST moves to (DEST_TO_SRCA or DEST_TO_SRCB)");
  tessel_compute::init(TESSEL_INIT_DEST_REUSE, "binary_dest_reuse_tiles_init", icb0, 0,
                       (uint32_t(eltwise_binary_type) << 4) | uint32_t(binary_reuse_dest), TESSEL_SITE);
}
template <EltwiseBinaryType eltwise_binary_type = EltwiseBinaryType::ELWADD,
          EltwiseBinaryReuseDestType binary_reuse_dest = EltwiseBinaryReuseDestType::NONE>
ALWI void binary_dest_reuse_tiles(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index,
                                  TESSEL_SITE_PARAMS) {
  static_assert(binary_reuse_dest != EltwiseBinaryReuseDestType::NONE,
                "binary_dest_reuse_tiles: name which source register DST moves to (DEST_TO_SRCA or DEST_TO_SRCB)");
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->dest_tiles(k, TESSEL_DEST_REUSE, (uint32_t(eltwise_binary_type) << 4) | uint32_t(binary_reuse_dest), in_cb_id,
                     in_tile_index, dst_tile_index, TESSEL_SITE);
}

// Metalium's per-op names of the two above: {add,sub,mul}_reuse_dest_init<reuse_dest>(icb)
// and {add,sub,mul}_reuse_dest_tiles<reuse_dest>(cb, itile, idst).
#define TESSEL_REUSE_DEST_FORMS(op, OP)                                                                                \
  template <EltwiseBinaryReuseDestType reuse_dest>                                                                     \
  ALWI void op##_reuse_dest_init(uint32_t icb, TESSEL_SITE_PARAMS) {                                                   \
    static_assert(reuse_dest != EltwiseBinaryReuseDestType::NONE,                                                      \
                  #op "_reuse_dest_init: reuse_dest must be DEST_TO_SRCA or DEST_TO_SRCB; for the two-operand op "     \
                      "call " #op "_init(icb0, icb1)");                                                                \
    tessel_compute::init(TESSEL_INIT_DEST_REUSE, #op "_reuse_dest_init", icb, 0,                                       \
                         (uint32_t(EltwiseBinaryType::OP) << 4) | uint32_t(reuse_dest), TESSEL_SITE);                  \
  }                                                                                                                    \
  template <EltwiseBinaryReuseDestType reuse_dest, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>                          \
  ALWI void op##_reuse_dest_tiles(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index,                  \
                                  TESSEL_SITE_PARAMS) {                                                                \
    binary_dest_reuse_tiles<EltwiseBinaryType::OP, reuse_dest>(in_cb_id, in_tile_index, dst_tile_index, TESSEL_SITE);  \
  }
TESSEL_REUSE_DEST_FORMS(add, ELWADD)
TESSEL_REUSE_DEST_FORMS(sub, ELWSUB)
TESSEL_REUSE_DEST_FORMS(mul, ELWMUL)
#undef TESSEL_REUSE_DEST_FORMS

template <BroadcastType bcast_type>
ALWI void unary_bcast_init(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  static_assert(bcast_type != BroadcastType::NONE, "unary_bcast: ROW, COL or SCALAR");
  tessel_compute::init(TESSEL_INIT_UNARY_BCAST, "unary_bcast_init", icb, ocb, uint32_t(bcast_type), TESSEL_SITE);
}
template <BroadcastType bcast_type>
ALWI void unary_bcast(uint32_t icb, uint32_t in_tile_index, uint32_t dst_tile_index, TESSEL_SITE_PARAMS) {
  static_assert(bcast_type != BroadcastType::NONE, "unary_bcast: ROW, COL or SCALAR");
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->dest_tiles(k, TESSEL_UNARY_BCAST, uint32_t(bcast_type), icb, in_tile_index, dst_tile_index, TESSEL_SITE);
}
template <BroadcastType bcast_type>
ALWI void unary_bcast_uninit(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_UNARY_BCAST_UNINIT, "unary_bcast_uninit", icb, 0, 0, TESSEL_SITE);
}

} // namespace ckernel

#endif // TESSEL_DEST_TILES_H
