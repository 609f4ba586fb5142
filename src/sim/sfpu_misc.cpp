// SFPU ops of Metalium's newer headers (tessel/sfpu_misc.h): i0 and
// identity (unary), nextafter (binary), mac (ternary). Each follows tt-llk's
// SFPU program for it: nextafter steps the float's bit pattern as an
// integer, mac and i0 use the SFPU's multiply-add (one rounding, denormal
// operands read as zero, a denormal or -0 result stored as +0).
//
// i1, logaddexp and logaddexp2 are computed in double and rounded once to
// float (i1 of x clamped to [-88.5, 88.5], as tt-llk clamps it), like the
// functions of sfpu_special.cpp: tt-llk's own approximations are not
// followed (docs/deviations.md).
//
// i0 is the LLK's polynomial: 1 + x^2 p(x^2) with the 11 series
// coefficients tt-llk rounds to float, evaluated by Horner's rule in FP32
// multiply-adds; its distance from I0 is in docs/numerics.md.
#include <cmath>

#include "sim/sfpu_support.hpp"
#include "tessel/data_format.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

using namespace sfpu_detail;

namespace {

// An SFPU operand: denormals read as zero.
float operand(float x) { return sel((bits_of(x) & 0x7f800000u) == 0, copysign_f(0.0f, x), x); }
// SFPMAD: a * b + c with one rounding; a denormal or -0 result is +0.
float mad(float a, float b, float c) {
  const float r = std::fma(operand(a), operand(b), operand(c));
  return (bits_of(r) & 0x7f800000u) == 0 ? 0.0f : r;
}

// The series' coefficients, highest power first (of x^2).
constexpr float kI0[11] = {1.50E-22f, 7.24E-20f,          2.90E-17f,        9.39E-15f, 2.40E-12f, 4.71E-10f,
                           6.78E-08f, 0.000006781684028f, 0.0004340277778f, 0.015625f, 0.25f};

float i0(float in) {
  const float x = mad(in, in, 0.0f);
  float p = mad(kI0[0], x, kI0[1]);
  for (int i = 2; i < 11; ++i)
    p = mad(p, x, kI0[i]);
  return mad(p, x, 1.0f);
}

// One step of `ulp` (1 or 0x10000) of a's bit pattern toward b: the zeros
// step to the smallest value of b's sign, equal zeros give b, a NaN in
// either operand gives NaN.
float nextafter_step(float a, float b, int32_t ulp) {
  int32_t step = 0;
  if (a < b) step = a >= 0.0f ? ulp : -ulp;
  if (a > b) step = a > 0.0f ? -ulp : ulp;
  float r = from_bits(uint32_t(int32_t(bits_of(a)) + step));
  const bool a_zero = abs_f(a) == 0.0f;
  if (a_zero && b > 0.0f) r = from_bits(uint32_t(ulp));
  if (a_zero && b < 0.0f) r = from_bits(0x80000000u | uint32_t(ulp));
  if (a_zero && abs_f(b) == 0.0f) r = b;
  if (a != a || b != b) r = kNaN;
  return r;
}

float i1(float in) {
  if (in != in) return kNaN;
  const double x = std::fmin(std::fmax(double(in), -88.5), 88.5);
  const double r = std::cyl_bessel_i(1.0, std::fabs(x));
  return float(x < 0 ? -r : r);
}

// ln(e^a + e^b) = max + ln(1 + e^-|a - b|), `base` e or 2: NaN from a NaN,
// an infinity shared by both operands stays.
template <bool base2>
float logaddexp(float a, float b) {
  if (a != a || b != b) return kNaN;
  const double x = a, y = b, m = std::fmax(x, y);
  if (x == y) return float(m + (base2 ? 1.0 : std::log(2.0)));
  const double gap = std::fabs(x - y);
  return float(base2 ? m + std::log2(1.0 + std::exp2(-gap)) : m + std::log1p(std::exp(-gap)));
}

} // namespace

bool sfpu_detail::sfpu_misc_unary(uint32_t op, float* tile, const SfpuParams&) {
  switch (op) {
  case TESSEL_SFPU_I0:
    for (uint32_t i = 0; i < kTileHW; ++i)
      tile[i] = i0(tile[i]);
    return true;
  case TESSEL_SFPU_I1:
    for (uint32_t i = 0; i < kTileHW; ++i)
      tile[i] = i1(tile[i]);
    return true;
  case TESSEL_SFPU_IDENTITY:
  case TESSEL_SFPU_IDENTITY_UINT32: return true;
  default: return false;
  }
}

bool sfpu_detail::sfpu_misc_binary(uint32_t op, const float* a, const float* b, float* out) {
  switch (op) {
  case TESSEL_SFPU_BINARY_NEXTAFTER:
    binary_loop(a, b, out, [](float x, float y) { return nextafter_step(x, y, 1); });
    return true;
  case TESSEL_SFPU_BINARY_NEXTAFTER_BF16:
    binary_loop(a, b, out, [](float x, float y) { return nextafter_step(x, y, 0x10000); });
    return true;
  case TESSEL_SFPU_BINARY_LOGADDEXP: binary_loop(a, b, out, logaddexp<false>); return true;
  case TESSEL_SFPU_BINARY_LOGADDEXP2: binary_loop(a, b, out, logaddexp<true>); return true;
  default: return false;
  }
}

bool sfpu_detail::sfpu_misc_ternary(uint32_t op, const float* a, const float* b, const float* c, float* out, uint32_t) {
  if (op != TESSEL_SFPU_TERNARY_MAC) return false;
  for (uint32_t i = 0; i < kTileHW; ++i)
    out[i] = mad(a[i], b[i], c[i]);
  return true;
}

} // namespace tessel::sim
