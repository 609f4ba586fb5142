// Helpers of the SFPU math tests (sfpu_test.cpp, sfpu_compare_test.cpp,
// sfpu_functions_test.cpp): running an op over many inputs, sweeps of the
// float line, and the worst error against a long double reference.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sim/sfpu.hpp"
#include "tessel/data_format.hpp"

namespace tessel::test {

using sim::SfpuParams;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

inline float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
inline uint32_t to_bits(float value) { return std::bit_cast<uint32_t>(value); }

// Runs op over `inputs` (in tiles of kTileHW); returns the outputs.
inline std::vector<float> apply(uint32_t op, const std::vector<float>& inputs, SfpuParams params = {}) {
  std::vector<float> out(inputs);
  out.resize((inputs.size() + kTileHW - 1) / kTileHW * kTileHW, 0.0f);
  for (size_t t = 0; t < out.size(); t += kTileHW)
    sim::sfpu_unary(op, out.data() + t, params);
  out.resize(inputs.size());
  return out;
}

inline float one(uint32_t op, float x, SfpuParams params = {}) { return apply(op, {x}, params)[0]; }

// One float ULP at the magnitude of r (denormal spacing below 2^-126).
inline long double ulp_of(long double r) {
  int e = 0;
  std::frexp(double(r), &e); // r = m * 2^e, 0.5 <= |m| < 1
  return std::ldexp(1.0L, std::max(e - 1, -126) - 23);
}

// Every finite bfloat16 value, as floats (the inputs a 16-bit DST holds).
inline std::vector<float> all_bf16() {
  std::vector<float> v;
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const float x = from_bits(b << 16);
    if (std::isfinite(x)) v.push_back(x);
  }
  return v;
}

// `count` random floats, uniform in [lo, hi].
inline std::vector<float> uniform(float lo, float hi, size_t count, uint32_t seed = 7) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(count);
  for (float& x : v)
    x = d(gen);
  return v;
}

// Every float with exponent field in [e_lo, e_hi] and the given mantissa stride.
inline std::vector<float> binades(uint32_t e_lo, uint32_t e_hi, uint32_t stride, bool negative = false) {
  std::vector<float> v;
  for (uint32_t e = e_lo; e <= e_hi; ++e)
    for (uint32_t m = 0; m < (1u << 23); m += stride)
      v.push_back(from_bits((negative ? 0x80000000u : 0u) | (e << 23) | m));
  return v;
}

inline std::vector<float> keep(const std::vector<float>& v, const std::function<bool(float)>& pred) {
  std::vector<float> out;
  for (float x : v)
    if (pred(x)) out.push_back(x);
  return out;
}

using Ref = std::function<long double(long double)>;

struct Worst {
  double error = 0; // in the unit of the bound
  float input = 0;
  float got = 0;
  long double want = 0;
};

// Largest error of op(x) against ref(x) in float ULPs of the reference.
inline Worst worst_ulp(uint32_t op, const std::vector<float>& xs, const Ref& ref, SfpuParams params = {}) {
  const std::vector<float> ys = apply(op, xs, params);
  Worst w;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double r = ref(xs[i]);
    const double err = double(std::fabs((long double)ys[i] - r) / ulp_of(r));
    if (!(err <= w.error)) w = {err, xs[i], ys[i], r};
  }
  return w;
}

// Largest relative error (absolute error below `abs_floor` is ignored).
inline Worst worst_rel(uint32_t op, const std::vector<float>& xs, const Ref& ref, SfpuParams params,
                       long double abs_floor = 0) {
  const std::vector<float> ys = apply(op, xs, params);
  Worst w;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double r = ref(xs[i]);
    const long double diff = std::fabs((long double)ys[i] - r);
    const double err = diff <= abs_floor ? 0.0 : double(diff / std::fabs(r));
    if (!(err <= w.error)) w = {err, xs[i], ys[i], r};
  }
  return w;
}

inline std::string describe(const Worst& w) {
  char text[160];
  std::snprintf(text, sizeof text, "worst %.3g at x = %.9g (0x%08x): got %.9g, want %.12Lg", w.error, w.input,
                to_bits(w.input), w.got, w.want);
  return text;
}

} // namespace tessel::test
