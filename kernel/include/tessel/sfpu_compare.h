// SFPU comparisons and selections with TT-Metalium's names and argument
// orders: comparisons with zero and with a scalar (eltwise_unary/comp.h),
// classification (eltwise_unary/isinf_isnan.h; signbit_tile from
// compute_kernel_api.h), logical_not (eltwise_unary/logical_not.h),
// heaviside (compute_kernel_api.h), the comparisons of two tiles
// (eltwise_binary_sfpu.h, binary_comp.h) and where (eltwise_unary/where.h). Part of tessel/sfpu.h,
// which states the init rule.
//
// Results are 1.0 where the condition holds and 0.0 elsewhere, compared as
// IEEE does (+0 == -0; NaN unequal to everything, ordered comparisons with it
// false). The _int32 / _uint16 / _uint32 spellings take integer tiles, which
// DST holds as floats (exact up to 2^24): they compute what the float form
// does, with the scalar given as an integer. docs/numerics.md.
#ifndef TESSEL_SFPU_COMPARE_H
#define TESSEL_SFPU_COMPARE_H

#include "tessel/sfpu.h"

namespace ckernel {

// ---------------------------------------------------------------------------
// Comparisons with zero (eltwise_unary/comp.h): eqz_tile_init(),
// eqz_tile(idst), eqz_tile_int32(idst), ...

#define TESSEL_SFPU_ZERO_COMPARE(name, OP)                                                                             \
  ALWI void name##_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<OP>(#name "_tile_init", TESSEL_SITE); }           \
  ALWI void name##_tile(uint32_t idst, TESSEL_SITE_PARAMS) {                                                           \
    tessel_sfpu::unary(OP, idst, 0, 0, APPROX, TESSEL_SITE);                                                           \
  }                                                                                                                    \
  ALWI void name##_tile_int32(uint32_t idst, TESSEL_SITE_PARAMS) {                                                     \
    tessel_sfpu::unary(OP, idst, 0, 0, APPROX, TESSEL_SITE);                                                           \
  }

TESSEL_SFPU_ZERO_COMPARE(eqz, TESSEL_SFPU_EQZ)
TESSEL_SFPU_ZERO_COMPARE(nez, TESSEL_SFPU_NEZ)
TESSEL_SFPU_ZERO_COMPARE(ltz, TESSEL_SFPU_LTZ)
TESSEL_SFPU_ZERO_COMPARE(gtz, TESSEL_SFPU_GTZ)
TESSEL_SFPU_ZERO_COMPARE(lez, TESSEL_SFPU_LEZ)
TESSEL_SFPU_ZERO_COMPARE(gez, TESSEL_SFPU_GEZ)
#undef TESSEL_SFPU_ZERO_COMPARE

ALWI void eqz_tile_uint16(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_EQZ, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void eqz_tile_uint32(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_EQZ, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void nez_tile_uint16(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_NEZ, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void nez_tile_uint32(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_NEZ, idst, 0, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Comparisons with a scalar (eltwise_unary/comp.h): x op param0, param0 the
// bits of a float; the _int32 forms take an int32 and share the float form's
// init.

#define TESSEL_SFPU_SCALAR_COMPARE(name, OP)                                                                           \
  ALWI void name##_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<OP>(#name "_tile_init", TESSEL_SITE); }           \
  ALWI void name##_tile(uint32_t idst, uint32_t param0, TESSEL_SITE_PARAMS) {                                          \
    tessel_sfpu::unary(OP, idst, param0, 0, APPROX, TESSEL_SITE);                                                      \
  }                                                                                                                    \
  ALWI void name##_tile_int32(uint32_t idst, uint32_t param0, TESSEL_SITE_PARAMS) {                                    \
    tessel_sfpu::unary(OP, idst, tessel_sfpu::float_bits(float(int32_t(param0))), 0, APPROX, TESSEL_SITE);             \
  }

TESSEL_SFPU_SCALAR_COMPARE(unary_eq, TESSEL_SFPU_UNARY_EQ)
TESSEL_SFPU_SCALAR_COMPARE(unary_ne, TESSEL_SFPU_UNARY_NE)
TESSEL_SFPU_SCALAR_COMPARE(unary_gt, TESSEL_SFPU_UNARY_GT)
TESSEL_SFPU_SCALAR_COMPARE(unary_lt, TESSEL_SFPU_UNARY_LT)
TESSEL_SFPU_SCALAR_COMPARE(unary_ge, TESSEL_SFPU_UNARY_GE)
TESSEL_SFPU_SCALAR_COMPARE(unary_le, TESSEL_SFPU_UNARY_LE)
#undef TESSEL_SFPU_SCALAR_COMPARE

// ---------------------------------------------------------------------------
// Classification (eltwise_unary/isinf_isnan.h, compute_kernel_api.h)

TESSEL_SFPU_SIMPLE_OP(isinf, TESSEL_SFPU_ISINF)
TESSEL_SFPU_SIMPLE_OP(isposinf, TESSEL_SFPU_ISPOSINF)
TESSEL_SFPU_SIMPLE_OP(isneginf, TESSEL_SFPU_ISNEGINF)
TESSEL_SFPU_SIMPLE_OP(isnan, TESSEL_SFPU_ISNAN)
TESSEL_SFPU_SIMPLE_OP(isfinite, TESSEL_SFPU_ISFINITE)

// 1 where the sign bit is set (negative values, -0, and NaNs with the bit).
TESSEL_SFPU_SIMPLE_OP(signbit, TESSEL_SFPU_SIGNBIT)
ALWI void signbit_tile_int32_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_SIGNBIT>("signbit_tile_int32_init", TESSEL_SITE);
}
ALWI void signbit_tile_int32(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_SIGNBIT, idst, 0, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Logical not (eltwise_unary/logical_not.h): 1 where x == 0. DATA_FORMAT is
// the tile's format; logical_not_unary_tile is the older spelling.

ALWI void logical_not_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_LOGICAL_NOT>("logical_not_tile_init", TESSEL_SITE);
}
template <DataFormat DATA_FORMAT>
ALWI void logical_not_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  static_assert(tessel_sfpu::is_typecast_format(uint32_t(DATA_FORMAT)) && DATA_FORMAT != DataFormat::UInt8,
                "logical_not_tile supports Int32, UInt32, UInt16, Float32, Float16_b, Bfp8_b and Bfp4_b");
  tessel_sfpu::unary(TESSEL_SFPU_LOGICAL_NOT, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void logical_not_unary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_LOGICAL_NOT>("logical_not_unary_tile_init", TESSEL_SITE);
}
ALWI void logical_not_unary_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LOGICAL_NOT, idst, 0, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Heaviside step (compute_kernel_api.h): 0 for x < 0, 1 for x > 0, param0 (a
// float's bits) at x == 0.

ALWI void heaviside_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_HEAVISIDE>("heaviside_tile_init", TESSEL_SITE);
}
ALWI void heaviside_tile(uint32_t idst, uint32_t param0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_HEAVISIDE, idst, param0, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Float comparisons of two tiles (eltwise_binary_sfpu.h): DST[odst] =
// DST[idst0] op DST[idst1] as 1 / 0.

#define TESSEL_SFPU_FLOAT_COMPARE(name, OP)                                                                            \
  ALWI void name##_binary_tile_init(TESSEL_SITE_PARAMS) {                                                              \
    tessel_sfpu::binary_init<OP>(#name "_binary_tile_init", TESSEL_SITE);                                              \
  }                                                                                                                    \
  ALWI void name##_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {                    \
    tessel_sfpu::binary(OP, idst0, idst1, odst, TESSEL_SITE);                                                          \
  }

TESSEL_SFPU_FLOAT_COMPARE(eq, TESSEL_SFPU_BINARY_EQ)
TESSEL_SFPU_FLOAT_COMPARE(ne, TESSEL_SFPU_BINARY_NE)
TESSEL_SFPU_FLOAT_COMPARE(lt, TESSEL_SFPU_BINARY_LT)
TESSEL_SFPU_FLOAT_COMPARE(gt, TESSEL_SFPU_BINARY_GT)
TESSEL_SFPU_FLOAT_COMPARE(le, TESSEL_SFPU_BINARY_LE)
TESSEL_SFPU_FLOAT_COMPARE(ge, TESSEL_SFPU_BINARY_GE)
#undef TESSEL_SFPU_FLOAT_COMPARE

// ---------------------------------------------------------------------------
// Integer comparisons of two tiles (binary_comp.h): DST[odst] = DST[idst0] op
// DST[idst1] as 1 / 0, for Int32, UInt32 and UInt16 tiles.

#define TESSEL_SFPU_INT_COMPARE(name, OP)                                                                              \
  template <DataFormat data_format>                                                                                    \
  ALWI void name##_tile_init(TESSEL_SITE_PARAMS) {                                                                     \
    static_assert(data_format == DataFormat::Int32 || data_format == DataFormat::UInt32 ||                             \
                      data_format == DataFormat::UInt16,                                                               \
                  #name "_tile supports Int32, UInt32 and UInt16");                                                    \
    tessel_sfpu::binary_init<OP>(#name "_tile_init", TESSEL_SITE);                                                     \
  }                                                                                                                    \
  template <DataFormat data_format>                                                                                    \
  ALWI void name##_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {                           \
    static_assert(data_format == DataFormat::Int32 || data_format == DataFormat::UInt32 ||                             \
                      data_format == DataFormat::UInt16,                                                               \
                  #name "_tile supports Int32, UInt32 and UInt16");                                                    \
    tessel_sfpu::binary(OP, idst0, idst1, odst, TESSEL_SITE);                                                          \
  }

TESSEL_SFPU_INT_COMPARE(lt_int, TESSEL_SFPU_BINARY_LT_INT)
TESSEL_SFPU_INT_COMPARE(gt_int, TESSEL_SFPU_BINARY_GT_INT)
TESSEL_SFPU_INT_COMPARE(le_int, TESSEL_SFPU_BINARY_LE_INT)
TESSEL_SFPU_INT_COMPARE(ge_int, TESSEL_SFPU_BINARY_GE_INT)
#undef TESSEL_SFPU_INT_COMPARE

// ---------------------------------------------------------------------------
// where (eltwise_unary/where.h): DST[odst] = DST[idst0] != 0 ? DST[idst1] :
// DST[idst2] (a NaN condition counts as true). data_format: the tiles'
// format, one of those Metalium's where kernel accepts.

ALWI void where_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary_init<TESSEL_SFPU_TERNARY_WHERE>("where_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void where_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, TESSEL_SITE_PARAMS) {
  static_assert(data_format == DataFormat::Float32 || data_format == DataFormat::Float16_b ||
                    data_format == DataFormat::Int32 || data_format == DataFormat::UInt32,
                "where_tile supports Float32, Float16_b, Int32 and UInt32");
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_WHERE, idst0, idst1, idst2, odst, TESSEL_SITE);
}
// Older Metalium's spellings, without the format: where_tile for 16-bit
// tiles, where_fp32_tile for 32-bit ones (the same select here).
ALWI void where_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_WHERE, idst0, idst1, idst2, odst, TESSEL_SITE);
}
ALWI void where_fp32_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_WHERE, idst0, idst1, idst2, odst, TESSEL_SITE);
}

} // namespace ckernel

#endif // TESSEL_SFPU_COMPARE_H
