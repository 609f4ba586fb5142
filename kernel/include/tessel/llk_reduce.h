// The LLK-level calls ttnn's reduce helpers make directly (its kernel_lib
// reduce_helpers), over tessel's compute API: the unpacker's and the math
// engine's halves of one configuration step are one step here, taken by the
// unpack half; the math half, which Metalium runs beside it under MATH(...),
// then has nothing left to do.
//
//   llk_unpack_reconfig_data_format_srca<fp32, stride>(old, new)   reconfig_data_format_srca(old, new)
//   llk_math_reconfig_data_format_srca<fp32>(old, new)             (the unpack half's)
//   llk_unpack_AB_reduce_init<type, dim>(in, scaler)               reduce_init<type, dim> without the pack mask
//   llk_math_reduce_init<type, dim, fp32, fidelity>(in, scaler)    (the unpack half's)
//   llk_pack_reduce_mask_config<dim, mode>(out), llk_pack_reduce_mask_clear()
//                                                                  the packer's edge masks (pack_config.h)
#ifndef TESSEL_LLK_REDUCE_H
#define TESSEL_LLK_REDUCE_H

#include "tessel/compute.h"
#include "tessel/sfpu_reduce.h"

// Whether an unpack reconfiguration also sets the face's dim and stride
// (which tessel's unpacker does not model: every tile is 32x32 in faces).
enum class p_dim_stride_target { IGNORE, FACE_ROW_MAJOR };

template <bool is_fp32_dest_acc_en, p_dim_stride_target dim_stride_target, bool to_from_int8 = false>
ALWI void llk_unpack_reconfig_data_format_srca(uint32_t srca_old_operand, uint32_t srca_new_operand,
                                               TESSEL_SITE_PARAMS) {
  reconfig_data_format_srca(srca_old_operand, srca_new_operand, TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en, bool to_from_int8 = false>
ALWI void llk_math_reconfig_data_format_srca(uint32_t srca_old_operand, uint32_t srca_new_operand) {
  (void)srca_old_operand, (void)srca_new_operand;
}
template <PoolType type, ReduceDim dim>
ALWI void llk_unpack_AB_reduce_init(uint32_t operand_a, uint32_t operand_b, TESSEL_SITE_PARAMS) {
  // The unpacker's and the FPU's half of reduce_init: the packer's mask is left as it is.
  tessel_compute::init(TESSEL_INIT_REDUCE, "llk_unpack_AB_reduce_init", operand_a, operand_b,
                       (uint32_t(type) << 4) | uint32_t(dim), TESSEL_SITE);
}
template <PoolType type, ReduceDim dim, bool is_fp32_dest_acc_en, auto math_fidelity>
ALWI void llk_math_reduce_init(uint32_t operand_a, uint32_t operand_b) {
  (void)operand_a, (void)operand_b;
}

#ifndef TESSEL_PACK_MODE_DEFINED
#define TESSEL_PACK_MODE_DEFINED
// The packer's mode (ckernel_defs.h).
enum class PackMode : uint8_t { Default = 0, Untilize = 1, Tilize = 2 };
#endif
// The packer's reduce edge masks (pack_config.h); the masks of a packer in
// untilize mode are not modelled.
template <ReduceDim dim, PackMode pack_mode = PackMode::Default>
ALWI void llk_pack_reduce_mask_config(uint32_t ocb, TESSEL_SITE_PARAMS) {
  static_assert(pack_mode == PackMode::Default, "llk_pack_reduce_mask_config is supported by tessel with "
                                                "PackMode::Default only: the untilize-mode masks are not modelled");
  (void)ocb;
  tessel_compute::init(TESSEL_INIT_PACK_REDUCE_MASK, "llk_pack_reduce_mask_config", 1u + uint32_t(dim), 0, 0,
                       TESSEL_SITE);
}
ALWI void llk_pack_reduce_mask_clear(TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_PACK_REDUCE_MASK, "llk_pack_reduce_mask_clear", 0, 0, 0, TESSEL_SITE);
}

#endif // TESSEL_LLK_REDUCE_H
