// SFPU special and inverse functions, rounding, activations and arithmetic
// with a scalar (src/sim/sfpu_functions.cpp) on float tiles: each function
// correctly rounded against a long double reference over every bfloat16
// value of its domain and random floats (erfinv against a reference found
// by bisection), the special values (+-0, +-inf, NaN, the domain's ends),
// and the exact ops bit for bit. Through the device: op_table_test.cpp and
// sfpu_kernel_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "sfpu_reference.hpp"
#include "sim/sfpu.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::test {
namespace {

constexpr double kExactUlp = 0.5 + 0x1p-20;

struct Row {
  uint32_t op;
  const char* name;
  Ref ref;
  std::function<bool(float)> domain;
  float lo, hi; // of the random inputs
};

std::vector<float> sweep(const Row& row) {
  std::vector<float> xs = keep(all_bf16(), row.domain);
  const std::vector<float> more = keep(uniform(row.lo, row.hi, 1 << 16), row.domain);
  xs.insert(xs.end(), more.begin(), more.end());
  return xs;
}

TEST(SfpuFunctions, CorrectlyRounded) {
  const auto all = [](float) { return true; };
  const Row rows[] = {
      {TESSEL_SFPU_ERF, "erf", [](long double x) { return std::erf(x); }, all, -5, 5},
      {TESSEL_SFPU_ERFC, "erfc", [](long double x) { return std::erfc(x); }, all, -5, 12},
      {TESSEL_SFPU_ASIN, "asin", [](long double x) { return std::asin(x); }, [](float x) { return std::fabs(x) <= 1; },
       -1, 1},
      {TESSEL_SFPU_ACOS, "acos", [](long double x) { return std::acos(x); }, [](float x) { return std::fabs(x) <= 1; },
       -1, 1},
      {TESSEL_SFPU_ATAN, "atan", [](long double x) { return std::atan(x); }, all, -20, 20},
      {TESSEL_SFPU_ASINH, "asinh", [](long double x) { return std::asinh(x); }, all, -20, 20},
      {TESSEL_SFPU_ACOSH, "acosh", [](long double x) { return std::acosh(x); }, [](float x) { return x >= 1; }, 1, 20},
      {TESSEL_SFPU_ATANH, "atanh", [](long double x) { return std::atanh(x); },
       [](float x) { return std::fabs(x) < 1; }, -1, 1},
      {TESSEL_SFPU_SINH, "sinh", [](long double x) { return std::sinh(x); }, [](float x) { return std::fabs(x) < 89; },
       -20, 20},
      {TESSEL_SFPU_COSH, "cosh", [](long double x) { return std::cosh(x); }, [](float x) { return std::fabs(x) < 89; },
       -20, 20},
      {TESSEL_SFPU_TAN, "tan", [](long double x) { return std::tan(x); }, [](float x) { return std::fabs(x) < 1e6f; },
       -7, 7},
      {TESSEL_SFPU_LOG1P, "log1p", [](long double x) { return std::log1p(x); }, [](float x) { return x > -1; }, -1, 10},
      {TESSEL_SFPU_EXPM1, "expm1", [](long double x) { return std::expm1(x); }, [](float x) { return x < 88.7f; }, -20,
       20},
  };
  for (const Row& row : rows) {
    const Worst w = worst_ulp(row.op, sweep(row), row.ref);
    EXPECT_LE(w.error, kExactUlp) << row.name << ": " << describe(w);
  }
}

// erfinv(x): the y with erf(y) = x, by bisection in long double (on erfc for
// |x| > 1/2, where 1 - |x| is exact and erf would lose it).
long double erfinv_ref(long double x) {
  const long double a = std::fabs(x);
  long double lo = 0, hi = 10;
  for (int i = 0; i < 200; ++i) {
    const long double mid = (lo + hi) / 2;
    const bool below = a > 0.5L ? std::erfc(mid) > 1 - a : std::erf(mid) < a;
    (below ? lo : hi) = mid;
  }
  return std::copysign((lo + hi) / 2, x);
}

TEST(SfpuFunctions, ErfinvCorrectlyRounded) {
  std::vector<float> xs = keep(all_bf16(), [](float x) { return std::fabs(x) < 1 && x != 0; });
  for (uint32_t k = 1; k < 4096; k += 7) { // the last floats below 1
    xs.push_back(1.0f - float(k) * 0x1p-24f);
    xs.push_back(-1.0f + float(k) * 0x1p-24f);
  }
  const std::vector<float> more = uniform(-0.999f, 0.999f, 1 << 12);
  xs.insert(xs.end(), more.begin(), more.end());
  const Worst w = worst_ulp(TESSEL_SFPU_ERFINV, xs, erfinv_ref);
  EXPECT_LE(w.error, kExactUlp) << "erfinv: " << describe(w);
}

TEST(SfpuFunctions, LogWithBase) {
  const std::vector<float> xs = keep(all_bf16(), [](float x) { return x > 0; });
  for (float scale : {1.44269504f, 0.434294482f, 1.0f, -2.0f}) {
    const Worst w = worst_ulp(TESSEL_SFPU_LOG_WITH_BASE, xs, [scale](long double x) { return std::log(x) * scale; },
                              {to_bits(scale), 0, false});
    EXPECT_LE(w.error, kExactUlp) << "scale " << scale << ": " << describe(w);
  }
  EXPECT_EQ(one(TESSEL_SFPU_LOG_WITH_BASE, 8.0f, {to_bits(1.44269504f), 0, false}), 3.0f);
}

TEST(SfpuFunctions, SpecialValues) {
  struct Special {
    uint32_t op;
    float x;
    float want; // NaN: any NaN
  };
  const Special rows[] = {
      {TESSEL_SFPU_ERF, kInf, 1.0f},
      {TESSEL_SFPU_ERF, -kInf, -1.0f},
      {TESSEL_SFPU_ERF, -0.0f, -0.0f},
      {TESSEL_SFPU_ERFC, -kInf, 2.0f},
      {TESSEL_SFPU_ERFC, kInf, 0.0f},
      {TESSEL_SFPU_ERFC, 0.0f, 1.0f},
      {TESSEL_SFPU_ERFINV, 1.0f, kInf},
      {TESSEL_SFPU_ERFINV, -1.0f, -kInf},
      {TESSEL_SFPU_ERFINV, 1.5f, kNaN},
      {TESSEL_SFPU_ERFINV, -0.0f, -0.0f},
      {TESSEL_SFPU_ERFINV, kInf, kNaN},
      {TESSEL_SFPU_ASIN, 1.5f, kNaN},
      {TESSEL_SFPU_ASIN, -0.0f, -0.0f},
      {TESSEL_SFPU_ACOS, -1.5f, kNaN},
      {TESSEL_SFPU_ATAN, kInf, 1.57079637f},
      {TESSEL_SFPU_ATAN, -kInf, -1.57079637f},
      {TESSEL_SFPU_ASINH, -kInf, -kInf},
      {TESSEL_SFPU_ACOSH, 0.5f, kNaN},
      {TESSEL_SFPU_ACOSH, 1.0f, 0.0f},
      {TESSEL_SFPU_ATANH, 1.0f, kInf},
      {TESSEL_SFPU_ATANH, -1.0f, -kInf},
      {TESSEL_SFPU_ATANH, 2.0f, kNaN},
      {TESSEL_SFPU_SINH, -kInf, -kInf},
      {TESSEL_SFPU_SINH, 100.0f, kInf},
      {TESSEL_SFPU_COSH, -kInf, kInf},
      {TESSEL_SFPU_TAN, kInf, kNaN},
      {TESSEL_SFPU_TAN, -0.0f, -0.0f},
      {TESSEL_SFPU_LOG1P, -1.0f, -kInf},
      {TESSEL_SFPU_LOG1P, -2.0f, kNaN},
      {TESSEL_SFPU_LOG1P, -0.0f, -0.0f},
      {TESSEL_SFPU_LOG1P, kInf, kInf},
      {TESSEL_SFPU_EXPM1, -kInf, -1.0f},
      {TESSEL_SFPU_EXPM1, -0.0f, -0.0f},
      {TESSEL_SFPU_EXPM1, 100.0f, kInf},
      {TESSEL_SFPU_LOG_WITH_BASE, 0.0f, -kInf},
      {TESSEL_SFPU_LOG_WITH_BASE, -1.0f, kNaN},
  };
  for (const Special& r : rows) {
    const float got = one(r.op, r.x, {to_bits(1.0f), 0, false});
    if (std::isnan(r.want))
      EXPECT_TRUE(std::isnan(got)) << sim::sfpu_name(r.op) << "(" << r.x << ") = " << got;
    else
      EXPECT_EQ(to_bits(got), to_bits(r.want)) << sim::sfpu_name(r.op) << "(" << r.x << ") = " << got;
  }
  for (uint32_t op = TESSEL_SFPU_ERF; op < TESSEL_SFPU_OP_COUNT; ++op) {
    if (op == TESSEL_SFPU_THRESHOLD) continue; // a NaN is not above the threshold: it becomes the value
    if (op == TESSEL_SFPU_RPOW) continue;      // 1^NaN = 1 (IEEE pow): sfpu_special_test.cpp
    EXPECT_TRUE(std::isnan(one(op, kNaN, {to_bits(1.0f), to_bits(2.0f), false}))) << sim::sfpu_name(op);
  }
}

TEST(SfpuFunctions, RoundingIsExact) {
  std::vector<float> xs = all_bf16();
  for (float x : {-0.0f, 0.5f, -0.5f, 1.5f, -2.5f, 8388607.5f, -8388607.5f, 8388608.0f, 3e9f, -3e9f, kInf, -kInf,
                  0x1p-149f, -0x1p-149f, 0.9999999f, -0.9999999f})
    xs.push_back(x);
  const std::vector<float> tr = apply(TESSEL_SFPU_TRUNC, xs, {});
  const std::vector<float> fr = apply(TESSEL_SFPU_FRAC, xs, {});
  const std::vector<float> r0 = apply(TESSEL_SFPU_ROUND, xs, {0, 0, false});
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    ASSERT_EQ(to_bits(tr[i]), to_bits(std::trunc(x))) << "trunc(" << x << ")";
    const float f = x - std::trunc(x);
    ASSERT_TRUE(to_bits(fr[i]) == to_bits(f) || (std::isnan(f) && std::isnan(fr[i]))) << "frac(" << x << ")";
    ASSERT_EQ(to_bits(r0[i]), to_bits(std::nearbyint(x))) << "round(" << x << ", 0)";
  }
  EXPECT_EQ(one(TESSEL_SFPU_FRAC, -2.75f), -0.75f);
  EXPECT_EQ(one(TESSEL_SFPU_ROUND, 2.5f, {0, 0, false}), 2.0f); // half to even
  EXPECT_EQ(one(TESSEL_SFPU_ROUND, -3.5f, {0, 0, false}), -4.0f);
}

TEST(SfpuFunctions, RoundToDecimals) {
  const std::vector<float> xs = uniform(-1000.0f, 1000.0f, 1 << 14);
  for (int32_t d : {1, 2, 3, -1, -2}) {
    const std::vector<float> ys = apply(TESSEL_SFPU_ROUND, xs, {uint32_t(d), 0, false});
    const double scale = std::pow(10.0, d);
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(ys[i], float(std::nearbyint(double(xs[i]) * scale) / scale)) << "round(" << xs[i] << ", " << d << ")";
  }
  EXPECT_EQ(one(TESSEL_SFPU_ROUND, 1.25f, {1, 0, false}), 1.2f); // 12.5 -> 12, half to even
  EXPECT_EQ(one(TESSEL_SFPU_ROUND, 1.35f, {1, 0, false}), 1.4f);
  EXPECT_EQ(one(TESSEL_SFPU_ROUND, 1234.5f, {uint32_t(-2), 0, false}), 1200.0f);
  EXPECT_EQ(one(TESSEL_SFPU_ROUND, 3e30f, {5, 0, false}), 3e30f); // beyond 2^52 scaled: unchanged
  EXPECT_EQ(one(TESSEL_SFPU_ROUND, kInf, {2, 0, false}), kInf);
  EXPECT_EQ(to_bits(one(TESSEL_SFPU_ROUND, -5.0f, {uint32_t(-400), 0, false})), to_bits(-0.0f));
}

TEST(SfpuFunctions, Activations) {
  const std::vector<float> xs = keep(all_bf16(), [](float x) { return x > -80 && x < 1e30f; });
  for (float alpha : {1.0f, 0.5f}) {
    const Worst w = worst_ulp(TESSEL_SFPU_ELU, xs, [alpha](long double x) { return x > 0 ? x : alpha * std::expm1(x); },
                              {to_bits(alpha), 0, false});
    EXPECT_LE(w.error, kExactUlp) << "elu alpha " << alpha << ": " << describe(w);
  }
  EXPECT_EQ(to_bits(one(TESSEL_SFPU_ELU, -0.0f, {to_bits(1.0f), 0, false})), to_bits(-0.0f));
  EXPECT_EQ(one(TESSEL_SFPU_ELU, -kInf, {to_bits(0.5f), 0, false}), -0.5f);

  const std::vector<float> all = all_bf16();
  const SfpuParams range{to_bits(-0.5f), to_bits(2.0f), false};
  const std::vector<float> ht = apply(TESSEL_SFPU_HARDTANH, all, range);
  const std::vector<float> th = apply(TESSEL_SFPU_THRESHOLD, all, {to_bits(1.0f), to_bits(-7.0f), false});
  for (size_t i = 0; i < all.size(); ++i) {
    const float x = all[i];
    ASSERT_EQ(ht[i], std::min(std::max(x, -0.5f), 2.0f)) << "hardtanh(" << x << ")";
    ASSERT_EQ(th[i], x > 1.0f ? x : -7.0f) << "threshold(" << x << ")";
  }
  EXPECT_EQ(one(TESSEL_SFPU_HARDTANH, -kInf, range), -0.5f);
  EXPECT_EQ(one(TESSEL_SFPU_THRESHOLD, 1.0f, {to_bits(1.0f), to_bits(-7.0f), false}), -7.0f); // not above
}

TEST(SfpuFunctions, MoreActivations) {
  const std::vector<float> xs = keep(all_bf16(), [](float x) { return x > -80 && x < 1e30f; });
  const float scale = 1.0507009873554805f, alpha = 1.6732632423543772f;
  const Worst w =
      worst_ulp(TESSEL_SFPU_SELU, xs,
                [=](long double x) { return (long double)scale * (x > 0 ? x : (long double)alpha * std::expm1(x)); },
                {to_bits(scale), to_bits(alpha), false});
  EXPECT_LE(w.error, kExactUlp) << "selu: " << describe(w);
  const std::vector<float> all = all_bf16();
  const std::vector<float> pr = apply(TESSEL_SFPU_PRELU, all, {to_bits(0.25f), 0, false});
  const std::vector<float> hs = apply(TESSEL_SFPU_HARDSIGMOID, all, {});
  for (size_t i = 0; i < all.size(); ++i) {
    const float x = all[i];
    ASSERT_EQ(to_bits(pr[i]), to_bits(x < 0 ? x * 0.25f : x)) << "prelu(" << x << ")";
    const float h = float(double(x) / 6 + 0.5);
    ASSERT_EQ(hs[i], h < 0 ? 0.0f : h > 1 ? 1.0f : h) << "hardsigmoid(" << x << ")";
  }
  const Worst sw = worst_ulp(TESSEL_SFPU_HARDSWISH, xs,
                             [](long double x) { return x * std::min(std::max(x / 6 + 0.5L, 0.0L), 1.0L); }, {});
  EXPECT_LE(sw.error, kExactUlp) << "hardswish: " << describe(sw);
  const Worst ss = worst_ulp(TESSEL_SFPU_SOFTSIGN, xs, [](long double x) { return x / (1 + std::fabs(x)); }, {});
  EXPECT_LE(ss.error, kExactUlp) << "softsign: " << describe(ss);
  const std::vector<float> cl = apply(TESSEL_SFPU_CLAMP, all, {to_bits(-1.5f), to_bits(0.75f), false});
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(cl[i], std::min(std::max(all[i], -1.5f), 0.75f)) << "clamp(" << all[i] << ")";
  EXPECT_EQ(to_bits(one(TESSEL_SFPU_HARDSWISH, -kInf)), to_bits(-0.0f));
  EXPECT_EQ(one(TESSEL_SFPU_HARDSWISH, kInf), kInf);
  EXPECT_EQ(one(TESSEL_SFPU_SOFTSIGN, -kInf), -1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_HARDSIGMOID, kInf), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_HARDSIGMOID, -3.0f), 0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_HARDSIGMOID, 0.0f), 0.5f);
  EXPECT_TRUE(std::isnan(one(TESSEL_SFPU_HARDSIGMOID, kNaN)));
}

TEST(SfpuFunctions, BinaryRsubPowerDivNoNan) {
  const std::vector<float> a = uniform(-4.0f, 4.0f, kTileHW, 4), b = uniform(-4.0f, 4.0f, kTileHW, 5);
  std::vector<float> out(kTileHW);
  sim::sfpu_binary(TESSEL_SFPU_BINARY_RSUB, a.data(), b.data(), out.data());
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out[i], b[i] - a[i]) << "rsub at " << i;
  // power: correctly rounded where defined (a positive base).
  std::vector<float> base(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i)
    base[i] = std::fabs(a[i]) + 0.25f;
  sim::sfpu_binary(TESSEL_SFPU_BINARY_POW, base.data(), b.data(), out.data());
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const long double want = std::pow((long double)base[i], (long double)b[i]);
    ASSERT_LE(double(std::fabs(out[i] - want) / ulp_of(want)), kExactUlp) << "pow(" << base[i] << ", " << b[i] << ")";
  }
  std::vector<float> x = {2.0f, -8.0f, 0.0f, 2.0f, -2.0f, 0.0f, 1.0f, 5.0f},
                     y = {10.0f, 1.0f / 3, 0.0f, -1.0f, 0.5f, 0.0f, kNaN, -0.0f};
  x.resize(kTileHW, 1.0f), y.resize(kTileHW, 1.0f);
  sim::sfpu_binary(TESSEL_SFPU_BINARY_POW, x.data(), y.data(), out.data());
  EXPECT_EQ(out[0], 1024.0f);
  EXPECT_TRUE(std::isnan(out[1])); // a negative base, a non-integral exponent
  EXPECT_EQ(out[2], 1.0f);         // 0^0
  EXPECT_EQ(out[3], 0.5f);
  EXPECT_TRUE(std::isnan(out[4]));
  EXPECT_EQ(out[5], 1.0f);
  EXPECT_EQ(out[6], 1.0f); // 1^NaN, as IEEE pow
  sim::sfpu_binary(TESSEL_SFPU_BINARY_DIV_NO_NAN, x.data(), y.data(), out.data());
  EXPECT_EQ(out[0], 0.2f);
  EXPECT_EQ(out[2], 0.0f); // 0 / 0
  EXPECT_EQ(out[5], 0.0f);
  EXPECT_EQ(out[7], 0.0f); // 5 / -0
  EXPECT_TRUE(std::isnan(out[6]));
}

TEST(SfpuFunctions, ArithmeticWithAScalar) {
  const std::vector<float> xs = uniform(-100.0f, 100.0f, kTileHW * 4, 3);
  for (float s : {2.5f, -0.1f, 3.0f}) {
    struct Arith {
      uint32_t op;
      std::function<float(float)> want;
    };
    const Arith rows[] = {{TESSEL_SFPU_ADD_SCALAR, [s](float x) { return x + s; }},
                          {TESSEL_SFPU_SUB_SCALAR, [s](float x) { return x - s; }},
                          {TESSEL_SFPU_MUL_SCALAR, [s](float x) { return x * s; }},
                          {TESSEL_SFPU_DIV_SCALAR, [s](float x) { return x / s; }},
                          {TESSEL_SFPU_RSUB_SCALAR, [s](float x) { return s - x; }}};
    for (const Arith& row : rows) {
      const std::vector<float> ys = apply(row.op, xs, {to_bits(s), 0, false});
      for (size_t i = 0; i < xs.size(); ++i)
        ASSERT_EQ(ys[i], row.want(xs[i])) << sim::sfpu_name(row.op) << "(" << xs[i] << ", " << s << ")";
    }
  }
  EXPECT_EQ(one(TESSEL_SFPU_DIV_SCALAR, 1.0f, {to_bits(0.0f), 0, false}), kInf);
}

} // namespace
} // namespace tessel::test
