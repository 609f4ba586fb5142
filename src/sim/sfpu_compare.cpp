// SFPU comparisons and selections: comparisons with zero and with a scalar,
// classification (isinf, isnan, signbit, ...), logical_not, heaviside, the
// comparisons of two tiles (float and integer), and where. All exact: a result is 1.0
// or 0.0, an operand, or (heaviside) the call's value.
//
// Comparisons are IEEE's: +0 and -0 are equal (both "zero"), a NaN is unequal
// to everything and ordered comparisons with it are false, so nez(NaN) = 1,
// eqz(NaN) = ltz(NaN) = ... = 0. Integer tiles hold their values as floats
// (docs/numerics.md), which compares them exactly up to 2^24 in magnitude.
#include "sim/sfpu_support.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

using namespace sfpu_detail;

bool sfpu_detail::sfpu_compare_unary(uint32_t op, float* tile, const SfpuParams& params) {
  const float s = from_bits(params.p0);
  switch (op) {
  case TESSEL_SFPU_EQZ: each(tile, [](float x) { return one_if(x == 0.0f); }); return true;
  case TESSEL_SFPU_NEZ: each(tile, [](float x) { return one_if(x != 0.0f); }); return true;
  case TESSEL_SFPU_LTZ: each(tile, [](float x) { return one_if(x < 0.0f); }); return true;
  case TESSEL_SFPU_GTZ: each(tile, [](float x) { return one_if(x > 0.0f); }); return true;
  case TESSEL_SFPU_LEZ: each(tile, [](float x) { return one_if(x <= 0.0f); }); return true;
  case TESSEL_SFPU_GEZ: each(tile, [](float x) { return one_if(x >= 0.0f); }); return true;
  case TESSEL_SFPU_UNARY_EQ: each(tile, [s](float x) { return one_if(x == s); }); return true;
  case TESSEL_SFPU_UNARY_NE: each(tile, [s](float x) { return one_if(x != s); }); return true;
  case TESSEL_SFPU_UNARY_GT: each(tile, [s](float x) { return one_if(x > s); }); return true;
  case TESSEL_SFPU_UNARY_LT: each(tile, [s](float x) { return one_if(x < s); }); return true;
  case TESSEL_SFPU_UNARY_GE: each(tile, [s](float x) { return one_if(x >= s); }); return true;
  case TESSEL_SFPU_UNARY_LE: each(tile, [s](float x) { return one_if(x <= s); }); return true;
  case TESSEL_SFPU_ISINF: each(tile, [](float x) { return one_if(abs_f(x) == kInf); }); return true;
  case TESSEL_SFPU_ISPOSINF: each(tile, [](float x) { return one_if(x == kInf); }); return true;
  case TESSEL_SFPU_ISNEGINF: each(tile, [](float x) { return one_if(x == -kInf); }); return true;
  case TESSEL_SFPU_ISNAN: each(tile, [](float x) { return one_if(x != x); }); return true;
  case TESSEL_SFPU_ISFINITE: each(tile, [](float x) { return one_if(abs_f(x) < kInf); }); return true;
  // The sign bit itself: 1 for -0 and for a NaN with the bit set.
  case TESSEL_SFPU_SIGNBIT: each(tile, [](float x) { return one_if((bits_of(x) >> 31) != 0); }); return true;
  case TESSEL_SFPU_LOGICAL_NOT: each(tile, [](float x) { return one_if(x == 0.0f); }); return true;
  // 0 below zero, 1 above, the value at +-0; NaN stays NaN.
  case TESSEL_SFPU_HEAVISIDE:
    each(tile, [s](float x) { return sel(x == 0.0f, s, sel(x > 0.0f, 1.0f, sel(x < 0.0f, 0.0f, x))); });
    return true;
  default: return false;
  }
}

bool sfpu_detail::sfpu_compare_binary(uint32_t op, const float* a, const float* b, float* out) {
  switch (op) {
  case TESSEL_SFPU_BINARY_LT_INT: binary_loop(a, b, out, [](float x, float y) { return one_if(x < y); }); return true;
  case TESSEL_SFPU_BINARY_GT_INT: binary_loop(a, b, out, [](float x, float y) { return one_if(x > y); }); return true;
  case TESSEL_SFPU_BINARY_LE_INT: binary_loop(a, b, out, [](float x, float y) { return one_if(x <= y); }); return true;
  case TESSEL_SFPU_BINARY_GE_INT: binary_loop(a, b, out, [](float x, float y) { return one_if(x >= y); }); return true;
  case TESSEL_SFPU_BINARY_EQ: binary_loop(a, b, out, [](float x, float y) { return one_if(x == y); }); return true;
  case TESSEL_SFPU_BINARY_NE: binary_loop(a, b, out, [](float x, float y) { return one_if(x != y); }); return true;
  case TESSEL_SFPU_BINARY_LT: binary_loop(a, b, out, [](float x, float y) { return one_if(x < y); }); return true;
  case TESSEL_SFPU_BINARY_GT: binary_loop(a, b, out, [](float x, float y) { return one_if(x > y); }); return true;
  case TESSEL_SFPU_BINARY_LE: binary_loop(a, b, out, [](float x, float y) { return one_if(x <= y); }); return true;
  case TESSEL_SFPU_BINARY_GE: binary_loop(a, b, out, [](float x, float y) { return one_if(x >= y); }); return true;
  default: return false;
  }
}

void sfpu_ternary(uint32_t op, const float* a, const float* b, const float* c, float* out, uint32_t p0) {
  if (op != TESSEL_SFPU_TERNARY_WHERE) {
    if (!sfpu_special_ternary(op, a, b, c, out, p0)) sfpu_misc_ternary(op, a, b, c, out, p0);
    return;
  }
  // A condition of +-0 picks c; anything else (NaN included) picks b.
  alignas(64) float r[kTileHW];
  for (uint32_t i = 0; i < kTileHW; ++i)
    r[i] = sel(a[i] != 0.0f, b[i], c[i]);
  std::memcpy(out, r, sizeof r);
}

} // namespace tessel::sim
