// SFPU special and inverse functions, rounding, activations and arithmetic
// with a scalar (the unary ops of kernel_abi.h from TESSEL_SFPU_ERF on), and
// the binary rsub, power and div_no_nan.
//
// Functions of one variable (erf ... log_with_base, elu) are computed in
// double from the float input and rounded once to float, as sfpu.cpp's exact
// transcendental ops are: the result is the correctly rounded float except
// when the exact value lies within about 2^-29 float ULP of a rounding tie.
// erfinv, which the C library lacks, is refined by Newton steps to about
// 2^-40 relative before that rounding; selu, hardsigmoid and binary power
// likewise round once from double. The rest (trunc, frac, round with 0
// decimals, hardtanh, threshold, prelu, the scalar arithmetic, rsub,
// div_no_nan) is exact or one IEEE float operation. These ops have no approximate mode.
#include <algorithm>
#include <cmath>

#include "sim/sfpu_support.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

using namespace sfpu_detail;

namespace {

// x -> float(f(double(x))): one rounding.
template <double (*F)(double)>
void in_double(float* tile) {
  each(tile, [](float x) { return float(F(double(x))); });
}

double erf_d(double x) { return std::erf(x); }
double erfc_d(double x) { return std::erfc(x); }
double asin_d(double x) { return std::asin(x); }
double acos_d(double x) { return std::acos(x); }
double atan_d(double x) { return std::atan(x); }
double asinh_d(double x) { return std::asinh(x); }
double acosh_d(double x) { return std::acosh(x); }
double atanh_d(double x) { return std::atanh(x); }
double sinh_d(double x) { return std::sinh(x); }
double cosh_d(double x) { return std::cosh(x); }
double tan_d(double x) { return std::tan(x); }
double log1p_d(double x) { return std::log1p(x); }
double expm1_d(double x) { return std::expm1(x); }

// erfinv: a closed-form start (relative error below 2e-3) and Newton steps
// on erf(y) = |x|, written as erfc(y) = 1 - |x| for |x| > 1/2, which keeps
// the small 1 - |x| exact (x is a float) where erf(y) would round it away. Each step squares the relative
// error: 4 steps reach the limit of double. erfinv(+-1) = +-inf, |x| > 1
// and NaN give NaN.
double erfinv_d(double x) {
  const double a = std::fabs(x);
  if (!(a < 1.0)) return a == 1.0 ? std::copysign(HUGE_VAL, x) : std::nan("");
  if (a == 0.0) return x;
  const double ln = std::log((1.0 - a) * (1.0 + a));
  const double k = 2.0 / (M_PI * 0.147) + ln / 2.0;
  double y = std::sqrt(std::sqrt(k * k - ln / 0.147) - k);
  const double r = 1.0 - a;
  for (int i = 0; i < 4; ++i) {
    const double residual = a <= 0.5 ? a - std::erf(y) : std::erfc(y) - r; // both a - erf(y)
    y += residual / (2.0 / std::sqrt(M_PI) * std::exp(-y * y));
  }
  return std::copysign(y, x);
}

// Round half to even at `decimals` decimal places: nearest even integer of
// x * 10^decimals, divided by 10^decimals, in double, rounded once to float.
// A scaled value beyond 2^52 is integral already: x is returned; with
// 10^decimals below double's range, the result is a zero of x's sign.
float round_decimals(float x, int32_t decimals) {
  if (decimals == 0) return round_even(x);
  const double scale = std::pow(10.0, double(decimals));
  if (scale == 0.0) return std::isinf(x) ? x : copysign_f(0.0f, x); // 10^decimals below double's range
  const double scaled = double(x) * scale;
  if (!(std::fabs(scaled) < 0x1p52)) return x;
  return float(std::nearbyint(scaled) / scale);
}

// Truncation toward zero, as floor_f in sfpu.cpp: through int32 for
// |x| < 2^23 (exact there), x itself beyond; a zero keeps x's sign.
inline float trunc_f(float x) {
  const bool small = abs_f(x) < 8388608.0f;
  const float t = float(int32_t(sel(small, x, 0.0f)));
  return sel(small, copysign_f(t, x), x);
}

} // namespace

bool sfpu_detail::sfpu_function_unary(uint32_t op, float* tile, const SfpuParams& params) {
  const float p0 = from_bits(params.p0), p1 = from_bits(params.p1);
  switch (op) {
  case TESSEL_SFPU_ERF: in_double<erf_d>(tile); return true;
  case TESSEL_SFPU_ERFC: in_double<erfc_d>(tile); return true;
  case TESSEL_SFPU_ERFINV: in_double<erfinv_d>(tile); return true;
  case TESSEL_SFPU_ASIN: in_double<asin_d>(tile); return true;
  case TESSEL_SFPU_ACOS: in_double<acos_d>(tile); return true;
  case TESSEL_SFPU_ATAN: in_double<atan_d>(tile); return true;
  case TESSEL_SFPU_ASINH: in_double<asinh_d>(tile); return true;
  case TESSEL_SFPU_ACOSH: in_double<acosh_d>(tile); return true;
  case TESSEL_SFPU_ATANH: in_double<atanh_d>(tile); return true;
  case TESSEL_SFPU_SINH: in_double<sinh_d>(tile); return true;
  case TESSEL_SFPU_COSH: in_double<cosh_d>(tile); return true;
  case TESSEL_SFPU_TAN: in_double<tan_d>(tile); return true;
  case TESSEL_SFPU_LOG1P: in_double<log1p_d>(tile); return true;
  case TESSEL_SFPU_EXPM1: in_double<expm1_d>(tile); return true;
  case TESSEL_SFPU_LOG_WITH_BASE: {
    const double scale = p0;
    each(tile, [scale](float x) { return float(std::log(double(x)) * scale); });
    return true;
  }
  case TESSEL_SFPU_TRUNC: each(tile, [](float x) { return trunc_f(x); }); return true;
  // x - trunc(x), exact in float: +0 for an integral x, NaN for infinities.
  case TESSEL_SFPU_FRAC: each(tile, [](float x) { return x - trunc_f(x); }); return true;
  case TESSEL_SFPU_ROUND: {
    const int32_t decimals = int32_t(params.p0);
    each(tile, [decimals](float x) { return round_decimals(x, decimals); });
    return true;
  }
  // x for x > 0, alpha (e^x - 1) otherwise.
  case TESSEL_SFPU_ELU: {
    const double alpha = p0;
    each(tile, [alpha](float x) { return x > 0.0f ? x : float(alpha * std::expm1(double(x))); });
    return true;
  }
  // Clamp to [p0, p1]; NaN passes through.
  case TESSEL_SFPU_HARDTANH:
  case TESSEL_SFPU_CLAMP: each(tile, [p0, p1](float x) { return sel(x < p0, p0, sel(x > p1, p1, x)); }); return true;
  // x above the threshold p0, the value p1 otherwise (NaN included).
  case TESSEL_SFPU_THRESHOLD: each(tile, [p0, p1](float x) { return sel(x > p0, x, p1); }); return true;
  case TESSEL_SFPU_ADD_SCALAR: each(tile, [p0](float x) { return x + p0; }); return true;
  case TESSEL_SFPU_SUB_SCALAR: each(tile, [p0](float x) { return x - p0; }); return true;
  case TESSEL_SFPU_MUL_SCALAR: each(tile, [p0](float x) { return x * p0; }); return true;
  case TESSEL_SFPU_DIV_SCALAR: each(tile, [p0](float x) { return x / p0; }); return true;
  case TESSEL_SFPU_RSUB_SCALAR: each(tile, [p0](float x) { return p0 - x; }); return true;
  // scale (x > 0 ? x : alpha (e^x - 1)), in double, rounded once.
  case TESSEL_SFPU_SELU: {
    const double scale = p0, alpha = p1;
    each(tile, [scale, alpha](float x) {
      const double d = x;
      return float(scale * (d > 0 ? d : alpha * std::expm1(d)));
    });
    return true;
  }
  case TESSEL_SFPU_PRELU: each(tile, [p0](float x) { return sel(x < 0.0f, x * p0, x); }); return true;
  // x hardsigmoid(x) in double, rounded once; x <= -3 (-inf included) gives
  // a zero of x's sign.
  case TESSEL_SFPU_HARDSWISH:
    each(tile, [](float x) {
      const double y = std::min(std::max(double(x) / 6.0 + 0.5, 0.0), 1.0);
      return y == 0.0 ? copysign_f(0.0f, x) : float(double(x) * y);
    });
    return true;
  // x / (1 + |x|) in double, rounded once; +-1 at +-inf.
  case TESSEL_SFPU_SOFTSIGN:
    each(tile,
         [](float x) { return std::isinf(x) ? copysign_f(1.0f, x) : float(double(x) / (1.0 + std::fabs(double(x)))); });
    return true;
  // x / 6 + 1/2 in double, rounded once, then clamped to [0, 1].
  case TESSEL_SFPU_HARDSIGMOID:
    each(tile, [](float x) {
      const float y = float(double(x) / 6.0 + 0.5);
      return sel(y < 0.0f, 0.0f, sel(y > 1.0f, 1.0f, y));
    });
    return true;
  default: return false;
  }
}

bool sfpu_detail::sfpu_function_binary(uint32_t op, const float* a, const float* b, float* out) {
  switch (op) {
  case TESSEL_SFPU_BINARY_RSUB: binary_loop(a, b, out, [](float x, float y) { return y - x; }); return true;
  // x^y in double (IEEE pow: pow(x, 0) = 1, a negative base with a
  // non-integral exponent is NaN), rounded once.
  case TESSEL_SFPU_BINARY_POW:
    binary_loop(a, b, out, [](float x, float y) { return float(std::pow(double(x), double(y))); });
    return true;
  case TESSEL_SFPU_BINARY_DIV_NO_NAN:
    binary_loop(a, b, out, [](float x, float y) { return y == 0.0f ? 0.0f : x / y; });
    return true;
  default: return false;
  }
}

} // namespace tessel::sim
