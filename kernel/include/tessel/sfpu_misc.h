// SFPU ops of TT-Metalium's newer headers, with its names, template
// parameters and argument orders: nextafter.h (nextafter_binary_tile,
// nextafter_bf16_binary_tile), eltwise_unary/mac.h (mac_tile),
// eltwise_unary/identity.h (identity_tile, identity_tile_uint32) and
// eltwise_unary/i0.h (i0_tile), eltwise_unary/i1.h (i1_tile), logaddexp.h
// and logaddexp2.h. Only those headers include this one.
// What each op computes: src/sim/sfpu_misc.cpp; bounds: docs/numerics.md.
//
// nextafter steps DST[idst0] one representable value toward DST[idst1]
// into DST[odst]: one float32 ULP (nextafter_binary_tile, which needs a
// 32-bit DST, as Metalium's static_assert says) or one bfloat16 ULP
// (nextafter_bf16_binary_tile).
//
// mac_tile<format>(0, 1, 2, 0): DST[0] = DST[0] * DST[1] + DST[2]. Its init
// records the SFPU program with those tiles fixed, so silicon reads tiles 0,
// 1, 2 and writes tile 0 whatever indices the call names; other indices are
// warned about (an error under TESSEL_STRICT=1). Float32 and Float16_b only.
#ifndef TESSEL_SFPU_MISC_H
#define TESSEL_SFPU_MISC_H

#include "tessel/sfpu.h"

namespace ckernel {

// ---------------------------------------------------------------------------
// nextafter (nextafter.h)

template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void nextafter_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  static_assert(is_fp32_dest_acc_en, "nextafter_binary_tile steps one float32 ULP and requires a float32 DEST "
                                     "(fp32_dest_acc_en); use nextafter_bf16_binary_tile for bfloat16 tiles");
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_NEXTAFTER, idst0, idst1, odst, TESSEL_SITE);
}
ALWI void nextafter_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_NEXTAFTER>("nextafter_binary_tile_init", TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void nextafter_bf16_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_NEXTAFTER_BF16, idst0, idst1, odst, TESSEL_SITE);
}
ALWI void nextafter_bf16_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_NEXTAFTER_BF16>("nextafter_bf16_binary_tile_init", TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Multiply-accumulate (eltwise_unary/mac.h)

template <DataFormat data_format>
ALWI void mac_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, TESSEL_SITE_PARAMS) {
  static_assert(data_format == DataFormat::Float32 || data_format == DataFormat::Float16_b,
                "Unsupported data format for mac_tile. Supported data formats are: Float32, Float16_b.");
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_MAC, idst0, idst1, idst2, odst, TESSEL_SITE, uint32_t(data_format));
}
template <DataFormat data_format>
ALWI void mac_tile_init(TESSEL_SITE_PARAMS) {
  static_assert(data_format == DataFormat::Float32 || data_format == DataFormat::Float16_b,
                "Unsupported data format for mac_tile_init. Supported data formats are: Float32, Float16_b.");
  tessel_sfpu::ternary_init<TESSEL_SFPU_TERNARY_MAC>("mac_tile_init", TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Identity (eltwise_unary/identity.h): DST unchanged, read and written back
// as float or as a 32-bit word. One init for both.

ALWI void identity_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_IDENTITY, TESSEL_SFPU_IDENTITY_UINT32>("identity_tile_init", TESSEL_SITE);
}
ALWI void identity_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_IDENTITY, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void identity_tile_uint32(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_IDENTITY_UINT32, idst, 0, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Modified Bessel function of the first kind, order 0 (eltwise_unary/i0.h).

TESSEL_SFPU_SIMPLE_OP(i0, TESSEL_SFPU_I0)

// Order 1 (eltwise_unary/i1.h), odd.
TESSEL_SFPU_SIMPLE_OP(i1, TESSEL_SFPU_I1)

// ---------------------------------------------------------------------------
// ln(e^a + e^b) (logaddexp.h) and log2(2^a + 2^b) (logaddexp2.h).

template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void logaddexp_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_LOGADDEXP, idst0, idst1, odst, TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void logaddexp_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_LOGADDEXP>("logaddexp_binary_tile_init", TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void logaddexp2_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_LOGADDEXP2, idst0, idst1, odst, TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void logaddexp2_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_LOGADDEXP2>("logaddexp2_binary_tile_init", TESSEL_SITE);
}

} // namespace ckernel

using namespace ckernel;

#endif // TESSEL_SFPU_MISC_H
