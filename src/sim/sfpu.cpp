// SFPU math on DST tiles (sfpu.hpp): the unary ops up to typecast and the
// binary add, sub, mul, div, max and min here; the others are handed to
// their family (sfpu_compare.cpp, sfpu_functions.cpp, sfpu_special.cpp,
// sfpu_bitwise.cpp, sfpu_integer.cpp). docs/numerics.md
// ("SFPU ops") states every rule below with its bound; tests/sim/sfpu_test.cpp
// pins them.
//
// Exact mode. Transcendental ops and power are computed in double from the
// float input and rounded once to float, so a result is the correctly
// rounded float except when the exact value lies within about 2^-29 float
// ULP of a rounding tie. sqrt, recip, square, leaky_relu and the binary ops
// are single IEEE float operations (correctly rounded). The rest (relu
// family, abs, neg, sign, floor, ceil, fill, typecast) is exact.
//
// Approximate mode (`approx`) replaces exp, exp2, log, sqrt, rsqrt, recip,
// sigmoid, tanh, gelu and silu with branch-free float code the compiler
// vectorises: a polynomial for 2^f, an atanh series for log, Newton steps
// from a bit-trick seed for recip and rsqrt. Their bounds (relative, before
// the engine's bf16 rounding) are stated per function below and measured in
// the tests. Other ops ignore `approx`.
//
// NaN inputs give NaN for every arithmetic op (relu-family comparisons let
// them through; sign(NaN) = NaN). Special values follow IEEE for the exact
// functions: log(0) = -inf, log(x < 0) = NaN, recip(+-0) = +-inf,
// sqrt(x < 0) = NaN, rsqrt(0) = inf, exp(-inf) = 0; see the doc for the rest.
#include "sim/sfpu.hpp"

#include <cmath>

#include "sim/formats.hpp"
#include "sim/sfpu_support.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

using namespace sfpu_detail;

namespace {

// ---- Exact transcendental functions (double, rounded once) ----

float exp_exact(float x) { return float(std::exp(double(x))); }
float exp2_exact(float x) { return float(std::exp2(double(x))); }
float log_exact(float x) { return float(std::log(double(x))); }
float rsqrt_exact(float x) { return float(1.0 / std::sqrt(double(x))); }
float recip_exact(float x) { return 1.0f / x; }
float sigmoid_exact(float x) { return float(1.0 / (1.0 + std::exp(-double(x)))); }
float tanh_exact(float x) { return float(std::tanh(double(x))); }
float sin_exact(float x) { return float(std::sin(double(x))); }
float cos_exact(float x) { return float(std::cos(double(x))); }
// x * sigmoid(x) and x * Phi(x) tend to -0 as x -> -inf (IEEE would say
// -inf * 0 = NaN there).
float silu_exact(float x) {
  if (x == -kInf) return -0.0f;
  const double d = x;
  return float(d / (1.0 + std::exp(-d)));
}
float gelu_exact(float x) {
  if (x == -kInf) return -0.0f;
  const double d = x;
  return float(0.5 * d * std::erfc(-d * 0.70710678118654752440));
}

// ---- Approximations (float, branch-free, with sel() for ?:) ----

// 2^t: t = n + f with n = round(t), |f| <= 1/2; 2^f by a degree-3 polynomial
// with p(0) = 1 (relative error <= 1.02e-4 on [-1/2, 1/2], fitted for minimax
// relative error), times 2^n built in the exponent field. Results below
// 2^-126 are 0, at or above 2^128 infinity. Bound: 2^-13 relative.
inline float exp2_approx(float t) {
  float tc = sel(t > -127.0f, t, -127.0f); // also maps NaN to a number (NaN is selected below)
  tc = sel(tc < 128.0f, tc, 128.0f);
  const float r = (tc + 12582912.0f) - 12582912.0f; // round to nearest even: 1.5 * 2^23
  const float f = tc - r;
  const float p = 1.0f + f * (0.69328293f + f * (0.24221096f + f * 0.05500893f));
  // 2^n as 2^n1 * 2^n2 (n1 = floor(n/2)): both normal for every n in [-127, 128].
  const int32_t n = int32_t(r);
  const int32_t n1 = n >> 1;
  const float y0 = (p * from_bits(uint32_t(n1 + 127) << 23)) * from_bits(uint32_t(n - n1 + 127) << 23);
  float y = sel(t < -126.0f, 0.0f, y0);
  y = sel(t >= 128.0f, kInf, y);
  return sel(t != t, t, y);
}

// e^x = 2^(x log2 e); the product's rounding adds at most 2.7e-6 relative.
// Bound: 2^-13 relative.
inline float exp_approx(float x) { return exp2_approx(x * 1.44269504f); }

// ln x = e ln 2 + ln m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s),
// s = (m - 1) / (m + 1), |s| <= 0.1716, by its series to s^7. Denormal
// inputs are scaled by 2^23 first. Bound: 2^-20 relative. Specials as
// std::log: 0 -> -inf, x < 0 -> NaN, +inf -> +inf.
inline float log_approx(float x) {
  const bool tiny = x < kMinNormal;
  const float xs = sel(tiny, x * 8388608.0f, x);
  const uint32_t b = bits_of(xs);
  const float e0 = float(int32_t((b >> 23) & 0xffu) - 127) - sel(tiny, 23.0f, 0.0f);
  const float m0 = from_bits((b & 0x007fffffu) | 0x3f800000u);
  const bool high = m0 > 1.41421356f;
  const float m = sel(high, m0 * 0.5f, m0);
  const float e = sel(high, e0 + 1.0f, e0);
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  const float ln_m = 2.0f * s * (1.0f + s2 * (0.33333334f + s2 * (0.2f + s2 * 0.14285715f)));
  const float y = e * 0.69314718f + ln_m;
  const float special = sel(x == 0.0f, -kInf, sel(x < 0.0f, kNaN, x)); // x is +inf or NaN otherwise
  return sel((x > 0.0f) & (x < kInf), y, special);
}

// 1/x for |x| in [2^-126, 2^125): a bit-trick seed (relative error <= 0.06)
// and two Newton steps y' = y (2 - |x| y). Other inputs (zeros, denormals,
// huge values, infinities, NaN) take the IEEE division. Bound: 2^-16 relative.
inline float recip_approx(float x) {
  const float ax = abs_f(x);
  float y = from_bits(0x7ef311c3u - bits_of(ax));
  y = y * (2.0f - ax * y);
  y = y * (2.0f - ax * y);
  return sel((ax >= kMinNormal) & (ax < 0x1p125f), copysign_f(y, x), 1.0f / x);
}

// 1/sqrt for normal x > 0: the classic bit-trick seed and two Newton steps
// y' = y (1.5 - x/2 y^2). Relative error <= 2^-17.
inline float rsqrt_core(float x) {
  float y = from_bits(0x5f3759dfu - (bits_of(x) >> 1));
  const float half = 0.5f * x;
  y = y * (1.5f - half * y * y);
  return y * (1.5f - half * y * y);
}

// 1/sqrt(x); denormals are scaled by 2^24 first (then 1/sqrt is 2^12 times
// larger). Specials as 1/std::sqrt: +-0 -> +-inf, x < 0 -> NaN, inf -> 0.
// Bound: 2^-16 relative.
inline float rsqrt_approx(float x) {
  const bool tiny = x < kMinNormal;
  const float y = rsqrt_core(sel(tiny, x * 16777216.0f, x));
  const float special = sel(x == 0.0f, copysign_f(kInf, x), sel(x < 0.0f, kNaN, sel(x == kInf, 0.0f, x)));
  return sel((x > 0.0f) & (x < kInf), sel(tiny, y * 4096.0f, y), special);
}

// sqrt(x) = x / sqrt(x), with x scaled as for rsqrt. Specials as std::sqrt:
// +-0 -> +-0, x < 0 -> NaN, inf -> inf. Bound: 2^-16 relative.
inline float sqrt_approx(float x) {
  const bool tiny = x < kMinNormal;
  const float xs = sel(tiny, x * 16777216.0f, x);
  const float y = xs * rsqrt_core(xs);
  const float special = sel(x < 0.0f, kNaN, x); // +-0, +inf, NaN
  return sel((x > 0.0f) & (x < kInf), sel(tiny, y * 0x1p-12f, y), special);
}

// e^x / (1 + e^x) for x < 0 and 1 / (1 + e^-x) otherwise, with the
// approximate exp: the relative error is at most exp's, until e^x falls
// below 2^-126 (x < -87.3), where the result (< 2^-126) is 0.
// Bound: 2^-13 relative, or 2^-126 absolute.
inline float sigmoid_approx(float x) {
  const float e = exp_approx(-abs_f(x));
  const float r = 1.0f / (1.0f + e);
  return sel(x < 0.0f, e * r, r);
}

// |x| < 1/2: the odd Taylor polynomial to x^9 (truncation <= 9.4e-6
// relative); otherwise 1 - 2 / (e^2|x| + 1) with the approximate exp (at
// most 1.1 times exp's error, since tanh >= 0.46 there). Bound: 2^-13 relative.
inline float tanh_approx(float x) {
  const float a = abs_f(x);
  const float x2 = x * x;
  const float small = x * (1.0f + x2 * (-0.33333334f + x2 * (0.13333334f + x2 * (-0.053968254f + x2 * 0.021869488f))));
  const float large = copysign_f(1.0f - 2.0f / (exp_approx(2.0f * a) + 1.0f), x);
  return sel(a < 0.5f, small, large);
}

// The tanh form of GELU, 0.5 x (1 + tanh(z)) with z = sqrt(2/pi)(x + 0.044715 x^3),
// written as x * sigmoid(2z) so that no cancellation occurs for x < 0.
// Bound against the tanh form: 2^-12 relative (exp's error plus the
// rounding of z, up to 1.7e-5 relative in sigmoid where |2z| nears 87), or
// 2^-119 absolute (where sigmoid(2z) < 2^-126, x < -10.2). The tanh form
// itself differs from the erf form by up to 4.8e-4 absolute.
inline float gelu_approx(float x) {
  const float z2 = 1.59576912f * (x + 0.044715f * x * x * x); // 2 sqrt(2/pi) (x + 0.044715 x^3)
  return sel(x == -kInf, -0.0f, x * sigmoid_approx(z2));
}

// x * sigmoid(x) with the approximate sigmoid. Bound: 2^-13 relative, or
// 2^-119 absolute (where sigmoid(x) < 2^-126, x > -104).
inline float silu_approx(float x) { return sel(x == -kInf, -0.0f, x * sigmoid_approx(x)); }

// ---- Rounding to integers (branch-free) ----

// floor and ceil through truncation to int32 (only for |x| < 2^23, where
// the conversion is exact); a zero result takes x's sign, as IEEE's do.
inline float floor_f(float x) {
  const bool small = abs_f(x) < 8388608.0f;
  const float xs = sel(small, x, 0.0f);
  const float t = float(int32_t(xs));
  float r = sel(t > xs, t - 1.0f, t);
  r = sel(r == 0.0f, copysign_f(0.0f, x), r);
  return sel(small, r, x);
}
inline float ceil_f(float x) {
  const bool small = abs_f(x) < 8388608.0f;
  const float xs = sel(small, x, 0.0f);
  const float t = float(int32_t(xs));
  float r = sel(t < xs, t + 1.0f, t);
  r = sel(r == 0.0f, copysign_f(0.0f, x), r);
  return sel(small, r, x);
}

// ---- typecast ----

// DST holds floats; an integer format's values are the integers as floats.
// To an integer format: nearest integer (ties to even), saturated to the
// format's range, NaN -> 0 (the range's upper end for Int32 and UInt32 is
// 2^31 / 2^32 as a float, which pack_tile writes as the largest integer).
// To Float16_b: rounded to bfloat16. To Float32, Bfp8_b and Bfp4_b: unchanged
// (pack_tile converts). The input format does not change the math: the
// unpacker already turned the input into floats.
void typecast(float* tile, uint32_t out_format) {
  auto saturate = [tile](float lo, float hi) {
    each(tile, [lo, hi](float x) {
      float r = round_even(x);
      r = sel(r < lo, lo, r);
      r = sel(r > hi, hi, r);
      return sel(x != x, 0.0f, r);
    });
  };
  switch (DataFormat(out_format)) {
  case DataFormat::Float16_b: each(tile, [](float x) { return round_to_bf16(x); }); return;
  case DataFormat::Int32: saturate(-0x1p31f, 0x1p31f); return;
  case DataFormat::UInt32: saturate(0.0f, 0x1p32f); return;
  case DataFormat::UInt16: saturate(0.0f, 65535.0f); return;
  case DataFormat::UInt8: saturate(0.0f, 255.0f); return;
  case DataFormat::Int8: saturate(-128.0f, 127.0f); return;
  default: return;
  }
}

// The approximate and the exact form of one op, each as its own loop.
struct Exp {
  static float approx(float x) { return exp_approx(x); }
  static float exact(float x) { return exp_exact(x); }
};
struct Exp2 {
  static float approx(float x) { return exp2_approx(x); }
  static float exact(float x) { return exp2_exact(x); }
};
struct Log {
  static float approx(float x) { return log_approx(x); }
  static float exact(float x) { return log_exact(x); }
};
struct Sqrt {
  static float approx(float x) { return sqrt_approx(x); }
  static float exact(float x) { return std::sqrt(x); }
};
struct Rsqrt {
  static float approx(float x) { return rsqrt_approx(x); }
  static float exact(float x) { return rsqrt_exact(x); }
};
struct Recip {
  static float approx(float x) { return recip_approx(x); }
  static float exact(float x) { return recip_exact(x); }
};
struct Gelu {
  static float approx(float x) { return gelu_approx(x); }
  static float exact(float x) { return gelu_exact(x); }
};
struct Sigmoid {
  static float approx(float x) { return sigmoid_approx(x); }
  static float exact(float x) { return sigmoid_exact(x); }
};
struct Tanh {
  static float approx(float x) { return tanh_approx(x); }
  static float exact(float x) { return tanh_exact(x); }
};
struct Silu {
  static float approx(float x) { return silu_approx(x); }
  static float exact(float x) { return silu_exact(x); }
};

template <class Op>
void each_mode(float* tile, bool approx) {
  if (approx)
    each(tile, [](float x) { return Op::approx(x); });
  else
    each(tile, [](float x) { return Op::exact(x); });
}

} // namespace

void sfpu_unary(uint32_t op, float* tile, const SfpuParams& params) {
  const bool approx = params.approx;
  const float p0 = std::bit_cast<float>(params.p0);
  switch (op) {
  case TESSEL_SFPU_EXP: each_mode<Exp>(tile, approx); return;
  case TESSEL_SFPU_EXP2: each_mode<Exp2>(tile, approx); return;
  case TESSEL_SFPU_LOG: each_mode<Log>(tile, approx); return;
  case TESSEL_SFPU_SQRT: each_mode<Sqrt>(tile, approx); return;
  case TESSEL_SFPU_RSQRT: each_mode<Rsqrt>(tile, approx); return;
  case TESSEL_SFPU_RECIP: each_mode<Recip>(tile, approx); return;
  case TESSEL_SFPU_RELU: each(tile, [](float x) { return sel(x < 0.0f, 0.0f, x); }); return;
  case TESSEL_SFPU_RELU_MAX: // clamp to [0, limit]
    each(tile, [p0](float x) {
      const float r = sel(x > p0, p0, x);
      return sel(r < 0.0f, 0.0f, r);
    });
    return;
  case TESSEL_SFPU_RELU_MIN: each(tile, [p0](float x) { return sel(x < p0, p0, x); }); return;
  case TESSEL_SFPU_LEAKY_RELU: each(tile, [p0](float x) { return sel(x < 0.0f, x * p0, x); }); return;
  case TESSEL_SFPU_GELU: each_mode<Gelu>(tile, approx); return;
  case TESSEL_SFPU_SIGMOID: each_mode<Sigmoid>(tile, approx); return;
  case TESSEL_SFPU_TANH: each_mode<Tanh>(tile, approx); return;
  case TESSEL_SFPU_SILU: each_mode<Silu>(tile, approx); return;
  case TESSEL_SFPU_ABS: each(tile, [](float x) { return abs_f(x); }); return;
  case TESSEL_SFPU_NEG: each(tile, [](float x) { return from_bits(bits_of(x) ^ 0x80000000u); }); return;
  case TESSEL_SFPU_SQUARE: each(tile, [](float x) { return x * x; }); return;
  case TESSEL_SFPU_POWER: {
    const double n = double(params.p0);
    each(tile, [n](float x) { return float(std::pow(double(x), n)); });
    return;
  }
  case TESSEL_SFPU_SIN: each(tile, [](float x) { return sin_exact(x); }); return;
  case TESSEL_SFPU_COS: each(tile, [](float x) { return cos_exact(x); }); return;
  case TESSEL_SFPU_SIGN: each(tile, [](float x) { return sel(x > 0.0f, 1.0f, sel(x < 0.0f, -1.0f, x)); }); return;
  case TESSEL_SFPU_FLOOR: each(tile, [](float x) { return floor_f(x); }); return;
  case TESSEL_SFPU_CEIL: each(tile, [](float x) { return ceil_f(x); }); return;
  case TESSEL_SFPU_FILL: each(tile, [p0](float) { return p0; }); return;
  case TESSEL_SFPU_TYPECAST: typecast(tile, params.p1); return;
  default:
    if (!sfpu_compare_unary(op, tile, params) && !sfpu_function_unary(op, tile, params) &&
        !sfpu_special_unary(op, tile, params))
      sfpu_misc_unary(op, tile, params);
    return;
  }
}

void sfpu_binary(uint32_t op, const float* a, const float* b, float* out) {
  switch (op) {
  case TESSEL_SFPU_BINARY_ADD: binary_loop(a, b, out, [](float x, float y) { return x + y; }); return;
  case TESSEL_SFPU_BINARY_SUB: binary_loop(a, b, out, [](float x, float y) { return x - y; }); return;
  case TESSEL_SFPU_BINARY_MUL: binary_loop(a, b, out, [](float x, float y) { return x * y; }); return;
  case TESSEL_SFPU_BINARY_DIV: binary_loop(a, b, out, [](float x, float y) { return x / y; }); return;
  // A NaN operand is ignored (IEEE maxNum / minNum); equal values (+0 and -0)
  // give the second operand.
  case TESSEL_SFPU_BINARY_MAX:
    binary_loop(a, b, out, [](float x, float y) { return sel((x > y) | (y != y), x, y); });
    return;
  case TESSEL_SFPU_BINARY_MIN:
    binary_loop(a, b, out, [](float x, float y) { return sel((x < y) | (y != y), x, y); });
    return;
  default:
    if (!sfpu_compare_binary(op, a, b, out) && !sfpu_function_binary(op, a, b, out) &&
        !sfpu_special_binary(op, a, b, out) && !sfpu_bitwise_binary(op, a, b, out) &&
        !sfpu_integer_binary(op, a, b, out))
      sfpu_misc_binary(op, a, b, out);
    return;
  }
}

} // namespace tessel::sim
