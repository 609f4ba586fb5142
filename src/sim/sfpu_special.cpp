// SFPU special functions and activations of their own Metalium headers (the
// unary ops of kernel_abi.h from TESSEL_SFPU_CBRT on: cbrt.h, hardmish.h,
// lgamma.h, softcap.h, activations.h, logsigmoid.h, log1p_exp_tile), the
// binary logsigmoid and lgamma_stirling steps, atan2, fmod, remainder and
// xlogy of two tiles (atan2.h, binary_fmod.h, binary_remainder.h, xlogy.h),
// and the ternary lerp, lgamma_adjusted, addcmul, addcdiv and snake_beta.
//
// Every function here is computed in double from the float inputs and
// rounded once to float, as sfpu_functions.cpp's are: the correctly rounded
// float except when the exact value lies within about 2^-29 float ULP of a
// rounding tie. softshrink, hardshrink and fmod are exact; the remainder
// is fmod plus one IEEE float addition where the signs differ. A NaN input gives NaN. These ops have no
// approximate mode. The operand a step is documented to take but whose
// value follows from another operand (logsigmoid's e^a, lgamma_stirling's
// ln z) is not read: the result is computed from the input itself.
#include <cmath>

#include "sim/sfpu_support.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

using namespace sfpu_detail;

namespace {

// ln|gamma(x)|, +inf at the poles; lgamma_r keeps the sign out of the
// process-wide signgam (cores may run on several threads).
double lgamma_d(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}
// ln gamma(z) with z = x < 0.5 ? 1 - x : x (the reflection's argument; z >= 0.5).
double lgamma_stirling_d(double x) { return lgamma_d(x < 0.5 ? 1.0 - x : x); }
// ln(1 + e^x) without overflow: x + ln(1 + e^-x) for positive x.
double softplus_d(double x) { return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
// x clamp(x + 2.8, 0, 5) / 5; a zero factor gives a zero of x's sign.
double hardmish_d(double x) {
  if (x != x) return x;
  const double c = x + 2.8 <= 0.0 ? 0.0 : x + 2.8 >= 5.0 ? 5.0 : x + 2.8;
  return c == 0.0 ? std::copysign(0.0, x) : x * c / 5.0;
}

template <double (*F)(double)>
void in_double(float* tile) {
  each(tile, [](float x) { return float(F(double(x))); });
}

double cbrt_d(double x) { return std::cbrt(x); }
// Phi(x) + x phi(x), Phi and phi the normal distribution and density.
double gelu_derivative_d(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
}
// 0.5 x (1 + tanh(z)), z = sqrt(2 / pi) (x + 0.044715 x^3), as x / (1 +
// e^-2z), which keeps the small results for negative x that 1 + tanh(z)
// would cancel; -0 at -inf, the limit.
double gelu_tanh_d(double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  return x / (1.0 + std::exp(-2.0 * std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
// sech(x)^2 = 1 / cosh(x)^2 (0 once cosh overflows).
double tanh_derivative_d(double x) {
  const double c = std::cosh(x);
  return 1.0 / (c * c);
}
double logsigmoid_d(double x) { return -softplus_d(-x); }
double neg_softplus_d(double x) { return -softplus_d(x); }

} // namespace

bool sfpu_detail::sfpu_special_unary(uint32_t op, float* tile, const SfpuParams& params) {
  const float p0 = from_bits(params.p0);
  const float p1 = from_bits(params.p1);
  switch (op) {
  case TESSEL_SFPU_CBRT: in_double<cbrt_d>(tile); return true;
  case TESSEL_SFPU_HARDMISH: in_double<hardmish_d>(tile); return true;
  case TESSEL_SFPU_LGAMMA: in_double<lgamma_d>(tile); return true;
  case TESSEL_SFPU_LGAMMA_STIRLING: in_double<lgamma_stirling_d>(tile); return true;
  case TESSEL_SFPU_LOG1P_EXP: in_double<softplus_d>(tile); return true;
  case TESSEL_SFPU_LOGSIGMOID: in_double<logsigmoid_d>(tile); return true;
  case TESSEL_SFPU_GELU_DERIVATIVE: in_double<gelu_derivative_d>(tile); return true;
  case TESSEL_SFPU_GELU_TANH: in_double<gelu_tanh_d>(tile); return true;
  case TESSEL_SFPU_TANH_DERIVATIVE: in_double<tanh_derivative_d>(tile); return true;
  // base^x (IEEE pow), base = p0.
  case TESSEL_SFPU_RPOW: {
    const double base = p0;
    each(tile, [base](float x) { return float(std::pow(base, double(x))); });
    return true;
  }
  // cap tanh(x / cap), the quotient taken as x times the reciprocal the
  // kernel passes (p1), as Metalium's kernel does.
  case TESSEL_SFPU_SOFTCAP: {
    const double cap = p0, inv = p1;
    each(tile, [cap, inv](float x) { return float(cap * std::tanh(double(x) * inv)); });
    return true;
  }
  // x > 0 ? x : alpha (e^(x / alpha) - 1), the quotient as x times p1.
  case TESSEL_SFPU_CELU: {
    const double alpha = p0, inv = p1;
    each(tile, [alpha, inv](float x) { return x > 0.0f ? x : float(alpha * std::expm1(double(x) * inv)); });
    return true;
  }
  // x - lambda above lambda, x + lambda below -lambda, 0 between (NaN stays).
  case TESSEL_SFPU_SOFTSHRINK:
    each(tile, [p0](float x) { return x > p0 ? x - p0 : x < -p0 ? x + p0 : x != x ? x : 0.0f; });
    return true;
  // x where |x| > lambda, else 0 (NaN stays).
  case TESSEL_SFPU_HARDSHRINK: each(tile, [p0](float x) { return abs_f(x) > p0 || x != x ? x : 0.0f; }); return true;
  default: return false;
  }
}

bool sfpu_detail::sfpu_special_binary(uint32_t op, const float* a, const float* b, float* out) {
  switch (op) {
  // a holds -x: -ln(1 + e^a) = logsigmoid(x).
  case TESSEL_SFPU_BINARY_LOGSIGMOID:
    binary_loop(a, b, out, [](float x, float) { return float(neg_softplus_d(double(x))); });
    return true;
  case TESSEL_SFPU_BINARY_LGAMMA_STIRLING:
    binary_loop(a, b, out, [](float x, float) { return float(lgamma_stirling_d(double(x))); });
    return true;
  case TESSEL_SFPU_BINARY_ATAN2:
    binary_loop(a, b, out, [](float y, float x) { return float(std::atan2(double(y), double(x))); });
    return true;
  // fmod is exact; the remainder adds b once where the signs differ.
  case TESSEL_SFPU_BINARY_FMOD: binary_loop(a, b, out, [](float x, float y) { return std::fmod(x, y); }); return true;
  case TESSEL_SFPU_BINARY_REMAINDER:
    binary_loop(a, b, out, [](float x, float y) {
      const float r = std::fmod(x, y);
      return r != 0.0f && std::signbit(r) != std::signbit(y) ? r + y : r;
    });
    return true;
  // a ln(b); 0 where a == 0 unless b is NaN.
  case TESSEL_SFPU_BINARY_XLOGY:
    binary_loop(a, b, out,
                [](float x, float y) { return x == 0.0f && y == y ? 0.0f : float(double(x) * std::log(double(y))); });
    return true;
  default: return false;
  }
}

bool sfpu_detail::sfpu_special_ternary(uint32_t op, const float* a, const float* b, const float* c, float* out,
                                       uint32_t p0) {
  alignas(64) float r[kTileHW];
  const double value = from_bits(p0);
  switch (op) {
  // start + weight (end - start).
  case TESSEL_SFPU_TERNARY_LERP:
    for (uint32_t i = 0; i < kTileHW; ++i)
      r[i] = float(double(a[i]) + double(c[i]) * (double(b[i]) - double(a[i])));
    break;
  // a = ln gamma(z), b = ln|sin(pi x)|, c = x: the reflection
  // ln|gamma(x)| = ln(pi) - ln|sin(pi x)| - ln gamma(1 - x) where x < 0.5.
  case TESSEL_SFPU_TERNARY_LGAMMA_ADJUSTED: {
    const double ln_pi = std::log(M_PI);
    for (uint32_t i = 0; i < kTileHW; ++i)
      r[i] = c[i] < 0.5f ? float(ln_pi - double(b[i]) - double(a[i])) : a[i];
    break;
  }
  // a + value b c and a + value b / c (value: addcmul's and addcdiv's scalar).
  case TESSEL_SFPU_TERNARY_ADDCMUL:
    for (uint32_t i = 0; i < kTileHW; ++i)
      r[i] = float(double(a[i]) + value * double(b[i]) * double(c[i]));
    break;
  case TESSEL_SFPU_TERNARY_ADDCDIV:
    for (uint32_t i = 0; i < kTileHW; ++i)
      r[i] = float(double(a[i]) + value * double(b[i]) / double(c[i]));
    break;
  // x + sin(alpha x)^2 / beta, a = x, b = alpha, c = beta.
  case TESSEL_SFPU_TERNARY_SNAKE_BETA:
    for (uint32_t i = 0; i < kTileHW; ++i) {
      const double s = std::sin(double(b[i]) * double(a[i]));
      r[i] = float(double(a[i]) + s * s / double(c[i]));
    }
    break;
  default: return false;
  }
  std::memcpy(out, r, sizeof r);
  return true;
}

} // namespace tessel::sim
