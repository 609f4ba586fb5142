// The SFPU ops of tessel/sfpu_misc.h (src/sim/sfpu_misc.cpp) on whole
// tiles: nextafter bit for bit against IEEE nextafterf (one float32 ULP) and
// against the neighbours of the bfloat16 line (one bfloat16 ULP), with the
// NaN, signed-zero and equal-operand rules of tt-llk's kernel; mac as one
// fused multiply-add; identity unchanged; i0 against a long double I0 within
// the bounds of docs/numerics.md; i1, logaddexp and logaddexp2 correctly
// rounded against long double. Through the device: sfpu_misc_kernel_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "sfpu_reference.hpp"
#include "sim/sfpu.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::test {
namespace {

std::vector<float> apply2(uint32_t op, const std::vector<float>& a, const std::vector<float>& b) {
  const size_t n = (a.size() + kTileHW - 1) / kTileHW * kTileHW;
  std::vector<float> x(a), y(b), out(n);
  x.resize(n, 0.0f);
  y.resize(n, 0.0f);
  for (size_t t = 0; t < n; t += kTileHW)
    sim::sfpu_binary(op, x.data() + t, y.data() + t, out.data() + t);
  out.resize(a.size());
  return out;
}

// Pairs (a, b) over the float line's landmarks and random values: both
// signs, zeros, denormals, the largest finite, infinities, NaN, a == b.
void pairs(const std::vector<float>& values, std::vector<float>& a, std::vector<float>& b) {
  for (float x : values)
    for (float y : values) {
      a.push_back(x);
      b.push_back(y);
    }
}

// bfloat16 bits -> a key that orders the bfloat16 line (both zeros 0).
int32_t bf16_key(uint32_t bits16) {
  const int32_t mag = int32_t(bits16 & 0x7fffu);
  return bits16 & 0x8000u ? -mag : mag;
}
float bf16_of_key(int32_t key, bool negative_zero) {
  if (key == 0) return negative_zero ? -0.0f : 0.0f;
  return from_bits(key < 0 ? (0x8000u | uint32_t(-key)) << 16 : uint32_t(key) << 16);
}
// The bfloat16 neighbour of a toward b; NaN if either is NaN; b if equal.
float bf16_nextafter(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  if (a == b) return b;
  const int32_t key = bf16_key(to_bits(a) >> 16) + (b > a ? 1 : -1);
  return bf16_of_key(key, a < 0); // zero reached from a positive a is +0, from a negative a -0
}

TEST(SfpuMisc, NextafterStepsOneFloat32Ulp) {
  std::vector<float> values = {0.0f,       -0.0f,  1.0f,           -1.0f,          0x1p-149f,   -0x1p-149f, 0x1p-126f,
                               -0x1p-126f, 1e-40f, 3.4028235e38f,  -3.4028235e38f, kInf,        -kInf,      kNaN,
                               1.5f,       -2.75f, 0x1.fffffep-1f, 0x1.000002p0f,  123456.789f, -1e-30f};
  const std::vector<float> random = uniform(-1e6f, 1e6f, 200);
  values.insert(values.end(), random.begin(), random.end());
  std::vector<float> a, b;
  pairs(values, a, b);
  const std::vector<float> got = apply2(TESSEL_SFPU_BINARY_NEXTAFTER, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    const float want = std::nextafterf(a[i], b[i]);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got[i])) << "nextafter(" << a[i] << ", " << b[i] << ") = " << got[i];
      continue;
    }
    ASSERT_EQ(to_bits(got[i]), to_bits(want)) << "nextafter(" << a[i] << ", " << b[i] << ")";
  }
  // The zero rules: +0 toward -0 is -0 (the target), -0 toward 1 the smallest denormal.
  EXPECT_EQ(to_bits(apply2(TESSEL_SFPU_BINARY_NEXTAFTER, {0.0f}, {-0.0f})[0]), 0x80000000u);
  EXPECT_EQ(to_bits(apply2(TESSEL_SFPU_BINARY_NEXTAFTER, {-0.0f}, {1.0f})[0]), 1u);
}

TEST(SfpuMisc, NextafterBf16StepsOneBfloat16Ulp) {
  std::vector<float> values;
  for (uint32_t h = 0; h < 0x10000u; h += 97)
    values.push_back(from_bits(h << 16));
  for (float v : {0.0f, -0.0f, 1.0f, -1.0f, kInf, -kInf, kNaN, 0x1p-133f, -0x1p-133f})
    values.push_back(v);
  std::vector<float> a, b;
  pairs(values, a, b);
  const std::vector<float> got = apply2(TESSEL_SFPU_BINARY_NEXTAFTER_BF16, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    const float want = bf16_nextafter(a[i], b[i]);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got[i])) << "nextafter_bf16(" << a[i] << ", " << b[i] << ") = " << got[i];
      continue;
    }
    ASSERT_EQ(to_bits(got[i]), to_bits(want)) << "nextafter_bf16(" << a[i] << ", " << b[i] << ")";
  }
}

TEST(SfpuMisc, MacIsOneFusedMultiplyAdd) {
  const std::vector<float> a = uniform(-100.0f, 100.0f, kTileHW, 1), b = uniform(-3.0f, 3.0f, kTileHW, 2),
                           c = uniform(-50.0f, 50.0f, kTileHW, 3);
  std::vector<float> out(kTileHW);
  sim::sfpu_ternary(TESSEL_SFPU_TERNARY_MAC, a.data(), b.data(), c.data(), out.data(), uint32_t(DataFormat::Float32));
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(to_bits(out[i]), to_bits(std::fmaf(a[i], b[i], c[i]))) << a[i] << " * " << b[i] << " + " << c[i];
  // One rounding: 1 + 2^-23 squared minus 1 keeps the 2^-46 a rounded product loses.
  std::vector<float> x(kTileHW, 0x1.000002p0f), m(kTileHW, -1.0f);
  sim::sfpu_ternary(TESSEL_SFPU_TERNARY_MAC, x.data(), x.data(), m.data(), out.data(), 0);
  EXPECT_EQ(out[0], 0x1p-22f + 0x1p-46f);
  // The SFPU reads denormal operands as zero and stores a denormal result as +0.
  std::vector<float> d(kTileHW, 1e-39f), one(kTileHW, 1.0f), z(kTileHW, -0.0f);
  sim::sfpu_ternary(TESSEL_SFPU_TERNARY_MAC, d.data(), one.data(), z.data(), out.data(), 0);
  EXPECT_EQ(to_bits(out[0]), 0u);
}

TEST(SfpuMisc, IdentityLeavesTheTile) {
  std::vector<float> v = uniform(-1e30f, 1e30f, kTileHW);
  v[0] = kNaN;
  v[1] = -0.0f;
  v[2] = 4294967295.0f; // a UInt32 tile's largest value
  for (uint32_t op : {uint32_t(TESSEL_SFPU_IDENTITY), uint32_t(TESSEL_SFPU_IDENTITY_UINT32)}) {
    const std::vector<float> got = test::apply(op, v);
    for (uint32_t i = 0; i < kTileHW; ++i)
      ASSERT_EQ(to_bits(got[i]), to_bits(v[i])) << "op " << op << " element " << i;
  }
}

// I0 in long double: its power series, every term positive.
long double i0_ref(long double x) {
  const long double q = x * x / 4;
  long double term = 1, sum = 1;
  for (int k = 1; k < 200 && term > sum * 1e-30L; ++k) {
    term *= q / (long double)(k * k);
    sum += term;
  }
  return sum;
}

// The bounds docs/numerics.md states: relative error against I0 by |x|.
TEST(SfpuMisc, I0WithinItsBounds) {
  struct Band {
    float lo, hi;
    double bound;
  };
  for (const Band& band :
       {Band{0.0f, 2.0f, 2e-7}, Band{2.0f, 4.0f, 2e-6}, Band{4.0f, 8.0f, 7e-5}, Band{8.0f, 10.0f, 3e-4}}) {
    std::vector<float> xs =
        keep(all_bf16(), [&](float x) { return std::fabs(x) >= band.lo && std::fabs(x) <= band.hi; });
    const std::vector<float> more = uniform(band.lo, band.hi, 1 << 14);
    xs.insert(xs.end(), more.begin(), more.end());
    const std::vector<float> got = test::apply(TESSEL_SFPU_I0, xs);
    double worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const long double want = i0_ref(xs[i]);
      worst = std::max(worst, double(std::fabs(got[i] - want) / want));
    }
    EXPECT_LE(worst, band.bound) << "|x| in [" << band.lo << ", " << band.hi << "]";
  }
  // Even, 1 at 0; the series' value at NaN is NaN.
  EXPECT_EQ(one(TESSEL_SFPU_I0, 0.0f), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_I0, -3.0f), one(TESSEL_SFPU_I0, 3.0f));
  EXPECT_TRUE(std::isnan(one(TESSEL_SFPU_I0, kNaN)));
}

// I1 in long double: its power series (x / 2)^(2k + 1) / (k! (k + 1)!).
long double i1_ref(long double x) {
  const long double h = x / 2, q = h * h;
  long double term = h, sum = h;
  for (int k = 1; k < 400 && std::fabs(term) > std::fabs(sum) * 1e-30L; ++k) {
    term *= q / (long double)(k * (k + 1));
    sum += term;
  }
  return sum;
}

double ulps(float got, long double want) { return double(std::fabs((long double)got - want) / ulp_of(want)); }

TEST(SfpuMisc, I1CorrectlyRoundedAndClamped) {
  std::vector<float> xs = keep(all_bf16(), [](float x) { return std::fabs(x) <= 88.5f && x != 0; });
  const std::vector<float> more = uniform(-88.5f, 88.5f, 1 << 14);
  xs.insert(xs.end(), more.begin(), more.end());
  const std::vector<float> got = test::apply(TESSEL_SFPU_I1, xs);
  for (size_t i = 0; i < xs.size(); ++i)
    ASSERT_LE(ulps(got[i], i1_ref(xs[i])), 0.5 + 0x1p-20) << "i1(" << xs[i] << ") = " << got[i];
  // Odd; inputs beyond 88.5 are clamped to it; NaN stays NaN.
  EXPECT_EQ(one(TESSEL_SFPU_I1, -2.5f), -one(TESSEL_SFPU_I1, 2.5f));
  EXPECT_EQ(one(TESSEL_SFPU_I1, 1000.0f), one(TESSEL_SFPU_I1, 88.5f));
  EXPECT_EQ(one(TESSEL_SFPU_I1, -kInf), -one(TESSEL_SFPU_I1, 88.5f));
  EXPECT_TRUE(std::isfinite(one(TESSEL_SFPU_I1, 88.5f)));
  EXPECT_TRUE(std::isnan(one(TESSEL_SFPU_I1, kNaN)));
}

TEST(SfpuMisc, LogaddexpCorrectlyRounded) {
  const std::vector<float> a = uniform(-100.0f, 100.0f, 1 << 14, 11), b = uniform(-100.0f, 100.0f, 1 << 14, 12);
  std::vector<float> b_near(b);
  for (size_t i = 0; i < b.size(); i += 2)
    b_near[i] = a[i] + (b[i] - a[i]) * 0.01f; // close operands, where the correction matters most
  for (bool base2 : {false, true}) {
    const uint32_t op = base2 ? TESSEL_SFPU_BINARY_LOGADDEXP2 : TESSEL_SFPU_BINARY_LOGADDEXP;
    const std::vector<float> got = apply2(op, a, b_near);
    for (size_t i = 0; i < a.size(); ++i) {
      const long double x = a[i], y = b_near[i], m = std::max(x, y), gap = std::fabs(x - y);
      const long double want = base2 ? m + std::log2(1.0L + std::exp2(-gap)) : m + std::log1p(std::exp(-gap));
      ASSERT_LE(ulps(got[i], want), 0.5 + 0x1p-20) << (base2 ? "logaddexp2(" : "logaddexp(") << x << ", " << y << ")";
    }
    // Infinities shared by both operands stay; opposite ones give +inf; NaN propagates.
    const std::vector<float> special =
        apply2(op, {kInf, -kInf, kInf, -kInf, kNaN, 1.0f, 0.0f}, {kInf, -kInf, -kInf, 3.0f, 1.0f, kNaN, 0.0f});
    EXPECT_EQ(special[0], kInf);
    EXPECT_EQ(special[1], -kInf);
    EXPECT_EQ(special[2], kInf);
    EXPECT_EQ(special[3], 3.0f);
    EXPECT_TRUE(std::isnan(special[4]));
    EXPECT_TRUE(std::isnan(special[5]));
    EXPECT_EQ(special[6], base2 ? 1.0f : float(std::log(2.0)));
  }
}

} // namespace
} // namespace tessel::test
