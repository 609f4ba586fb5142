// SFPU math (src/sim/sfpu.cpp) called directly on float tiles: every op's
// result against a long double reference over sweeps of its domain, with the
// bound docs/numerics.md states (exact mode: correctly rounded up to 2^-20
// ULP; approximate mode: the stated relative bound), special values, the
// integer rounding of floor/ceil/typecast, and the binary ops with aliasing.
// The device-level tests (the engine's checks, DST rounding, CB formats) are
// in op_table_test.cpp.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sfpu_reference.hpp"
#include "sim/sfpu.hpp"
#include "tessel/data_format.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::test {
namespace {

long double sigmoid_ref(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
long double gelu_erf_ref(long double x) { return 0.5L * x * std::erfc(-x / std::sqrt(2.0L)); }
long double gelu_tanh_ref(long double x) {
  const long double z = std::sqrt(2.0L / 3.14159265358979323846264338327950288L) * (x + 0.044715L * x * x * x);
  return x / (1.0L + std::exp(-2.0L * z)); // = 0.5 x (1 + tanh z)
}

// ---------------------------------------------------------------------------
// Exact mode: correctly rounded (up to 2^-20 ULP from a tie).

constexpr double kExactUlp = 0.5 + 0x1p-20;

TEST(SfpuExact, TranscendentalsAreCorrectlyRounded) {
  const std::vector<float> bf16 = all_bf16();
  struct Row {
    uint32_t op;
    const char* name;
    Ref ref;
    std::function<bool(float)> domain;
  };
  const Row rows[] = {
      {TESSEL_SFPU_EXP, "exp", [](long double x) { return std::exp(x); }, [](float x) { return x < 88.7f; }},
      {TESSEL_SFPU_EXP2, "exp2", [](long double x) { return std::exp2(x); }, [](float x) { return x < 128.0f; }},
      {TESSEL_SFPU_LOG, "log", [](long double x) { return std::log(x); }, [](float x) { return x > 0.0f; }},
      {TESSEL_SFPU_SQRT, "sqrt", [](long double x) { return std::sqrt(x); }, [](float x) { return x >= 0.0f; }},
      {TESSEL_SFPU_RSQRT, "rsqrt", [](long double x) { return 1.0L / std::sqrt(x); }, [](float x) { return x > 0.0f; }},
      {TESSEL_SFPU_RECIP, "recip", [](long double x) { return 1.0L / x; },
       [](float x) { return std::fabs(x) >= 0x1p-126f && std::fabs(x) < 0x1p126f; }},
      {TESSEL_SFPU_SIGMOID, "sigmoid", sigmoid_ref, [](float x) { return x > -87.0f; }},
      {TESSEL_SFPU_TANH, "tanh", [](long double x) { return std::tanh(x); }, [](float) { return true; }},
      {TESSEL_SFPU_GELU, "gelu", gelu_erf_ref, [](float x) { return x > -13.0f; }},
      {TESSEL_SFPU_SILU, "silu", [](long double x) { return x * sigmoid_ref(x); }, [](float x) { return x > -80.0f; }},
      {TESSEL_SFPU_SIN, "sin", [](long double x) { return std::sin(x); }, [](float x) { return std::fabs(x) < 1e6f; }},
      {TESSEL_SFPU_COS, "cos", [](long double x) { return std::cos(x); }, [](float x) { return std::fabs(x) < 1e6f; }},
  };
  const std::vector<float> randoms = uniform(-20.0f, 20.0f, 1 << 16);
  for (const Row& row : rows) {
    std::vector<float> xs = keep(bf16, row.domain);
    const std::vector<float> more = keep(randoms, row.domain);
    xs.insert(xs.end(), more.begin(), more.end());
    const Worst w = worst_ulp(row.op, xs, row.ref);
    EXPECT_LE(w.error, kExactUlp) << row.name << ": " << describe(w);
  }
}

// power_tile: x^n for integer n, one rounding.
TEST(SfpuExact, PowerOfIntegerExponent) {
  const std::vector<float> xs = uniform(-3.0f, 3.0f, 4096);
  for (uint32_t n : {0u, 1u, 2u, 3u, 7u, 10u}) {
    const Worst w = worst_ulp(
        TESSEL_SFPU_POWER, xs, [n](long double x) { return std::pow(x, (long double)n); }, SfpuParams{n, 0, false});
    EXPECT_LE(w.error, kExactUlp) << "n = " << n << ": " << describe(w);
  }
  EXPECT_EQ(one(TESSEL_SFPU_POWER, 0.0f, {0, 0, false}), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_POWER, -2.0f, {3, 0, false}), -8.0f);
  EXPECT_EQ(one(TESSEL_SFPU_POWER, 2.0f, {200, 0, false}), kInf);
}

TEST(SfpuExact, SimpleOpsAreExact) {
  std::vector<float> xs = all_bf16();
  const std::vector<float> more = uniform(-1e6f, 1e6f, 1 << 14);
  xs.insert(xs.end(), more.begin(), more.end());
  const float limit = 2.5f, slope = 0.125f;
  struct Row {
    uint32_t op;
    uint32_t p0;
    std::function<float(float)> want;
  };
  const Row rows[] = {
      {TESSEL_SFPU_RELU, 0, [](float x) { return x < 0 ? 0.0f : x; }},
      {TESSEL_SFPU_RELU_MAX, to_bits(limit), [&](float x) { return std::min(std::max(x, 0.0f), limit); }},
      {TESSEL_SFPU_RELU_MIN, to_bits(limit), [&](float x) { return std::max(x, limit); }},
      {TESSEL_SFPU_LEAKY_RELU, to_bits(slope), [&](float x) { return x < 0 ? x * slope : x; }},
      {TESSEL_SFPU_ABS, 0, [](float x) { return std::fabs(x); }},
      {TESSEL_SFPU_NEG, 0, [](float x) { return -x; }},
      {TESSEL_SFPU_SQUARE, 0, [](float x) { return x * x; }},
      {TESSEL_SFPU_SIGN, 0, [](float x) { return x > 0   ? 1.0f
                                                 : x < 0 ? -1.0f
                                                         : x; }},
      {TESSEL_SFPU_FLOOR, 0, [](float x) { return std::floor(x); }},
      {TESSEL_SFPU_CEIL, 0, [](float x) { return std::ceil(x); }},
      {TESSEL_SFPU_FILL, to_bits(-3.75f), [](float) { return -3.75f; }},
  };
  for (const Row& row : rows) {
    const std::vector<float> ys = apply(row.op, xs, {row.p0, 0, false});
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(to_bits(ys[i]), to_bits(row.want(xs[i]))) << sim::sfpu_name(row.op) << "(" << xs[i] << ") = " << ys[i];
  }
}

// floor and ceil at the edges of the integer conversion and of the sign of zero.
TEST(SfpuExact, FloorAndCeilEdges) {
  const float xs[] = {-0.0f,      0.0f,        -0.5f, 0.5f,  -1.0f, 1.0f,  -1.5f, 2.5f,      8388607.5f, -8388607.5f,
                      8388608.0f, -8388609.0f, 3e9f,  -3e9f, 1e38f, -kInf, kInf,  0x1p-149f, -0x1p-149f, 0.9999999f};
  for (float x : xs) {
    EXPECT_EQ(to_bits(one(TESSEL_SFPU_FLOOR, x)), to_bits(std::floor(x))) << "floor(" << x << ")";
    EXPECT_EQ(to_bits(one(TESSEL_SFPU_CEIL, x)), to_bits(std::ceil(x))) << "ceil(" << x << ")";
  }
  EXPECT_TRUE(std::isnan(one(TESSEL_SFPU_FLOOR, kNaN)));
  EXPECT_TRUE(std::isnan(one(TESSEL_SFPU_CEIL, kNaN)));
}

// ---------------------------------------------------------------------------
// Approximate mode: the bounds of docs/numerics.md.

struct ApproxRow {
  uint32_t op;
  const char* name;
  double bound; // relative
  long double abs_floor;
  Ref ref;
  std::vector<float> inputs;
};

TEST(SfpuApprox, WithinStatedBounds) {
  const std::vector<float> bf16 = all_bf16();
  auto bf16_in = [&](float lo, float hi) { return keep(bf16, [=](float x) { return x >= lo && x <= hi; }); };
  auto plus = [](std::vector<float> a, const std::vector<float>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  // Whole binades (every mantissa with a stride) cover the seed tricks' worst cases.
  const std::vector<float> two_binades = binades(126, 127, 1);
  std::vector<float> positive = plus(binades(1, 254, 4099), binades(0, 0, 1031)); // incl. denormals
  const ApproxRow rows[] = {
      {TESSEL_SFPU_EXP, "exp", 0x1p-13, 0, [](long double x) { return std::exp(x); },
       plus(bf16_in(-87.0f, 88.5f), uniform(-87.0f, 88.5f, 1 << 18))},
      {TESSEL_SFPU_EXP2, "exp2", 0x1p-13, 0, [](long double x) { return std::exp2(x); },
       plus(bf16_in(-125.9f, 127.9f), uniform(-125.9f, 127.9f, 1 << 18))},
      {TESSEL_SFPU_LOG, "log", 0x1p-20, 0, [](long double x) { return std::log(x); },
       plus(positive, binades(126, 127, 3))},
      {TESSEL_SFPU_RECIP, "recip", 0x1p-16, 0, [](long double x) { return 1.0L / x; },
       plus(plus(two_binades, binades(1, 253, 8191)), binades(1, 253, 8191, true))},
      {TESSEL_SFPU_RSQRT, "rsqrt", 0x1p-16, 0, [](long double x) { return 1.0L / std::sqrt(x); },
       plus(two_binades, positive)},
      {TESSEL_SFPU_SQRT, "sqrt", 0x1p-16, 0, [](long double x) { return std::sqrt(x); }, plus(two_binades, positive)},
      {TESSEL_SFPU_SIGMOID, "sigmoid", 0x1p-13, 0x1p-126L, sigmoid_ref,
       plus(bf16_in(-100.0f, 100.0f), uniform(-100.0f, 100.0f, 1 << 18))},
      {TESSEL_SFPU_TANH, "tanh", 0x1p-13, 0, [](long double x) { return std::tanh(x); },
       plus(bf16_in(-50.0f, 50.0f), uniform(-4.0f, 4.0f, 1 << 18))},
      {TESSEL_SFPU_GELU, "gelu (tanh form)", 0x1p-12, 0x1p-119L, gelu_tanh_ref,
       plus(bf16_in(-1e4f, 1e4f), uniform(-12.0f, 12.0f, 1 << 18))},
      {TESSEL_SFPU_SILU, "silu", 0x1p-13, 0x1p-119L, [](long double x) { return x * sigmoid_ref(x); },
       plus(bf16_in(-1e4f, 1e4f), uniform(-110.0f, 20.0f, 1 << 18))},
  };
  for (const ApproxRow& row : rows) {
    const Worst w = worst_rel(row.op, row.inputs, row.ref, {0, 0, true}, row.abs_floor);
    EXPECT_LE(w.error, row.bound) << row.name << ": " << describe(w);
    RecordProperty(std::string(row.name) + "_max_rel_err", describe(w));
  }
}

// The approximations really are different code from the exact forms.
TEST(SfpuApprox, DiffersFromExactMode) {
  const std::vector<float> xs = uniform(0.5f, 3.0f, 1024);
  for (uint32_t op : {TESSEL_SFPU_EXP, TESSEL_SFPU_RECIP, TESSEL_SFPU_RSQRT, TESSEL_SFPU_TANH}) {
    const std::vector<float> a = apply(op, xs, {0, 0, true}), e = apply(op, xs, {0, 0, false});
    size_t differ = 0;
    for (size_t i = 0; i < xs.size(); ++i)
      differ += a[i] != e[i];
    EXPECT_GT(differ, 100u) << sim::sfpu_name(op);
  }
  EXPECT_EQ(one(TESSEL_SFPU_EXP, 0.0f, {0, 0, true}), 1.0f); // the polynomial is exact at 0
}

// ---------------------------------------------------------------------------
// Special values, the same in both modes.

TEST(SfpuSpecials, InfinitiesZerosAndNaN) {
  struct Row {
    uint32_t op;
    float x;
    float want; // NaN: any NaN
  };
  const Row rows[] = {
      {TESSEL_SFPU_EXP, -kInf, 0.0f},    {TESSEL_SFPU_EXP, kInf, kInf},     {TESSEL_SFPU_EXP, 100.0f, kInf},
      {TESSEL_SFPU_EXP, -200.0f, 0.0f},  {TESSEL_SFPU_EXP2, 128.0f, kInf},  {TESSEL_SFPU_EXP2, -kInf, 0.0f},
      {TESSEL_SFPU_LOG, 0.0f, -kInf},    {TESSEL_SFPU_LOG, -0.0f, -kInf},   {TESSEL_SFPU_LOG, -1.0f, kNaN},
      {TESSEL_SFPU_LOG, kInf, kInf},     {TESSEL_SFPU_LOG, 1.0f, 0.0f},     {TESSEL_SFPU_LOG, -kInf, kNaN},
      {TESSEL_SFPU_SQRT, -1.0f, kNaN},   {TESSEL_SFPU_SQRT, -0.0f, -0.0f},  {TESSEL_SFPU_SQRT, 0.0f, 0.0f},
      {TESSEL_SFPU_SQRT, kInf, kInf},    {TESSEL_SFPU_SQRT, -kInf, kNaN},   {TESSEL_SFPU_RSQRT, 0.0f, kInf},
      {TESSEL_SFPU_RSQRT, -0.0f, -kInf}, {TESSEL_SFPU_RSQRT, -4.0f, kNaN},  {TESSEL_SFPU_RSQRT, kInf, 0.0f},
      {TESSEL_SFPU_RECIP, 0.0f, kInf},   {TESSEL_SFPU_RECIP, -0.0f, -kInf}, {TESSEL_SFPU_RECIP, kInf, 0.0f},
      {TESSEL_SFPU_RECIP, -kInf, -0.0f}, {TESSEL_SFPU_SIGMOID, kInf, 1.0f}, {TESSEL_SFPU_SIGMOID, -kInf, 0.0f},
      {TESSEL_SFPU_TANH, kInf, 1.0f},    {TESSEL_SFPU_TANH, -kInf, -1.0f},  {TESSEL_SFPU_TANH, -0.0f, -0.0f},
      {TESSEL_SFPU_GELU, -kInf, -0.0f},  {TESSEL_SFPU_GELU, kInf, kInf},    {TESSEL_SFPU_GELU, 0.0f, 0.0f},
      {TESSEL_SFPU_SILU, -kInf, -0.0f},  {TESSEL_SFPU_SILU, kInf, kInf},    {TESSEL_SFPU_RELU, -0.0f, -0.0f},
      {TESSEL_SFPU_SIGN, -0.0f, -0.0f},  {TESSEL_SFPU_SIGN, kInf, 1.0f},    {TESSEL_SFPU_SIGN, -1e-30f, -1.0f},
      {TESSEL_SFPU_SIN, kInf, kNaN},     {TESSEL_SFPU_COS, -kInf, kNaN},
  };
  const uint32_t nan_ops[] = {TESSEL_SFPU_EXP,      TESSEL_SFPU_EXP2,      TESSEL_SFPU_LOG,  TESSEL_SFPU_SQRT,
                              TESSEL_SFPU_RSQRT,    TESSEL_SFPU_RECIP,     TESSEL_SFPU_RELU, TESSEL_SFPU_GELU,
                              TESSEL_SFPU_SIGMOID,  TESSEL_SFPU_TANH,      TESSEL_SFPU_SILU, TESSEL_SFPU_ABS,
                              TESSEL_SFPU_NEG,      TESSEL_SFPU_SQUARE,    TESSEL_SFPU_SIN,  TESSEL_SFPU_COS,
                              TESSEL_SFPU_SIGN,     TESSEL_SFPU_FLOOR,     TESSEL_SFPU_CEIL, TESSEL_SFPU_RELU_MAX,
                              TESSEL_SFPU_RELU_MIN, TESSEL_SFPU_LEAKY_RELU};
  for (bool approx : {false, true}) {
    for (const Row& r : rows) {
      const float got = one(r.op, r.x, {0, 0, approx});
      if (std::isnan(r.want))
        EXPECT_TRUE(std::isnan(got)) << sim::sfpu_name(r.op) << "(" << r.x << ") approx " << approx << " = " << got;
      else
        EXPECT_EQ(to_bits(got), to_bits(r.want))
            << sim::sfpu_name(r.op) << "(" << r.x << ") approx " << approx << " = " << got;
    }
    for (uint32_t op : nan_ops)
      EXPECT_TRUE(std::isnan(one(op, kNaN, {to_bits(1.0f), 0, approx}))) << sim::sfpu_name(op) << " approx " << approx;
  }
}

// ---------------------------------------------------------------------------
// typecast: DST values stay floats; integer outputs are rounded and saturated.

TEST(SfpuTypecast, RoundsAndSaturates) {
  auto cast = [](DataFormat in, DataFormat out, float x) {
    return one(TESSEL_SFPU_TYPECAST, x, {uint32_t(in), uint32_t(out), false});
  };
  const DataFormat f32 = DataFormat::Float32, bf16 = DataFormat::Float16_b;
  EXPECT_EQ(cast(f32, DataFormat::Int32, 2.5f), 2.0f);
  EXPECT_EQ(cast(f32, DataFormat::Int32, 3.5f), 4.0f);
  EXPECT_EQ(cast(f32, DataFormat::Int32, -2.5f), -2.0f);
  EXPECT_EQ(cast(f32, DataFormat::Int32, -2.6f), -3.0f);
  EXPECT_EQ(to_bits(cast(f32, DataFormat::Int32, -0.4f)), to_bits(-0.0f));
  EXPECT_EQ(cast(f32, DataFormat::Int32, 1e10f), 0x1p31f);
  EXPECT_EQ(cast(f32, DataFormat::Int32, -1e10f), -0x1p31f);
  EXPECT_EQ(cast(f32, DataFormat::Int32, -kInf), -0x1p31f);
  EXPECT_EQ(cast(f32, DataFormat::Int32, kNaN), 0.0f);
  EXPECT_EQ(cast(f32, DataFormat::Int32, 16777217.0f), 16777216.0f); // already an integer (the float nearest)
  EXPECT_EQ(cast(bf16, DataFormat::UInt32, -3.0f), 0.0f);
  EXPECT_EQ(cast(bf16, DataFormat::UInt32, 1e20f), 0x1p32f);
  EXPECT_EQ(cast(bf16, DataFormat::UInt16, 70000.0f), 65535.0f);
  EXPECT_EQ(cast(bf16, DataFormat::UInt16, 65534.5f), 65534.0f);
  EXPECT_EQ(cast(bf16, DataFormat::UInt8, 300.0f), 255.0f);
  EXPECT_EQ(cast(bf16, DataFormat::UInt8, 254.5f), 254.0f);
  EXPECT_EQ(cast(bf16, DataFormat::UInt8, 253.5f), 254.0f);
  EXPECT_EQ(cast(f32, DataFormat::Float16_b, 1.0f + 0x1p-8f), 1.0f); // tie to even
  EXPECT_EQ(cast(f32, DataFormat::Float16_b, 1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);
  EXPECT_EQ(cast(f32, DataFormat::Float32, 1.0f + 0x1p-20f), 1.0f + 0x1p-20f);
  EXPECT_EQ(cast(f32, DataFormat::Bfp8_b, 1.0f + 0x1p-20f), 1.0f + 0x1p-20f); // the packer converts
  EXPECT_EQ(cast(DataFormat::Int32, f32, 123456789.0f), 123456789.0f);        // already a float
}

// ---------------------------------------------------------------------------
// Binary ops.

TEST(SfpuBinary, IeeeArithmeticAndNaNRules) {
  const std::vector<float> a = uniform(-100.0f, 100.0f, kTileHW, 1), b = uniform(-100.0f, 100.0f, kTileHW, 2);
  struct Row {
    uint32_t op;
    std::function<float(float, float)> want;
  };
  const Row rows[] = {
      {TESSEL_SFPU_BINARY_ADD, [](float x, float y) { return x + y; }},
      {TESSEL_SFPU_BINARY_SUB, [](float x, float y) { return x - y; }},
      {TESSEL_SFPU_BINARY_MUL, [](float x, float y) { return x * y; }},
      {TESSEL_SFPU_BINARY_DIV, [](float x, float y) { return x / y; }},
      {TESSEL_SFPU_BINARY_MAX, [](float x, float y) { return std::fmax(x, y); }},
      {TESSEL_SFPU_BINARY_MIN, [](float x, float y) { return std::fmin(x, y); }},
  };
  for (const Row& row : rows) {
    std::vector<float> out(kTileHW);
    sim::sfpu_binary(row.op, a.data(), b.data(), out.data());
    for (uint32_t i = 0; i < kTileHW; ++i)
      ASSERT_EQ(out[i], row.want(a[i], b[i])) << sim::sfpu_binary_name(row.op) << " at " << i;
    // In place, into either operand.
    std::vector<float> x = a, y = b;
    sim::sfpu_binary(row.op, x.data(), y.data(), x.data());
    EXPECT_EQ(x, out) << sim::sfpu_binary_name(row.op);
    x = a;
    sim::sfpu_binary(row.op, x.data(), y.data(), y.data());
    EXPECT_EQ(y, out) << sim::sfpu_binary_name(row.op);
  }
  // Specials: x/0, 0/0, and max/min ignoring a NaN.
  std::vector<float> x(kTileHW, 1.0f), y(kTileHW, 0.0f), out(kTileHW);
  x[1] = 0.0f, x[2] = -1.0f, x[3] = kNaN, y[3] = 5.0f, x[4] = 5.0f, y[4] = kNaN;
  sim::sfpu_binary(TESSEL_SFPU_BINARY_DIV, x.data(), y.data(), out.data());
  EXPECT_EQ(out[0], kInf);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], -kInf);
  for (uint32_t op : {TESSEL_SFPU_BINARY_MAX, TESSEL_SFPU_BINARY_MIN}) {
    sim::sfpu_binary(op, x.data(), y.data(), out.data());
    EXPECT_EQ(out[3], 5.0f) << sim::sfpu_binary_name(op);
    EXPECT_EQ(out[4], 5.0f) << sim::sfpu_binary_name(op);
  }
}

TEST(SfpuNames, MetaliumCallNames) {
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_EXP), "exp_tile");
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_NEG), "negative_tile");
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_TYPECAST), "typecast_tile");
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_OP_COUNT), "?");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_ADD), "add_binary_tile");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_MAX), "binary_max_tile");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_OP_COUNT), "?");
}

} // namespace
} // namespace tessel::test
