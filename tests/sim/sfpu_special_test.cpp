// SFPU special functions, activations, bitwise ops and the ternary lerp and
// lgamma steps (src/sim/sfpu_special.cpp, sfpu_bitwise.cpp) on whole tiles:
// each function correctly rounded against a long double reference over
// every bfloat16 value of its domain and random floats (addcmul, addcdiv
// and snake_beta over random operands), the special values,
// and the exact ops (shrinks, bitwise, copy) bit for bit. Through the
// device: sfpu_kernel_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "sfpu_reference.hpp"
#include "sim/sfpu.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::test {
namespace {

constexpr double kExactUlp = 0.5 + 0x1p-20;

// ln|gamma(x)| in long double (lgammal_r: no global sign).
long double lgamma_ref(long double x) {
  int sign = 0;
  return ::lgammal_r(x, &sign);
}
long double softplus_ref(long double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

std::vector<float> sweep(const std::function<bool(float)>& domain, float lo, float hi) {
  std::vector<float> xs = keep(all_bf16(), domain);
  const std::vector<float> more = keep(uniform(lo, hi, 1 << 16), domain);
  xs.insert(xs.end(), more.begin(), more.end());
  return xs;
}

// out = op(a, b) over whole tiles.
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

std::vector<float> apply3(uint32_t op, const std::vector<float>& a, const std::vector<float>& b,
                          const std::vector<float>& c, uint32_t p0 = 0) {
  const size_t n = (a.size() + kTileHW - 1) / kTileHW * kTileHW;
  std::vector<float> x(a), y(b), z(c), out(n);
  for (auto* v : {&x, &y, &z})
    v->resize(n, 0.0f);
  for (size_t t = 0; t < n; t += kTileHW)
    sim::sfpu_ternary(op, x.data() + t, y.data() + t, z.data() + t, out.data() + t, p0);
  out.resize(a.size());
  return out;
}

double ulps(float got, long double want) { return double(std::fabs((long double)got - want) / ulp_of(want)); }

TEST(SfpuSpecial, CorrectlyRounded) {
  struct Row {
    uint32_t op;
    const char* name;
    Ref ref;
    std::function<bool(float)> domain;
    float lo, hi;
    SfpuParams params;
  };
  const auto all = [](float) { return true; };
  // lgamma away from its poles (non-positive integers) and from its
  // negative zeros, where a double result rounds to a float relative error
  // larger than 2^-29 ULP.
  const auto lgamma_domain = [](float x) {
    if (x > 0) return x < 1e30f;
    return x > -30 && x != std::floor(x) && std::fabs(lgamma_ref(x)) > 1e-3L;
  };
  const float cap = 2.5f, alpha = 0.75f;
  const Row rows[] = {
      {TESSEL_SFPU_CBRT, "cbrt", [](long double x) { return std::cbrt(x); }, all, -1e4f, 1e4f, {}},
      {TESSEL_SFPU_HARDMISH,
       "hardmish",
       [](long double x) { return x * std::min(std::max(x + 2.8L, 0.0L), 5.0L) / 5; },
       [](float x) { return std::fabs(x) < 1e18f; },
       -6,
       6,
       {}},
      {TESSEL_SFPU_LGAMMA, "lgamma", lgamma_ref, lgamma_domain, -20, 40, {}},
      {TESSEL_SFPU_LGAMMA_STIRLING,
       "lgamma_stirling",
       [](long double x) { return lgamma_ref(x < 0.5L ? 1 - x : x); },
       [](float x) { return std::fabs(x) < 1e30f && std::fabs(lgamma_ref(x < 0.5f ? 1 - (long double)x : x)) > 1e-3L; },
       -20,
       40,
       {}},
      {TESSEL_SFPU_LOG1P_EXP, "log1p_exp", softplus_ref, all, -30, 30, {}},
      {TESSEL_SFPU_LOGSIGMOID, "logsigmoid", [](long double x) { return -softplus_ref(-x); }, all, -30, 30, {}},
      {TESSEL_SFPU_SOFTCAP, "softcap", [cap](long double x) { return cap * std::tanh(x * (long double)(1.0f / cap)); },
       all, -10, 10, SfpuParams{to_bits(cap), to_bits(1.0f / cap), false}},
      {TESSEL_SFPU_CELU, "celu",
       [alpha](long double x) { return x > 0 ? x : alpha * std::expm1(x * (long double)(1.0f / alpha)); }, all, -8, 8,
       SfpuParams{to_bits(alpha), to_bits(1.0f / alpha), false}},
  };
  const float base = 2.5f;
  const Row more[] = {
      {TESSEL_SFPU_RPOW, "rpow", [base](long double x) { return std::pow((long double)base, x); },
       [](float x) { return std::fabs(x) < 90; }, -20, 20, SfpuParams{to_bits(base), 0, false}},
      {TESSEL_SFPU_GELU_DERIVATIVE,
       "gelu_derivative",
       [](long double x) {
         return 0.5L * std::erfc(-x / std::sqrt(2.0L)) + x * std::exp(-x * x / 2) / std::sqrt(2 * M_PIl);
       },
       [](float x) { return x > -1.5f || x < -1.9f; },
       -8,
       8,
       {}},
      {TESSEL_SFPU_GELU_TANH,
       "gelu_tanh",
       // 0.5 x (1 + tanh(z)) as x / (1 + e^-2z), without 1 + tanh(z)'s cancellation.
       [](long double x) { return x / (1 + std::exp(-2 * std::sqrt(2 / M_PIl) * (x + 0.044715L * x * x * x))); },
       [](float x) { return std::fabs(x) < 1e12f && x > -9; },
       -8,
       8,
       {}},
      {TESSEL_SFPU_TANH_DERIVATIVE,
       "tanh_derivative",
       [](long double x) { return 1 / (std::cosh(x) * std::cosh(x)); },
       [](float x) { return std::fabs(x) < 40; },
       -10,
       10,
       {}},
  };
  std::vector<Row> all_rows(std::begin(rows), std::end(rows));
  all_rows.insert(all_rows.end(), std::begin(more), std::end(more));
  for (const Row& row : all_rows) {
    const Worst w = worst_ulp(row.op, sweep(row.domain, row.lo, row.hi), row.ref, row.params);
    EXPECT_LE(w.error, kExactUlp) << row.name << ": " << describe(w);
  }
}

TEST(SfpuSpecial, SoftcapUsesTheGivenReciprocal) {
  // cap tanh(x * p1): the reciprocal the kernel passes, not 1 / p0.
  const float got = one(TESSEL_SFPU_SOFTCAP, 1.0f, {to_bits(2.0f), to_bits(0.25f), false});
  EXPECT_EQ(got, float(2.0L * std::tanh(0.25L)));
}

TEST(SfpuSpecial, ShrinksAreExact) {
  std::vector<float> xs = all_bf16();
  const float lambda = 0.5f;
  const std::vector<float> soft = apply(TESSEL_SFPU_SOFTSHRINK, xs, {to_bits(lambda), 0, false});
  const std::vector<float> hard = apply(TESSEL_SFPU_HARDSHRINK, xs, {to_bits(lambda), 0, false});
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    const float want_soft = x > lambda ? x - lambda : x < -lambda ? x + lambda : 0.0f;
    const float want_hard = std::fabs(x) > lambda ? x : 0.0f;
    ASSERT_EQ(to_bits(soft[i]), to_bits(want_soft)) << "softshrink(" << x << ")";
    ASSERT_EQ(to_bits(hard[i]), to_bits(want_hard)) << "hardshrink(" << x << ")";
  }
}

TEST(SfpuSpecial, SpecialValues) {
  struct Special {
    uint32_t op;
    float x;
    float want; // NaN: any NaN
  };
  const Special rows[] = {
      {TESSEL_SFPU_CBRT, -kInf, -kInf},
      {TESSEL_SFPU_CBRT, -0.0f, -0.0f},
      {TESSEL_SFPU_CBRT, -27.0f, -3.0f},
      {TESSEL_SFPU_HARDMISH, -3.0f, -0.0f},
      {TESSEL_SFPU_HARDMISH, kInf, kInf},
      {TESSEL_SFPU_HARDMISH, -kInf, -0.0f},
      {TESSEL_SFPU_LGAMMA, 0.0f, kInf},
      {TESSEL_SFPU_LGAMMA, -2.0f, kInf},
      {TESSEL_SFPU_LGAMMA, 1.0f, 0.0f},
      {TESSEL_SFPU_LGAMMA, 2.0f, 0.0f},
      {TESSEL_SFPU_LGAMMA, kInf, kInf},
      {TESSEL_SFPU_LGAMMA_STIRLING, 0.0f, 0.0f},
      {TESSEL_SFPU_LGAMMA_STIRLING, -1.0f, 0.0f},
      {TESSEL_SFPU_LOG1P_EXP, kInf, kInf},
      {TESSEL_SFPU_LOG1P_EXP, -kInf, 0.0f},
      {TESSEL_SFPU_LOG1P_EXP, 1000.0f, 1000.0f},
      {TESSEL_SFPU_LOGSIGMOID, -kInf, -kInf},
      {TESSEL_SFPU_LOGSIGMOID, kInf, -0.0f},
      {TESSEL_SFPU_LOGSIGMOID, -1000.0f, -1000.0f},
      {TESSEL_SFPU_SOFTCAP, kInf, 1.0f},
      {TESSEL_SFPU_SOFTCAP, -kInf, -1.0f},
      {TESSEL_SFPU_SOFTCAP, -0.0f, -0.0f},
      {TESSEL_SFPU_CELU, -kInf, -1.0f},
      {TESSEL_SFPU_CELU, -0.0f, -0.0f},
  };
  for (const Special& r : rows) {
    const float got = one(r.op, r.x, {to_bits(1.0f), to_bits(1.0f), false});
    if (std::isnan(r.want))
      EXPECT_TRUE(std::isnan(got)) << sim::sfpu_name(r.op) << "(" << r.x << ") = " << got;
    else
      EXPECT_EQ(to_bits(got), to_bits(r.want)) << sim::sfpu_name(r.op) << "(" << r.x << ") = " << got;
  }
  for (uint32_t op = TESSEL_SFPU_CBRT; op < TESSEL_SFPU_OP_COUNT; ++op)
    EXPECT_TRUE(std::isnan(one(op, kNaN, {to_bits(2.0f), to_bits(0.5f), false}))) << sim::sfpu_name(op);
  // rpow is IEEE pow: 1^x = 1 for every x, NaN included; base^-inf.
  EXPECT_EQ(one(TESSEL_SFPU_RPOW, kNaN, {to_bits(1.0f), 0, false}), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_RPOW, -kInf, {to_bits(2.0f), 0, false}), 0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_GELU_TANH, -kInf, {}), -0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_TANH_DERIVATIVE, kInf, {}), 0.0f);
}

// Integers as DST holds them: Int32 values in [-2^24, 2^24] and UInt32 /
// UInt16 values in [0, 2^24] are exact floats, and so are the results.
TEST(SfpuSpecial, BitwiseIsExactOnIntegers) {
  std::mt19937 gen(11);
  std::uniform_int_distribution<int32_t> sint(-(1 << 24), (1 << 24) - 1);
  std::uniform_int_distribution<int32_t> uint(0, (1 << 24) - 1);
  std::vector<int32_t> a, b;
  for (int i = 0; i < 1 << 14; ++i) {
    a.push_back(sint(gen));
    b.push_back(i % 2 ? sint(gen) : uint(gen));
  }
  for (int32_t v : {0, -1, 1, -(1 << 24), (1 << 24) - 1, 65535, 0x5555, -0x5556}) {
    a.push_back(v);
    b.push_back(-1 - v);
    a.push_back(v);
    b.push_back(v);
  }
  std::vector<float> fa, fb;
  for (size_t i = 0; i < a.size(); ++i) {
    fa.push_back(float(a[i]));
    fb.push_back(float(b[i]));
  }
  const std::vector<float> and_ = apply2(TESSEL_SFPU_BINARY_BITWISE_AND, fa, fb);
  const std::vector<float> or_ = apply2(TESSEL_SFPU_BINARY_BITWISE_OR, fa, fb);
  const std::vector<float> xor_ = apply2(TESSEL_SFPU_BINARY_BITWISE_XOR, fa, fb);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(and_[i], float(a[i] & b[i])) << a[i] << " & " << b[i];
    ASSERT_EQ(or_[i], float(a[i] | b[i])) << a[i] << " | " << b[i];
    ASSERT_EQ(xor_[i], float(a[i] ^ b[i])) << a[i] << " ^ " << b[i];
  }
  // UInt32 values above 2^31 keep their unsigned meaning; a fraction is
  // dropped toward zero; NaN reads as 0.
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_BITWISE_AND, {4026531840.0f}, {4294967040.0f})[0], 4026531840.0f);
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_BITWISE_OR, {2.75f, -2.75f}, {4.0f, 0.0f}), (std::vector<float>{6.0f, -2.0f}));
  EXPECT_EQ(apply2(TESSEL_SFPU_BINARY_BITWISE_XOR, {kNaN}, {5.0f})[0], 5.0f);
}

TEST(SfpuSpecial, CopyAndBinarySteps) {
  const std::vector<float> xs = all_bf16();
  std::vector<float> junk(xs.size(), 123.0f);
  const std::vector<float> copy = apply2(TESSEL_SFPU_BINARY_COPY, xs, junk);
  for (size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ(to_bits(copy[i]), to_bits(xs[i]));

  // logsigmoid_tile(a, b, out) with a = -x: -softplus(a); b is not read.
  std::vector<float> as = keep(xs, [](float x) { return std::fabs(x) < 200; });
  const std::vector<float> ls = apply2(TESSEL_SFPU_BINARY_LOGSIGMOID, as, std::vector<float>(as.size(), kNaN));
  // lgamma_stirling_tile(x, log z, out): ln gamma(z); log z is not read.
  std::vector<float> gs = keep(xs, [](float x) {
    return std::fabs(x) < 1e30f && std::fabs(lgamma_ref(x < 0.5f ? 1 - (long double)x : x)) > 1e-3L;
  });
  const std::vector<float> st = apply2(TESSEL_SFPU_BINARY_LGAMMA_STIRLING, gs, std::vector<float>(gs.size(), kNaN));
  double worst_ls = 0, worst_st = 0;
  for (size_t i = 0; i < as.size(); ++i)
    worst_ls = std::max(worst_ls, ulps(ls[i], -softplus_ref(as[i])));
  for (size_t i = 0; i < gs.size(); ++i)
    worst_st = std::max(worst_st, ulps(st[i], lgamma_ref(gs[i] < 0.5f ? 1 - (long double)gs[i] : gs[i])));
  EXPECT_LE(worst_ls, kExactUlp);
  EXPECT_LE(worst_st, kExactUlp);
}

TEST(SfpuSpecial, Lerp) {
  const std::vector<float> a = uniform(-100, 100, 1 << 14, 3), b = uniform(-100, 100, 1 << 14, 4),
                           w = uniform(-0.5f, 1.5f, 1 << 14, 5);
  const std::vector<float> out = apply3(TESSEL_SFPU_TERNARY_LERP, a, b, w);
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double want = (long double)a[i] + (long double)w[i] * ((long double)b[i] - a[i]);
    if (std::fabs(want) > 1e-3L) worst = std::max(worst, ulps(out[i], want));
  }
  EXPECT_LE(worst, kExactUlp);
  // The ends: weight 0 gives the start, weight 1 the end.
  EXPECT_EQ(apply3(TESSEL_SFPU_TERNARY_LERP, {1.5f, 1.5f}, {-7.25f, -7.25f}, {0.0f, 1.0f}),
            (std::vector<float>{1.5f, -7.25f}));
}

TEST(SfpuSpecial, AddcmulAddcdivSnakeBeta) {
  const std::vector<float> a = uniform(-10, 10, 1 << 14, 13), b = uniform(-10, 10, 1 << 14, 14),
                           c = uniform(0.5f, 4, 1 << 14, 15);
  const float value = -0.75f;
  const std::vector<float> mul = apply3(TESSEL_SFPU_TERNARY_ADDCMUL, a, b, c, to_bits(value));
  const std::vector<float> div = apply3(TESSEL_SFPU_TERNARY_ADDCDIV, a, b, c, to_bits(value));
  const std::vector<float> snake = apply3(TESSEL_SFPU_TERNARY_SNAKE_BETA, a, b, c);
  double worst_mul = 0, worst_div = 0, worst_snake = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double x = a[i], y = b[i], z = c[i], s = std::sin(y * x);
    const long double want_mul = x + value * y * z, want_div = x + value * y / z, want_snake = x + s * s / z;
    // Away from cancellation, where the double evaluation's own error shows.
    if (std::fabs(want_mul) > 1e-2L) worst_mul = std::max(worst_mul, ulps(mul[i], want_mul));
    if (std::fabs(want_div) > 1e-2L) worst_div = std::max(worst_div, ulps(div[i], want_div));
    if (std::fabs(want_snake) > 1e-2L) worst_snake = std::max(worst_snake, ulps(snake[i], want_snake));
  }
  EXPECT_LE(worst_mul, kExactUlp);
  EXPECT_LE(worst_div, kExactUlp);
  EXPECT_LE(worst_snake, kExactUlp);
  EXPECT_EQ(apply3(TESSEL_SFPU_TERNARY_ADDCDIV, {1.0f}, {2.0f}, {0.0f}, to_bits(1.0f))[0], kInf);
}

// The three steps of ttnn's lgamma kernel (stirling, log|sin(pi x)| with 0
// at the integers, adjusted) give ln|gamma(x)| for negative x.
TEST(SfpuSpecial, LgammaAdjustedCompletesTheReflection) {
  std::vector<float> xs = keep(uniform(-20, 0.45f, 1 << 14, 9),
                               [](float x) { return x != std::floor(x) && std::fabs(lgamma_ref(x)) > 1e-2L; });
  xs.push_back(-3.0f); // a pole: +inf
  xs.push_back(0.75f); // x >= 0.5: the stirling result as it is
  const std::vector<float> stirling = test::apply(TESSEL_SFPU_LGAMMA_STIRLING, xs);
  std::vector<float> logsin(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double x = xs[i];
    logsin[i] = x == std::floor(x) ? -kInf : float(std::log(std::fabs(std::sin(M_PIl * (x - std::trunc(x))))));
  }
  const std::vector<float> out = apply3(TESSEL_SFPU_TERNARY_LGAMMA_ADJUSTED, stirling, logsin, xs);
  for (size_t i = 0; i + 2 < xs.size(); ++i) {
    const long double want = std::log(M_PIl) - (long double)logsin[i] - (long double)stirling[i];
    ASSERT_LE(ulps(out[i], want), kExactUlp) << "x = " << xs[i];
    ASSERT_LE(std::fabs(out[i] - lgamma_ref(xs[i])) / std::fabs(lgamma_ref(xs[i])), 1e-4L) << "x = " << xs[i];
  }
  EXPECT_EQ(out[xs.size() - 2], kInf);
  EXPECT_EQ(out[xs.size() - 1], stirling[xs.size() - 1]);
}

TEST(SfpuSpecial, Names) {
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_CBRT), "cbrt_tile");
  EXPECT_STREQ(sim::sfpu_init_name(TESSEL_SFPU_SOFTCAP), "softcap_tile_init");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_BITWISE_XOR), "bitwise_xor_binary_tile");
  EXPECT_STREQ(sim::sfpu_binary_init_name(TESSEL_SFPU_BINARY_BITWISE_AND), "binary_bitwise_tile_init");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_COPY), "copy_dest_values");
  EXPECT_STREQ(sim::sfpu_ternary_name(TESSEL_SFPU_TERNARY_LERP), "lerp_tile");
  EXPECT_STREQ(sim::sfpu_ternary_init_name(TESSEL_SFPU_TERNARY_LGAMMA_ADJUSTED), "lgamma_adjusted_tile_init");
  EXPECT_STREQ(sim::sfpu_ternary_name(TESSEL_SFPU_TERNARY_SNAKE_BETA), "snake_beta_tile");
}

} // namespace
} // namespace tessel::test
