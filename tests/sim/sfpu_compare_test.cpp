// SFPU comparisons and selections (src/sim/sfpu_compare.cpp) on float tiles:
// every comparison, classification and logical op against its IEEE
// definition over every bfloat16 value plus the specials (+-0, +-inf, NaN of
// both signs, denormals), the integer comparisons of two tiles, where with
// aliasing, and the names messages use. Through the device: op_table_test.cpp
// and sfpu_kernel_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "sfpu_reference.hpp"
#include "sim/sfpu.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::test {
namespace {

// Every bfloat16 value (including the infinities) and the specials.
std::vector<float> compare_inputs() {
  std::vector<float> v;
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const float x = from_bits(b << 16);
    if (!std::isnan(x)) v.push_back(x);
  }
  for (float x : {0.0f, -0.0f, kInf, -kInf, kNaN, -kNaN, 0x1p-149f, -0x1p-149f, 2.5f, -2.5f, 2.5000002f, 2.4999998f})
    v.push_back(x);
  return v;
}

void expect_results(uint32_t op, uint32_t p0, const std::function<bool(float)>& holds) {
  const std::vector<float> xs = compare_inputs();
  const std::vector<float> ys = apply(op, xs, {p0, 0, false});
  for (size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ(to_bits(ys[i]), to_bits(holds(xs[i]) ? 1.0f : 0.0f))
        << sim::sfpu_name(op) << "(" << xs[i] << " = 0x" << std::hex << to_bits(xs[i]) << ") = " << ys[i];
}

TEST(SfpuCompare, WithZero) {
  expect_results(TESSEL_SFPU_EQZ, 0, [](float x) { return x == 0.0f; });
  expect_results(TESSEL_SFPU_NEZ, 0, [](float x) { return x != 0.0f; });
  expect_results(TESSEL_SFPU_LTZ, 0, [](float x) { return x < 0.0f; });
  expect_results(TESSEL_SFPU_GTZ, 0, [](float x) { return x > 0.0f; });
  expect_results(TESSEL_SFPU_LEZ, 0, [](float x) { return x <= 0.0f; });
  expect_results(TESSEL_SFPU_GEZ, 0, [](float x) { return x >= 0.0f; });
  // The edges by name: both zeros are zero, a NaN is only "not equal".
  EXPECT_EQ(one(TESSEL_SFPU_EQZ, -0.0f), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_LTZ, -0.0f), 0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_LEZ, -0.0f), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_NEZ, kNaN), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_GEZ, kNaN), 0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_GTZ, 0x1p-149f), 1.0f);
}

TEST(SfpuCompare, WithAScalar) {
  for (float s : {2.5f, -2.5f, 0.0f, -0.0f, kInf, -kInf, kNaN}) {
    const uint32_t p = to_bits(s);
    expect_results(TESSEL_SFPU_UNARY_EQ, p, [s](float x) { return x == s; });
    expect_results(TESSEL_SFPU_UNARY_NE, p, [s](float x) { return x != s; });
    expect_results(TESSEL_SFPU_UNARY_GT, p, [s](float x) { return x > s; });
    expect_results(TESSEL_SFPU_UNARY_LT, p, [s](float x) { return x < s; });
    expect_results(TESSEL_SFPU_UNARY_GE, p, [s](float x) { return x >= s; });
    expect_results(TESSEL_SFPU_UNARY_LE, p, [s](float x) { return x <= s; });
  }
  EXPECT_EQ(one(TESSEL_SFPU_UNARY_EQ, 2.5000002f, {to_bits(2.5f), 0, false}), 0.0f); // one ULP apart
  EXPECT_EQ(one(TESSEL_SFPU_UNARY_GE, 2.5f, {to_bits(2.5f), 0, false}), 1.0f);
}

TEST(SfpuCompare, Classification) {
  expect_results(TESSEL_SFPU_ISINF, 0, [](float x) { return std::isinf(x); });
  expect_results(TESSEL_SFPU_ISPOSINF, 0, [](float x) { return x == kInf; });
  expect_results(TESSEL_SFPU_ISNEGINF, 0, [](float x) { return x == -kInf; });
  expect_results(TESSEL_SFPU_ISNAN, 0, [](float x) { return std::isnan(x); });
  expect_results(TESSEL_SFPU_ISFINITE, 0, [](float x) { return std::isfinite(x); });
  expect_results(TESSEL_SFPU_SIGNBIT, 0, [](float x) { return std::signbit(x); });
  expect_results(TESSEL_SFPU_LOGICAL_NOT, 0, [](float x) { return x == 0.0f; });
  EXPECT_EQ(one(TESSEL_SFPU_SIGNBIT, -0.0f), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_SIGNBIT, -kNaN), 1.0f);
  EXPECT_EQ(one(TESSEL_SFPU_SIGNBIT, kNaN), 0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_ISFINITE, kNaN), 0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_LOGICAL_NOT, kNaN), 0.0f);
  EXPECT_EQ(one(TESSEL_SFPU_LOGICAL_NOT, -0.0f), 1.0f);
}

TEST(SfpuCompare, Heaviside) {
  const SfpuParams half{to_bits(0.5f), 0, false};
  const std::vector<float> xs = compare_inputs();
  const std::vector<float> ys = apply(TESSEL_SFPU_HEAVISIDE, xs, half);
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(ys[i]));
      continue;
    }
    ASSERT_EQ(ys[i], x < 0 ? 0.0f : x > 0 ? 1.0f : 0.5f) << "heaviside(" << x << ")";
  }
  EXPECT_EQ(one(TESSEL_SFPU_HEAVISIDE, -0.0f, half), 0.5f);
}

TEST(SfpuCompare, IntegerTilesOfTwo) {
  // Integer tiles hold integers as floats.
  std::vector<float> a(kTileHW), b(kTileHW), out(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    a[i] = float(int32_t(i % 61) - 30);
    b[i] = float(int32_t(i % 37) - 18);
  }
  a[0] = 16777216.0f, b[0] = 16777215.0f; // the largest exactly held
  struct Row {
    uint32_t op;
    std::function<bool(float, float)> holds;
  };
  const Row rows[] = {{TESSEL_SFPU_BINARY_LT_INT, [](float x, float y) { return x < y; }},
                      {TESSEL_SFPU_BINARY_GT_INT, [](float x, float y) { return x > y; }},
                      {TESSEL_SFPU_BINARY_LE_INT, [](float x, float y) { return x <= y; }},
                      {TESSEL_SFPU_BINARY_GE_INT, [](float x, float y) { return x >= y; }}};
  for (const Row& row : rows) {
    sim::sfpu_binary(row.op, a.data(), b.data(), out.data());
    for (uint32_t i = 0; i < kTileHW; ++i)
      ASSERT_EQ(out[i], row.holds(a[i], b[i]) ? 1.0f : 0.0f) << sim::sfpu_binary_name(row.op) << " at " << i;
    std::vector<float> x = a;
    sim::sfpu_binary(row.op, x.data(), b.data(), x.data()); // into an operand
    EXPECT_EQ(x, out) << sim::sfpu_binary_name(row.op);
  }
}

TEST(SfpuCompare, FloatTilesOfTwo) {
  // Every pair of a set with the specials, in both orders.
  const float set[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, kInf, -kInf, kNaN, 0x1p-149f, 1e30f, -3.0f, 2.5000002f};
  std::vector<float> a, b;
  for (float x : set)
    for (float y : set)
      a.push_back(x), b.push_back(y);
  a.resize(kTileHW, 0.0f), b.resize(kTileHW, 0.0f);
  struct Row {
    uint32_t op;
    std::function<bool(float, float)> holds;
  };
  const Row rows[] = {{TESSEL_SFPU_BINARY_EQ, [](float x, float y) { return x == y; }},
                      {TESSEL_SFPU_BINARY_NE, [](float x, float y) { return x != y; }},
                      {TESSEL_SFPU_BINARY_LT, [](float x, float y) { return x < y; }},
                      {TESSEL_SFPU_BINARY_GT, [](float x, float y) { return x > y; }},
                      {TESSEL_SFPU_BINARY_LE, [](float x, float y) { return x <= y; }},
                      {TESSEL_SFPU_BINARY_GE, [](float x, float y) { return x >= y; }}};
  std::vector<float> out(kTileHW);
  for (const Row& row : rows) {
    sim::sfpu_binary(row.op, a.data(), b.data(), out.data());
    for (uint32_t i = 0; i < kTileHW; ++i)
      ASSERT_EQ(out[i], row.holds(a[i], b[i]) ? 1.0f : 0.0f)
          << sim::sfpu_binary_name(row.op) << "(" << a[i] << ", " << b[i] << ")";
  }
}

TEST(SfpuWhere, PicksByCondition) {
  std::vector<float> c(kTileHW), t(kTileHW), f(kTileHW), out(kTileHW);
  const float conds[] = {0.0f, -0.0f, 1.0f, -1.0f, kNaN, 0x1p-149f, kInf, 2.0f};
  for (uint32_t i = 0; i < kTileHW; ++i) {
    c[i] = conds[i % 8];
    t[i] = float(i);
    f[i] = -float(i) - 0.5f;
  }
  sim::sfpu_ternary(TESSEL_SFPU_TERNARY_WHERE, c.data(), t.data(), f.data(), out.data());
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out[i], i % 8 < 2 ? f[i] : t[i]) << "where(" << c[i] << ") at " << i;
  // The output may be any operand.
  for (int into = 0; into < 3; ++into) {
    std::vector<float> x = c, y = t, z = f;
    std::vector<float>* target[] = {&x, &y, &z};
    sim::sfpu_ternary(TESSEL_SFPU_TERNARY_WHERE, x.data(), y.data(), z.data(), target[into]->data());
    EXPECT_EQ(*target[into], out) << "into operand " << into;
  }
}

TEST(SfpuNames, InitsThatConfigureEachOp) {
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_EQZ), "eqz_tile");
  EXPECT_STREQ(sim::sfpu_init_name(TESSEL_SFPU_EQZ), "eqz_tile_init");
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_UNARY_LE), "unary_le_tile");
  EXPECT_STREQ(sim::sfpu_init_name(TESSEL_SFPU_TRUNC), "rounding_op_tile_init");
  EXPECT_STREQ(sim::sfpu_name(TESSEL_SFPU_RSUB_SCALAR), "rsub_unary_tile");
  EXPECT_STREQ(sim::sfpu_init_name(TESSEL_SFPU_RSUB_SCALAR), "binop_with_scalar_tile_init");
  EXPECT_STREQ(sim::sfpu_init_name(TESSEL_SFPU_OP_COUNT), "?");
  EXPECT_STREQ(sim::sfpu_binary_name(TESSEL_SFPU_BINARY_GE_INT), "ge_int_tile");
  EXPECT_STREQ(sim::sfpu_binary_init_name(TESSEL_SFPU_BINARY_ADD), "add_binary_tile_init");
  EXPECT_STREQ(sim::sfpu_ternary_name(TESSEL_SFPU_TERNARY_WHERE), "where_tile");
  EXPECT_STREQ(sim::sfpu_ternary_init_name(TESSEL_SFPU_TERNARY_WHERE), "where_tile_init");
  EXPECT_STREQ(sim::sfpu_ternary_name(TESSEL_SFPU_TERNARY_OP_COUNT), "?");
  // Every op has both names.
  for (uint32_t op = 0; op < TESSEL_SFPU_OP_COUNT; ++op) {
    ASSERT_NE(sim::sfpu_name(op), nullptr) << op;
    ASSERT_NE(std::string(sim::sfpu_init_name(op)).find("_init"), std::string::npos) << op;
  }
}

} // namespace
} // namespace tessel::test
