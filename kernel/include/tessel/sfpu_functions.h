// SFPU special and inverse functions, more rounding and activations, and
// arithmetic with a scalar, with TT-Metalium's names, template parameters and
// argument orders: eltwise_unary/erf_erfc.h, erfinv.h, trigonometry.h,
// log1p.h, rounding.h, elu.h, hardtanh.h, threshold.h, selu.h, prelu.h,
// hardsigmoid.h, hardswish.h, softsign.h, clamp.h, binop_with_scalar.h,
// and expm1_tile / log_with_base_tile of compute_kernel_api.h. Part of
// tessel/sfpu.h, which states the init rule.
//
// Float parameters are the bits of a float, as in Metalium. These ops are
// computed exactly (correctly rounded float) whatever their approximation
// argument says; docs/numerics.md.
#ifndef TESSEL_SFPU_FUNCTIONS_H
#define TESSEL_SFPU_FUNCTIONS_H

#include "tessel/sfpu.h"

namespace ckernel {

// ---------------------------------------------------------------------------
// Error function (eltwise_unary/erf_erfc.h, erfinv.h)

template <bool fast_and_approx = true>
ALWI void erf_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_ERF>("erf_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = true>
ALWI void erf_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_ERF, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}
TESSEL_SFPU_SIMPLE_OP(erfc, TESSEL_SFPU_ERFC)
TESSEL_SFPU_SIMPLE_OP(erfinv, TESSEL_SFPU_ERFINV)

// ---------------------------------------------------------------------------
// Inverse trigonometric and hyperbolic functions, tan (trigonometry.h)

TESSEL_SFPU_SIMPLE_OP(tan, TESSEL_SFPU_TAN)
TESSEL_SFPU_SIMPLE_OP(asin, TESSEL_SFPU_ASIN)
TESSEL_SFPU_SIMPLE_OP(acos, TESSEL_SFPU_ACOS)
TESSEL_SFPU_SIMPLE_OP(atan, TESSEL_SFPU_ATAN)
TESSEL_SFPU_SIMPLE_OP(sinh, TESSEL_SFPU_SINH)
TESSEL_SFPU_SIMPLE_OP(cosh, TESSEL_SFPU_COSH)
TESSEL_SFPU_SIMPLE_OP(asinh, TESSEL_SFPU_ASINH)
TESSEL_SFPU_SIMPLE_OP(acosh, TESSEL_SFPU_ACOSH)
TESSEL_SFPU_SIMPLE_OP(atanh, TESSEL_SFPU_ATANH)

// ---------------------------------------------------------------------------
// log(1 + x), e^x - 1, log with a base (log1p.h, compute_kernel_api.h)

template <bool fast_and_approx = false>
ALWI void log1p_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_LOG1P>("log1p_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = false>
ALWI void log1p_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LOG1P, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}

template <bool approx = false, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void expm1_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_EXPM1>("expm1_tile_init", TESSEL_SITE);
}
template <bool approx = false, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void expm1_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_EXPM1, idst, 0, 0, approx, TESSEL_SITE);
}

// log(x) * base_scale, base_scale the bits of 1 / ln(base) (0x3fb8aa3b: log2).
template <bool fast_and_approx = false, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void log_with_base_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_LOG_WITH_BASE>("log_with_base_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = false, bool base_is_two = false, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void log_with_base_tile(uint32_t idst, uint32_t base_scale, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LOG_WITH_BASE, idst, base_scale, 0, fast_and_approx, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Rounding (rounding.h; rounding_op_tile_init in tessel/sfpu.h configures
// these with floor and ceil)

ALWI void trunc_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_TRUNC, idst, 0, 0, APPROX, TESSEL_SITE);
}
// x - trunc(x)
ALWI void frac_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_FRAC, idst, 0, 0, APPROX, TESSEL_SITE);
}
// To `decimals` decimal places, half to even (negative: tens, hundreds, ...).
ALWI void round_tile(uint32_t idst, int32_t decimals, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_ROUND, idst, uint32_t(decimals), 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Activations (elu.h, hardtanh.h, threshold.h, selu.h, prelu.h, hardsigmoid.h)

// x > 0 ? x : alpha (e^x - 1), param0 = alpha.
ALWI void elu_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_ELU>("elu_tile_init", TESSEL_SITE); }
ALWI void elu_tile(uint32_t idst, uint32_t param0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_ELU, idst, param0, 0, APPROX, TESSEL_SITE);
}
// Clamp to [param0, param1].
ALWI void hardtanh_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_HARDTANH>("hardtanh_tile_init", TESSEL_SITE);
}
ALWI void hardtanh_tile(uint32_t idst, uint32_t param0, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_HARDTANH, idst, param0, param1, APPROX, TESSEL_SITE);
}
// x > param0 ? x : param1.
ALWI void threshold_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_THRESHOLD>("threshold_tile_init", TESSEL_SITE);
}
ALWI void threshold_tile(uint32_t idst, uint32_t param0, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_THRESHOLD, idst, param0, param1, APPROX, TESSEL_SITE);
}

// scale (x > 0 ? x : alpha (e^x - 1)), param0 = scale, param1 = alpha (selu.h).
ALWI void selu_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_SELU>("selu_tile_init", TESSEL_SITE); }
ALWI void selu_tile(uint32_t idst, uint32_t param0, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_SELU, idst, param0, param1, APPROX, TESSEL_SITE);
}
// x < 0 ? x * param0 : x (prelu.h).
ALWI void prelu_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_PRELU>("prelu_tile_init", TESSEL_SITE); }
ALWI void prelu_tile(uint32_t idst, uint32_t param0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_PRELU, idst, param0, 0, APPROX, TESSEL_SITE);
}
// clamp(x / 6 + 1/2, 0, 1) (hardsigmoid.h), x hardsigmoid(x) (hardswish.h),
// x / (1 + |x|) (softsign.h).
TESSEL_SFPU_SIMPLE_OP(hardsigmoid, TESSEL_SFPU_HARDSIGMOID)
TESSEL_SFPU_SIMPLE_OP(hardswish, TESSEL_SFPU_HARDSWISH)
TESSEL_SFPU_SIMPLE_OP(softsign, TESSEL_SFPU_SOFTSIGN)
// Clamp to [param0, param1] (clamp.h); the _int32 form takes int32 limits.
ALWI void clamp_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_CLAMP>("clamp_tile_init", TESSEL_SITE); }
ALWI void clamp_tile(uint32_t idst, uint32_t param0, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_CLAMP, idst, param0, param1, APPROX, TESSEL_SITE);
}
ALWI void clamp_tile_int32(uint32_t idst, uint32_t param0, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_CLAMP, idst, tessel_sfpu::float_bits(float(int32_t(param0))),
                     tessel_sfpu::float_bits(float(int32_t(param1))), APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Arithmetic with a scalar (binop_with_scalar.h): x + s, x - s, x * s, x / s,
// s - x, one init for all. The _int32 forms take an int32 scalar.

ALWI void binop_with_scalar_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_ADD_SCALAR, TESSEL_SFPU_SUB_SCALAR, TESSEL_SFPU_MUL_SCALAR, TESSEL_SFPU_DIV_SCALAR,
                    TESSEL_SFPU_RSUB_SCALAR>("binop_with_scalar_tile_init", TESSEL_SITE);
}
ALWI void add_unary_tile(uint32_t idst, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_ADD_SCALAR, idst, param1, 0, APPROX, TESSEL_SITE);
}
ALWI void sub_unary_tile(uint32_t idst, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_SUB_SCALAR, idst, param1, 0, APPROX, TESSEL_SITE);
}
ALWI void mul_unary_tile(uint32_t idst, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_MUL_SCALAR, idst, param1, 0, APPROX, TESSEL_SITE);
}
ALWI void div_unary_tile(uint32_t idst, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_DIV_SCALAR, idst, param1, 0, APPROX, TESSEL_SITE);
}
ALWI void rsub_unary_tile(uint32_t idst, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RSUB_SCALAR, idst, param1, 0, APPROX, TESSEL_SITE);
}
ALWI void add_unary_tile_int32(uint32_t idst, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_ADD_SCALAR, idst, tessel_sfpu::float_bits(float(int32_t(param1))), 0, APPROX,
                     TESSEL_SITE);
}
ALWI void sub_unary_tile_int32(uint32_t idst, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_SUB_SCALAR, idst, tessel_sfpu::float_bits(float(int32_t(param1))), 0, APPROX,
                     TESSEL_SITE);
}

} // namespace ckernel

#endif // TESSEL_SFPU_FUNCTIONS_H
