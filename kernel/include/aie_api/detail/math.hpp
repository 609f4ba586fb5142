// The AIE API on tessel: conversions between integer and floating-point
// vectors, and the elementary functions.
//
// Bounds: exp2, exp, tanh, inv, invsqrt and sqrt are computed in fp32 with
// the host libm (within 1 ulp of fp32 for exp2f/expf/sqrtf, 2 ulp for tanhf,
// 1/x and 1/sqrtf exact to fp32 rounding) and a bfloat16 result is then rounded by the current
// rounding mode: within 1 bfloat16 ulp of the exact value. The AIE computes
// them with lookup tables and is less accurate (a few bfloat16 ulp).
#ifndef TESSEL_AIE_API_DETAIL_MATH_HPP
#define TESSEL_AIE_API_DETAIL_MATH_HPP

#include "aie_api/detail/elementwise.hpp"

#include <cmath>

namespace aie {

// Integers to floating point: v * 2^-shift, rounded to nearest even.
template <typename TR = float, typename T, unsigned N>
vector<TR, N> to_float(const vector<T, N>& v, int shift = 0) {
  static_assert(detail::is_float_v<TR> && !detail::is_float_v<T>, "aie::to_float: integer vector to bfloat16 or float");
  vector<TR, N> r;
  for (unsigned i = 0; i < N; ++i) {
    float f = std::ldexp(static_cast<float>(v.elems_[i]), -shift);
    if constexpr (std::is_same_v<TR, bfloat16>)
      r.elems_[i] = bfloat16(f);
    else
      r.elems_[i] = f;
  }
  return r;
}

// A scalar integer to floating point: v * 2^-shift.
template <typename TR = float, typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
TR to_float(T v, int shift = 0) {
  static_assert(detail::is_float_v<TR>, "aie::to_float: an integer to bfloat16 or float");
  return to_float<TR>(broadcast<T, 16>(v), shift).get(0);
}

namespace detail {
// x (an exact double) to an integer by rounding mode, as shift_round rounds.
inline int64_t round_double(double x, rounding_mode m) {
  const double f = std::floor(x), d = x - f;
  const int64_t q = int64_t(f);
  return q + round_up_step(m, x < 0, d == 0, d < 0.5 ? -1 : d > 0.5, q & 1);
}
} // namespace detail

// Floating point to integers: v * 2^shift, rounded by the current rounding
// mode and saturated to TR (the AIE's float-to-fixed conversion saturates).
template <typename TR = int32_t, typename T, unsigned N>
vector<TR, N> to_fixed(const vector<T, N>& v, int shift = 0) {
  static_assert(!detail::is_float_v<TR> && detail::is_float_v<T>, "aie::to_fixed: bfloat16 or float vector to integer");
  vector<TR, N> r;
  const detail::modes m = detail::core_modes;
  for (unsigned i = 0; i < N; ++i) {
    double x = std::ldexp(static_cast<double>(float(v.elems_[i])), shift); // exact
    if (x != x) x = 0;
    x = x > 9.0e18 ? 9.0e18 : x < -9.0e18 ? -9.0e18 : x;
    r.elems_[i] = detail::saturate<TR>(detail::round_double(x, m.rounding), saturation_mode::saturate);
  }
  return r;
}

// A scalar floating-point value to an integer: v * 2^shift, rounded and saturated.
template <typename TR = int32_t, typename T, typename = std::enable_if_t<detail::is_float_v<T>>>
TR to_fixed(T v, int shift = 0) {
  return to_fixed<TR>(broadcast<T, 16>(v), shift).get(0);
}

namespace detail {
template <typename T, unsigned N, typename F>
vector<T, N> float_map(const vector<T, N>& v, F f) {
  static_assert(is_float_v<T>, "aie elementary functions take bfloat16 or float vectors");
  vector<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = narrow<T>(f(float(v.elems_[i])));
  return r;
}
} // namespace detail

template <typename TR = void, typename T, unsigned N>
auto exp2(const vector<T, N>& v) {
  using R = std::conditional_t<std::is_void_v<TR>, T, TR>;
  vector<R, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = detail::narrow<R>(std::exp2(float(v.elems_[i])));
  return r;
}
// tanh<TR>(v): as exp2, the result type may differ from the input's
// (aie::tanh<bfloat16>(a float vector), as IRON's aie2p gelu and silu call it).
template <typename TR = void, typename T, unsigned N>
auto tanh(const vector<T, N>& v) {
  using R = std::conditional_t<std::is_void_v<TR>, T, TR>;
  static_assert(detail::is_float_v<T> && detail::is_float_v<R>, "aie::tanh: bfloat16 or float vectors");
  vector<R, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = detail::narrow<R>(std::tanh(float(v.elems_[i])));
  return r;
}
template <typename T, unsigned N>
vector<T, N> exp(const vector<T, N>& v) {
  return detail::float_map(v, [](float x) { return std::exp(x); });
}
template <typename T, unsigned N>
vector<T, N> inv(const vector<T, N>& v) {
  return detail::float_map(v, [](float x) { return 1.0f / x; });
}
template <typename T, unsigned N>
vector<T, N> invsqrt(const vector<T, N>& v) {
  return detail::float_map(v, [](float x) { return 1.0f / std::sqrt(x); });
}
template <typename T, unsigned N>
vector<T, N> sqrt(const vector<T, N>& v) {
  return detail::float_map(v, [](float x) { return std::sqrt(x); });
}
// Scalar forms.
inline float inv(float x) { return 1.0f / x; }
inline float invsqrt(float x) { return 1.0f / std::sqrt(x); }
inline float sqrt(float x) { return std::sqrt(x); }

} // namespace aie

#endif
