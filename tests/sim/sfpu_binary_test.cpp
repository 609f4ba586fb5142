// SFPU ops of two DST tiles from their own Metalium headers (src/sim/
// sfpu_integer.cpp and the binary functions of sfpu_special.cpp): the
// integer ops bit for bit against C++ integer arithmetic in each format
// (wrapping where the format does), and atan2, fmod, remainder and xlogy
// against long double. Through a kernel: sfpu_special_kernel_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "sfpu_reference.hpp"
#include "sim/sfpu.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::test {
namespace {

constexpr double kExactUlp = 0.5 + 0x1p-20;

std::vector<float> apply2(uint32_t op, const std::vector<float>& a, const std::vector<float>& b) {
  const size_t n = (a.size() + kTileHW - 1) / kTileHW * kTileHW;
  std::vector<float> x(a), y(b), out(n);
  x.resize(n, 0.0f);
  y.resize(n, 1.0f);
  for (size_t t = 0; t < n; t += kTileHW)
    sim::sfpu_binary(op, x.data() + t, y.data() + t, out.data() + t);
  out.resize(a.size());
  return out;
}

struct Pairs {
  std::vector<int64_t> a, b;
  std::vector<float> fa, fb;
};
// Random integers of [lo, hi] and shift amounts / divisors of [blo, bhi],
// plus the corners.
Pairs pairs(int64_t lo, int64_t hi, int64_t blo, int64_t bhi, std::vector<std::pair<int64_t, int64_t>> corners) {
  std::mt19937_64 gen(5);
  std::uniform_int_distribution<int64_t> da(lo, hi), db(blo, bhi);
  Pairs p;
  for (int i = 0; i < 4096; ++i)
    corners.emplace_back(da(gen), db(gen));
  for (auto [x, y] : corners) {
    p.a.push_back(x);
    p.b.push_back(y);
    p.fa.push_back(float(x));
    p.fb.push_back(float(y));
  }
  return p;
}

// Each format's integers within 2^24, where DST's floats hold them exactly.
constexpr int64_t kExact = 1 << 24;

TEST(SfpuBinaryOps, SubtractionWrapsToTheFormat) {
  const Pairs p = pairs(-kExact / 2, kExact / 2, -kExact / 2, kExact / 2, {{0, 1}, {5, 7}, {-3, 4}});
  for (uint32_t f = 0; f < 3; ++f) {
    const std::vector<float> sub = apply2(TESSEL_SFPU_BINARY_SUB_INT + f, p.fa, p.fb);
    const std::vector<float> rsub = apply2(TESSEL_SFPU_BINARY_RSUB_INT + f, p.fa, p.fb);
    for (size_t i = 0; i < p.a.size(); ++i) {
      const uint32_t d = uint32_t(p.a[i] - p.b[i]), r = uint32_t(p.b[i] - p.a[i]);
      const float want_sub = f == 0 ? float(int32_t(d)) : f == 1 ? float(d) : float(d & 0xffffu);
      const float want_rsub = f == 0 ? float(int32_t(r)) : f == 1 ? float(r) : float(r & 0xffffu);
      ASSERT_EQ(sub[i], want_sub) << "format " << f << ": " << p.a[i] << " - " << p.b[i];
      ASSERT_EQ(rsub[i], want_rsub) << "format " << f << ": " << p.b[i] << " - " << p.a[i];
    }
  }
  // 0 - 1 as UInt16 and UInt32.
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_SUB_INT + 2, {0.0f}, {1.0f})[0], 65535.0f);
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_SUB_INT + 1, {0.0f}, {1.0f})[0], 4294967296.0f); // 2^32 - 1, nearest float
}

TEST(SfpuBinaryOps, Shifts) {
  const Pairs p = pairs(-(1 << 12), 1 << 12, 0, 31, {{1, 31}, {-1, 31}, {-8, 1}, {7, 0}, {1, 40}, {-5, -1}});
  for (uint32_t f = 0; f < 3; ++f) {
    const std::vector<float> shl = apply2(TESSEL_SFPU_BINARY_LEFT_SHIFT + f, p.fa, p.fb);
    const std::vector<float> shr = apply2(TESSEL_SFPU_BINARY_RIGHT_SHIFT + f, p.fa, p.fb);
    const std::vector<float> lsr = apply2(TESSEL_SFPU_BINARY_LOGICAL_RIGHT_SHIFT + f, p.fa, p.fb);
    for (size_t i = 0; i < p.a.size(); ++i) {
      const int64_t s = p.b[i];
      const bool out = s < 0 || s > 31;
      const uint32_t mask = f == 2 ? 0xffffu : 0xffffffffu;
      const uint32_t w = uint32_t(p.a[i]);
      const uint32_t l = out ? 0 : w << s;
      const uint32_t r = out ? 0 : (w & mask) >> s;
      auto as_format = [f](uint32_t v) { return f == 0 ? float(int32_t(v)) : f == 1 ? float(v) : float(v & 0xffffu); };
      const float want_shr = f == 0 ? float(int32_t(w) >> (out ? 31 : s)) : as_format(r);
      ASSERT_EQ(shl[i], as_format(l)) << "format " << f << ": " << p.a[i] << " << " << s;
      ASSERT_EQ(shr[i], want_shr) << "format " << f << ": " << p.a[i] << " >> " << s;
      ASSERT_EQ(lsr[i], as_format(r)) << "format " << f << ": " << p.a[i] << " >>> " << s;
    }
  }
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_LEFT_SHIFT, {1.0f}, {31.0f})[0], -2147483648.0f); // Int32 wraps
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_LEFT_SHIFT + 1, {1.0f}, {31.0f})[0], 2147483648.0f);
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_LOGICAL_RIGHT_SHIFT, {-2.0f}, {30.0f})[0], 3.0f);
}

TEST(SfpuBinaryOps, DivisionRemaindersGcdLcm) {
  const Pairs p = pairs(-kExact / 2, kExact / 2, -300, 300, {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {0, 5}, {5, 0}});
  const std::vector<float> div = apply2(TESSEL_SFPU_BINARY_DIV_INT32, p.fa, p.fb);
  const std::vector<float> floor_q = apply2(TESSEL_SFPU_BINARY_DIV_INT32_FLOOR, p.fa, p.fb);
  const std::vector<float> trunc_q = apply2(TESSEL_SFPU_BINARY_DIV_INT32_TRUNC, p.fa, p.fb);
  const std::vector<float> fmod = apply2(TESSEL_SFPU_BINARY_FMOD_INT32, p.fa, p.fb);
  const std::vector<float> rem = apply2(TESSEL_SFPU_BINARY_REMAINDER_INT32, p.fa, p.fb);
  const std::vector<float> gcd = apply2(TESSEL_SFPU_BINARY_GCD, p.fa, p.fb);
  for (size_t i = 0; i < p.a.size(); ++i) {
    const int64_t x = p.a[i], y = p.b[i];
    ASSERT_EQ(to_bits(div[i]), to_bits(float(x) / float(y))) << x << " / " << y;
    ASSERT_EQ(gcd[i], float(std::gcd(x, y))) << "gcd " << x << ", " << y;
    if (y == 0) {
      ASSERT_EQ(floor_q[i], 0.0f);
      ASSERT_EQ(trunc_q[i], 0.0f);
      ASSERT_EQ(fmod[i], 0.0f);
      ASSERT_EQ(rem[i], 0.0f);
      continue;
    }
    const int64_t q = x / y, r = x % y;
    const bool adjust = r != 0 && (r < 0) != (y < 0);
    ASSERT_EQ(trunc_q[i], float(q)) << x << " / " << y;
    ASSERT_EQ(floor_q[i], float(adjust ? q - 1 : q)) << x << " // " << y;
    ASSERT_EQ(fmod[i], float(r)) << x << " fmod " << y;
    ASSERT_EQ(rem[i], float(adjust ? r + y : r)) << x << " mod " << y;
  }
  const Pairs s = pairs(-32767, 32767, -32767, 32767, {{0, 5}, {4, 6}, {-4, 6}});
  const std::vector<float> lcm = apply2(TESSEL_SFPU_BINARY_LCM, s.fa, s.fb);
  for (size_t i = 0; i < s.a.size(); ++i)
    ASSERT_EQ(lcm[i], float(std::lcm(s.a[i], s.b[i]))) << "lcm " << s.a[i] << ", " << s.b[i];
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_DIV_INT32, {0.0f, 3.0f}, {0.0f, 0.0f})[1], kInf);
  EXPECT_TRUE(std::isnan(apply2(TESSEL_SFPU_BINARY_DIV_INT32, {0.0f}, {0.0f})[0]));
}

TEST(SfpuBinaryOps, FloatFunctions) {
  const std::vector<float> a = uniform(-50, 50, 1 << 14, 21), b = uniform(-7, 7, 1 << 14, 22);
  const std::vector<float> at = apply2(TESSEL_SFPU_BINARY_ATAN2, a, b);
  const std::vector<float> fm = apply2(TESSEL_SFPU_BINARY_FMOD, a, b);
  const std::vector<float> rm = apply2(TESSEL_SFPU_BINARY_REMAINDER, a, b);
  std::vector<float> pos(b);
  for (float& y : pos)
    y = std::fabs(y);
  const std::vector<float> xl = apply2(TESSEL_SFPU_BINARY_XLOGY, a, pos);
  double worst_atan2 = 0, worst_xlogy = 0, worst_rem = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double x = a[i], y = b[i];
    worst_atan2 = std::max(worst_atan2, double(std::fabs(at[i] - std::atan2(x, y)) / ulp_of(std::atan2(x, y))));
    const long double want_xl = x * std::log((long double)pos[i]);
    worst_xlogy = std::max(worst_xlogy, double(std::fabs(xl[i] - want_xl) / ulp_of(want_xl)));
    ASSERT_EQ(to_bits(fm[i]), to_bits(std::fmod(a[i], b[i]))) << a[i] << " fmod " << b[i];
    // a - b floor(a / b) exactly, then rounded once: the sign of b.
    const long double want_rem = x - y * std::floor(x / y);
    worst_rem = std::max(worst_rem, double(std::fabs(rm[i] - want_rem) / ulp_of(want_rem)));
    ASSERT_TRUE(rm[i] == 0 || std::signbit(rm[i]) == std::signbit(b[i])) << a[i] << " mod " << b[i];
  }
  EXPECT_LE(worst_atan2, kExactUlp);
  EXPECT_LE(worst_xlogy, kExactUlp);
  EXPECT_LE(worst_rem, kExactUlp);
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_XLOGY, {0.0f, 0.0f}, {0.0f, kInf}), (std::vector<float>{0.0f, 0.0f}));
  EXPECT_TRUE(std::isnan(apply2(TESSEL_SFPU_BINARY_XLOGY, {0.0f}, {kNaN})[0]));
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_REMAINDER, {-1.0f, 5.5f}, {3.0f, -2.0f}), (std::vector<float>{2.0f, -0.5f}));
}

TEST(SfpuBinaryOps, Names) {
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_LEFT_SHIFT + 1), "binary_left_shift_tile<UInt32>");
  EXPECT_STREQ(sim::sfpu_binary_init_name(TESSEL_SFPU_BINARY_LOGICAL_RIGHT_SHIFT + 2), "binary_shift_tile_init");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_RSUB_INT + 2), "rsub_int_tile<UInt16>");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_ATAN2), "atan2_binary_tile");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_LCM), "lcm_tile");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_OP_COUNT), "?");
}

} // namespace
} // namespace tessel::test
