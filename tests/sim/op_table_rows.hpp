// The op table of op_table_test.cpp: each row an op with its parameters,
// the input domain, a float64 reference and the error bound the result must
// meet (the bounds' units and what the data path adds: op_table_test.cpp).
// Rows name their op by the kernel_abi.h enums; sfpu_ops_kernel.hpp maps
// them to the Metalium calls.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "tessel/data_format.hpp"
#include "tessel/kernel_abi.h"
#include "tessel/tile.hpp"

namespace tessel::test::op_rows {

inline uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// ---------------------------------------------------------------------------
// The op table

enum class Kind { SfpuUnary, SfpuBinary, FpuBinary };

// Input values: uniform in [lo, hi], or with `signed_magnitude` |x| uniform
// in [lo, hi] with a random sign (keeps divisors away from zero). Domains
// that exclude 0 span less than 2^6, so that no Bfp8_b input of a group
// rounds to 0 (log(0) = -inf would make the whole output group infinite).
struct Domain {
  double lo, hi;
  bool signed_magnitude = false;
};

struct Bound {
  double ulps = 0; // of the result's precision
  double rel = 0;
  double abs = 0;
};

enum FormatMask : uint32_t { kF16b = 1, kF32 = 2, kBfp8 = 4, kAllFormats = 7 };

// One op: what to run, on which inputs, its float64 reference and bound.
// Built with unary() / binary() and the modifiers below them.
struct Row {
  const char* name;
  Kind kind;
  uint32_t op;
  uint32_t p0;
  bool approx;
  Domain a, b; // b: second operand of binary ops
  std::function<double(double, double)> ref;
  Bound bound;
  uint32_t formats = kAllFormats;
  DataFormat out = DataFormat::Invalid; // output CB format; Invalid: the input's
  // FPU rows: where element i's operands come from (positions in the 32x32 tile).
  enum class Layout : uint8_t { Same, TransposeA, BcastRowB, BcastColB, BcastScalarB } layout = Layout::Same;
  uint32_t p1 = 0; // the second parameter (hardtanh, threshold)
};

// Exact ops: correctly rounded float (0.5 ULP; the reference is float64).
inline constexpr Bound kExact{0.5 + 0x1p-20, 0, 0};
// Approximate ops: docs/numerics.md's relative bound plus the final rounding.
constexpr Bound approx_bound(double rel, double abs = 0) { return Bound{0.5, rel, abs}; }

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
inline double saturate(double x, double lo, double hi) { return std::min(std::max(std::nearbyint(x), lo), hi); }

// erfinv(x): the root of erf(y) = x, by bisection.
inline double erfinv_ref(double x) {
  double lo = -6, hi = 6;
  for (int i = 0; i < 100; ++i)
    (std::erf((lo + hi) / 2) < x ? lo : hi) = (lo + hi) / 2;
  return (lo + hi) / 2;
}

inline Row unary(const char* name, uint32_t op, Domain a, double (*ref)(double), Bound bound) {
  return Row{name, Kind::SfpuUnary, op, 0, false, a, {}, [ref](double x, double) { return ref(x); }, bound};
}
inline Row binary(const char* name, uint32_t op, Domain a, Domain b, double (*ref)(double, double)) {
  return Row{name, Kind::SfpuBinary, op, 0, false, a, b, ref, kExact};
}
// FPU element-wise op on CB 0 and CB 1 (HiFi4: the product of two source
// registers is exact in float).
inline Row fpu(const char* name, uint32_t op, double (*ref)(double, double), Row::Layout layout = Row::Layout::Same) {
  Row row{name, Kind::FpuBinary, op, 0, false, {-4, 4}, {-4, 4}, ref, kExact};
  row.layout = layout;
  return row;
}
// The broadcast form of FPU op `binop` (0 add, 1 sub, 2 mul) with BroadcastType `dim` (1 col, 2 row, 3 scalar).
inline Row fpu_bcast(const char* name, uint32_t binop, uint32_t dim, double (*ref)(double, double)) {
  return fpu(name, 10 + binop * 4 + dim, ref,
             dim == 1   ? Row::Layout::BcastColB
             : dim == 2 ? Row::Layout::BcastRowB
                        : Row::Layout::BcastScalarB);
}

// Tile-order index of (r, c), and the operand index a row's layout reads for output element i.
inline size_t tile_index(uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; }
inline size_t source_index(Row::Layout layout, bool operand_b, size_t i) {
  const uint32_t f = uint32_t(i / 256), r = (f / 2) * 16 + uint32_t(i % 256) / 16, c = (f % 2) * 16 + uint32_t(i % 16);
  switch (layout) {
  case Row::Layout::TransposeA: return operand_b ? i : tile_index(c, r);
  case Row::Layout::BcastRowB: return operand_b ? tile_index(0, c) : i;
  case Row::Layout::BcastColB: return operand_b ? tile_index(r, 0) : i;
  case Row::Layout::BcastScalarB: return operand_b ? 0 : i;
  default: return i;
  }
}
inline Row with_p0(Row row, uint32_t p0) {
  row.p0 = p0;
  return row;
}
inline Row with_p01(Row row, uint32_t p0, uint32_t p1) {
  row.p0 = p0;
  row.p1 = p1;
  return row;
}
inline Row approximate(Row row) {
  row.approx = true;
  return row;
}
inline Row only(Row row, uint32_t formats, DataFormat out) {
  row.formats = formats;
  row.out = out;
  return row;
}

inline const std::vector<Row>& op_table() {
  static const std::vector<Row> rows = {
      unary(
          "exp", TESSEL_SFPU_EXP, {-10, 10}, [](double x) { return std::exp(x); }, kExact),
      approximate(unary(
          "exp approx", TESSEL_SFPU_EXP, {-10, 10}, [](double x) { return std::exp(x); }, approx_bound(0x1p-13))),
      unary(
          "exp2", TESSEL_SFPU_EXP2, {-14, 14}, [](double x) { return std::exp2(x); }, kExact),
      approximate(unary(
          "exp2 approx", TESSEL_SFPU_EXP2, {-14, 14}, [](double x) { return std::exp2(x); }, approx_bound(0x1p-13))),
      unary(
          "log", TESSEL_SFPU_LOG, {0.25, 12}, [](double x) { return std::log(x); }, kExact),
      approximate(unary(
          "log approx", TESSEL_SFPU_LOG, {0.25, 12}, [](double x) { return std::log(x); }, approx_bound(0x1p-20))),
      unary(
          "sqrt", TESSEL_SFPU_SQRT, {0, 100}, [](double x) { return std::sqrt(x); }, kExact),
      approximate(unary(
          "sqrt approx", TESSEL_SFPU_SQRT, {0, 100}, [](double x) { return std::sqrt(x); }, approx_bound(0x1p-16))),
      unary(
          "rsqrt", TESSEL_SFPU_RSQRT, {0.25, 12}, [](double x) { return 1 / std::sqrt(x); }, kExact),
      approximate(unary(
          "rsqrt approx", TESSEL_SFPU_RSQRT, {0.25, 12}, [](double x) { return 1 / std::sqrt(x); },
          approx_bound(0x1p-16))),
      unary(
          "recip", TESSEL_SFPU_RECIP, {0.25, 8, true}, [](double x) { return 1 / x; }, kExact),
      approximate(unary(
          "recip approx", TESSEL_SFPU_RECIP, {0.25, 8, true}, [](double x) { return 1 / x; }, approx_bound(0x1p-16))),
      unary(
          "relu", TESSEL_SFPU_RELU, {-4, 4}, [](double x) { return std::max(x, 0.0); }, kExact),
      with_p0(unary(
                  "relu_max 2.5", TESSEL_SFPU_RELU_MAX, {-4, 4},
                  [](double x) { return std::min(std::max(x, 0.0), 2.5); }, kExact),
              bits(2.5f)),
      with_p0(unary(
                  "relu_min 0.5", TESSEL_SFPU_RELU_MIN, {-4, 4}, [](double x) { return std::max(x, 0.5); }, kExact),
              bits(0.5f)),
      with_p0(unary(
                  "leaky_relu 0.125", TESSEL_SFPU_LEAKY_RELU, {-4, 4}, [](double x) { return x < 0 ? x * 0.125 : x; },
                  kExact),
              bits(0.125f)),
      unary(
          "gelu", TESSEL_SFPU_GELU, {-6, 6}, [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }, kExact),
      approximate(
          unary("gelu approx (tanh form)", TESSEL_SFPU_GELU, {-6, 6}, gelu_tanh, approx_bound(0x1p-12, 0x1p-119))),
      unary("sigmoid", TESSEL_SFPU_SIGMOID, {-10, 10}, sigmoid, kExact),
      approximate(unary("sigmoid approx", TESSEL_SFPU_SIGMOID, {-10, 10}, sigmoid, approx_bound(0x1p-13, 0x1p-126))),
      unary(
          "tanh", TESSEL_SFPU_TANH, {-5, 5}, [](double x) { return std::tanh(x); }, kExact),
      approximate(unary(
          "tanh approx", TESSEL_SFPU_TANH, {-5, 5}, [](double x) { return std::tanh(x); }, approx_bound(0x1p-13))),
      unary(
          "silu", TESSEL_SFPU_SILU, {-8, 8}, [](double x) { return x * sigmoid(x); }, kExact),
      approximate(unary(
          "silu approx", TESSEL_SFPU_SILU, {-8, 8}, [](double x) { return x * sigmoid(x); },
          approx_bound(0x1p-13, 0x1p-119))),
      unary(
          "abs", TESSEL_SFPU_ABS, {-4, 4}, [](double x) { return std::fabs(x); }, kExact),
      unary(
          "negative", TESSEL_SFPU_NEG, {-4, 4}, [](double x) { return -x; }, kExact),
      unary(
          "square", TESSEL_SFPU_SQUARE, {-4, 4}, [](double x) { return x * x; }, kExact),
      with_p0(unary(
                  "power 3", TESSEL_SFPU_POWER, {-3, 3}, [](double x) { return x * x * x; }, kExact),
              3),
      unary(
          "sin", TESSEL_SFPU_SIN, {-6.3, 6.3}, [](double x) { return std::sin(x); }, kExact),
      unary(
          "cos", TESSEL_SFPU_COS, {-6.3, 6.3}, [](double x) { return std::cos(x); }, kExact),
      unary(
          "sign", TESSEL_SFPU_SIGN, {-4, 4}, [](double x) { return x > 0   ? 1.0
                                                                   : x < 0 ? -1.0
                                                                           : 0.0; }, kExact),
      unary(
          "floor", TESSEL_SFPU_FLOOR, {-8, 8}, [](double x) { return std::floor(x); }, kExact),
      unary(
          "ceil", TESSEL_SFPU_CEIL, {-8, 8}, [](double x) { return std::ceil(x); }, kExact),
      with_p0(unary(
                  "fill -1.75", TESSEL_SFPU_FILL, {-4, 4}, [](double) { return -1.75; }, kExact),
              bits(-1.75f)),
      // typecast: p0 picks the kernel's instantiation (0: Float16_b -> UInt16,
      // 1: Float32 -> Int32, 2: Float32 -> Float16_b); the output CB has the target format.
      only(unary(
               "typecast Float16_b->UInt16", TESSEL_SFPU_TYPECAST, {-10, 300},
               [](double x) { return saturate(x, 0, 65535); }, kExact),
           kF16b, DataFormat::UInt16),
      only(with_p0(unary(
                       "typecast Float32->Int32", TESSEL_SFPU_TYPECAST, {-1e5, 1e5},
                       [](double x) { return saturate(x, -2147483648.0, 2147483647.0); }, kExact),
                   1),
           kF32, DataFormat::Int32),
      only(with_p0(unary(
                       "typecast Float32->Float16_b", TESSEL_SFPU_TYPECAST, {-4, 4},
                       [](double x) { return double(bf16_to_float(float_to_bf16(float(x)))); }, kExact),
                   2),
           kF32, DataFormat::Float16_b),
      // Comparisons, classification and logical ops: 1 / 0.
      unary(
          "eqz", TESSEL_SFPU_EQZ, {-2, 2}, [](double x) { return double(x == 0); }, kExact),
      unary(
          "nez", TESSEL_SFPU_NEZ, {-2, 2}, [](double x) { return double(x != 0); }, kExact),
      unary(
          "ltz", TESSEL_SFPU_LTZ, {-2, 2}, [](double x) { return double(x < 0); }, kExact),
      unary(
          "gtz", TESSEL_SFPU_GTZ, {-2, 2}, [](double x) { return double(x > 0); }, kExact),
      unary(
          "lez", TESSEL_SFPU_LEZ, {-2, 2}, [](double x) { return double(x <= 0); }, kExact),
      unary(
          "gez", TESSEL_SFPU_GEZ, {-2, 2}, [](double x) { return double(x >= 0); }, kExact),
      with_p0(unary(
                  "unary_eq 0.5", TESSEL_SFPU_UNARY_EQ, {-2, 2}, [](double x) { return double(x == 0.5); }, kExact),
              bits(0.5f)),
      with_p0(unary(
                  "unary_ne 0.5", TESSEL_SFPU_UNARY_NE, {-2, 2}, [](double x) { return double(x != 0.5); }, kExact),
              bits(0.5f)),
      with_p0(unary(
                  "unary_gt 0.5", TESSEL_SFPU_UNARY_GT, {-2, 2}, [](double x) { return double(x > 0.5); }, kExact),
              bits(0.5f)),
      with_p0(unary(
                  "unary_lt 0.5", TESSEL_SFPU_UNARY_LT, {-2, 2}, [](double x) { return double(x < 0.5); }, kExact),
              bits(0.5f)),
      with_p0(unary(
                  "unary_ge 0.5", TESSEL_SFPU_UNARY_GE, {-2, 2}, [](double x) { return double(x >= 0.5); }, kExact),
              bits(0.5f)),
      with_p0(unary(
                  "unary_le 0.5", TESSEL_SFPU_UNARY_LE, {-2, 2}, [](double x) { return double(x <= 0.5); }, kExact),
              bits(0.5f)),
      unary(
          "isinf", TESSEL_SFPU_ISINF, {-2, 2}, [](double x) { return double(std::isinf(x)); }, kExact),
      unary(
          "isposinf", TESSEL_SFPU_ISPOSINF, {-2, 2}, [](double x) { return double(std::isinf(x) && x > 0); }, kExact),
      unary(
          "isneginf", TESSEL_SFPU_ISNEGINF, {-2, 2}, [](double x) { return double(std::isinf(x) && x < 0); }, kExact),
      unary(
          "isnan", TESSEL_SFPU_ISNAN, {-2, 2}, [](double x) { return double(std::isnan(x)); }, kExact),
      unary(
          "isfinite", TESSEL_SFPU_ISFINITE, {-2, 2}, [](double x) { return double(std::isfinite(x)); }, kExact),
      unary(
          "signbit", TESSEL_SFPU_SIGNBIT, {-2, 2}, [](double x) { return double(std::signbit(x)); }, kExact),
      unary(
          "logical_not", TESSEL_SFPU_LOGICAL_NOT, {-2, 2}, [](double x) { return double(x == 0); }, kExact),
      with_p0(unary(
                  "heaviside 0.5", TESSEL_SFPU_HEAVISIDE, {-2, 2},
                  [](double x) { return x < 0   ? 0.0
                                        : x > 0 ? 1.0
                                                : 0.5; }, kExact),
              bits(0.5f)),
      // Special and inverse functions (exact: correctly rounded float).
      unary(
          "erf", TESSEL_SFPU_ERF, {-3, 3}, [](double x) { return std::erf(x); }, kExact),
      unary(
          "erfc", TESSEL_SFPU_ERFC, {-2, 4}, [](double x) { return std::erfc(x); }, kExact),
      unary("erfinv", TESSEL_SFPU_ERFINV, {-0.99, 0.99}, erfinv_ref, kExact),
      unary(
          "asin", TESSEL_SFPU_ASIN, {-1, 1}, [](double x) { return std::asin(x); }, kExact),
      unary(
          "acos", TESSEL_SFPU_ACOS, {-1, 1}, [](double x) { return std::acos(x); }, kExact),
      unary(
          "atan", TESSEL_SFPU_ATAN, {-10, 10}, [](double x) { return std::atan(x); }, kExact),
      unary(
          "asinh", TESSEL_SFPU_ASINH, {-10, 10}, [](double x) { return std::asinh(x); }, kExact),
      unary(
          "acosh", TESSEL_SFPU_ACOSH, {1, 10}, [](double x) { return std::acosh(x); }, kExact),
      unary(
          "atanh", TESSEL_SFPU_ATANH, {-0.99, 0.99}, [](double x) { return std::atanh(x); }, kExact),
      unary(
          "sinh", TESSEL_SFPU_SINH, {-5, 5}, [](double x) { return std::sinh(x); }, kExact),
      unary(
          "cosh", TESSEL_SFPU_COSH, {-5, 5}, [](double x) { return std::cosh(x); }, kExact),
      unary(
          "tan", TESSEL_SFPU_TAN, {-1.5, 1.5}, [](double x) { return std::tan(x); }, kExact),
      unary(
          "log1p", TESSEL_SFPU_LOG1P, {-0.5, 10}, [](double x) { return std::log1p(x); }, kExact),
      unary(
          "expm1", TESSEL_SFPU_EXPM1, {-5, 5}, [](double x) { return std::expm1(x); }, kExact),
      with_p0(unary(
                  "log_with_base 2", TESSEL_SFPU_LOG_WITH_BASE, {0.25, 12},
                  [](double x) { return std::log(x) * double(1.44269504f); }, kExact),
              bits(1.44269504f)),
      // Rounding, activations, arithmetic with a scalar.
      unary(
          "trunc", TESSEL_SFPU_TRUNC, {-8, 8}, [](double x) { return std::trunc(x); }, kExact),
      unary(
          "frac", TESSEL_SFPU_FRAC, {-8, 8}, [](double x) { return x - std::trunc(x); }, kExact),
      unary(
          "round", TESSEL_SFPU_ROUND, {-8, 8}, [](double x) { return std::nearbyint(x); }, kExact),
      with_p0(unary(
                  "round 1 decimal", TESSEL_SFPU_ROUND, {-8, 8}, [](double x) { return std::nearbyint(x * 10) / 10; },
                  kExact),
              1),
      with_p0(unary(
                  "elu 1.0", TESSEL_SFPU_ELU, {-4, 4}, [](double x) { return x > 0 ? x : std::expm1(x); }, kExact),
              bits(1.0f)),
      with_p01(unary(
                   "hardtanh [-0.5, 2]", TESSEL_SFPU_HARDTANH, {-4, 4},
                   [](double x) { return std::min(std::max(x, -0.5), 2.0); }, kExact),
               bits(-0.5f), bits(2.0f)),
      with_p01(
          unary(
              "threshold 1 -> -7", TESSEL_SFPU_THRESHOLD, {-4, 4}, [](double x) { return x > 1 ? x : -7.0; }, kExact),
          bits(1.0f), bits(-7.0f)),
      with_p0(unary(
                  "add_unary 2.5", TESSEL_SFPU_ADD_SCALAR, {-4, 4}, [](double x) { return x + 2.5; }, kExact),
              bits(2.5f)),
      with_p0(unary(
                  "sub_unary 2.5", TESSEL_SFPU_SUB_SCALAR, {-4, 4}, [](double x) { return x - 2.5; }, kExact),
              bits(2.5f)),
      with_p0(unary(
                  "mul_unary 2.5", TESSEL_SFPU_MUL_SCALAR, {-4, 4}, [](double x) { return x * 2.5; }, kExact),
              bits(2.5f)),
      with_p0(unary(
                  "div_unary 2.5", TESSEL_SFPU_DIV_SCALAR, {-4, 4}, [](double x) { return x / 2.5; }, kExact),
              bits(2.5f)),
      with_p0(unary(
                  "rsub_unary 2.5", TESSEL_SFPU_RSUB_SCALAR, {-4, 4}, [](double x) { return 2.5 - x; }, kExact),
              bits(2.5f)),
      with_p01(unary(
                   "selu", TESSEL_SFPU_SELU, {-4, 4},
                   [](double x) { return double(1.05070102f) * (x > 0 ? x : double(1.67326319f) * std::expm1(x)); },
                   kExact),
               bits(1.05070102f), bits(1.67326319f)),
      with_p0(unary(
                  "prelu 0.25", TESSEL_SFPU_PRELU, {-4, 4}, [](double x) { return x < 0 ? x * 0.25 : x; }, kExact),
              bits(0.25f)),
      unary(
          "hardsigmoid", TESSEL_SFPU_HARDSIGMOID, {-4, 4},
          [](double x) { return std::min(std::max(x / 6 + 0.5, 0.0), 1.0); }, kExact),
      unary(
          "hardswish", TESSEL_SFPU_HARDSWISH, {-4, 4},
          [](double x) { return x * std::min(std::max(x / 6 + 0.5, 0.0), 1.0); }, kExact),
      unary(
          "softsign", TESSEL_SFPU_SOFTSIGN, {-4, 4}, [](double x) { return x / (1 + std::fabs(x)); }, kExact),
      with_p01(unary(
                   "clamp [-1.5, 0.75]", TESSEL_SFPU_CLAMP, {-4, 4},
                   [](double x) { return std::min(std::max(x, -1.5), 0.75); }, kExact),
               bits(-1.5f), bits(0.75f)),
      binary("eq_binary", TESSEL_SFPU_BINARY_EQ, {-2, 2}, {-2, 2}, [](double x, double y) { return double(x == y); }),
      binary("ne_binary", TESSEL_SFPU_BINARY_NE, {-2, 2}, {-2, 2}, [](double x, double y) { return double(x != y); }),
      binary("lt_binary", TESSEL_SFPU_BINARY_LT, {-2, 2}, {-2, 2}, [](double x, double y) { return double(x < y); }),
      binary("gt_binary", TESSEL_SFPU_BINARY_GT, {-2, 2}, {-2, 2}, [](double x, double y) { return double(x > y); }),
      binary("le_binary", TESSEL_SFPU_BINARY_LE, {-2, 2}, {-2, 2}, [](double x, double y) { return double(x <= y); }),
      binary("ge_binary", TESSEL_SFPU_BINARY_GE, {-2, 2}, {-2, 2}, [](double x, double y) { return double(x >= y); }),
      binary("rsub_binary", TESSEL_SFPU_BINARY_RSUB, {-4, 4}, {-4, 4}, [](double x, double y) { return y - x; }),
      binary("power_binary", TESSEL_SFPU_BINARY_POW, {0.25, 4}, {-3, 3},
             [](double x, double y) { return std::pow(x, y); }),
      binary("div_no_nan_binary", TESSEL_SFPU_BINARY_DIV_NO_NAN, {-4, 4}, {0.25, 4, true},
             [](double x, double y) { return y == 0 ? 0.0 : x / y; }),
      binary("add_binary", TESSEL_SFPU_BINARY_ADD, {-4, 4}, {-4, 4}, [](double x, double y) { return x + y; }),
      binary("sub_binary", TESSEL_SFPU_BINARY_SUB, {-4, 4}, {-4, 4}, [](double x, double y) { return x - y; }),
      binary("mul_binary", TESSEL_SFPU_BINARY_MUL, {-4, 4}, {-4, 4}, [](double x, double y) { return x * y; }),
      binary("div_binary", TESSEL_SFPU_BINARY_DIV, {-4, 4}, {0.25, 4, true}, [](double x, double y) { return x / y; }),
      binary("binary_max", TESSEL_SFPU_BINARY_MAX, {-4, 4}, {-4, 4}, [](double x, double y) { return std::max(x, y); }),
      binary("binary_min", TESSEL_SFPU_BINARY_MIN, {-4, 4}, {-4, 4}, [](double x, double y) { return std::min(x, y); }),
      fpu("add_tiles", TESSEL_BINARY_ADD, [](double x, double y) { return x + y; }),
      fpu("sub_tiles", TESSEL_BINARY_SUB, [](double x, double y) { return x - y; }),
      fpu("mul_tiles", TESSEL_BINARY_MUL, [](double x, double y) { return x * y; }),
      fpu_bcast("add_tiles_bcast_cols", 0, 1, [](double x, double y) { return x + y; }),
      fpu_bcast("add_tiles_bcast_rows", 0, 2, [](double x, double y) { return x + y; }),
      fpu_bcast("add_tiles_bcast_scalar", 0, 3, [](double x, double y) { return x + y; }),
      fpu_bcast("sub_tiles_bcast_cols", 1, 1, [](double x, double y) { return x - y; }),
      fpu_bcast("sub_tiles_bcast_rows", 1, 2, [](double x, double y) { return x - y; }),
      fpu_bcast("sub_tiles_bcast_scalar", 1, 3, [](double x, double y) { return x - y; }),
      fpu_bcast("mul_tiles_bcast_cols", 2, 1, [](double x, double y) { return x * y; }),
      fpu_bcast("mul_tiles_bcast_rows", 2, 2, [](double x, double y) { return x * y; }),
      fpu_bcast("mul_tiles_bcast_scalar", 2, 3, [](double x, double y) { return x * y; }),
      fpu(
          "transpose_wh_tile", 30, [](double x, double) { return x; }, Row::Layout::TransposeA),
  };
  return rows;
}

// Ops whose approximation follows math_approx_mode (APPROX) rather than a
// template argument: their approximate rows run with math_approx_mode set.
inline bool approx_by_config(uint32_t op) {
  return op == TESSEL_SFPU_EXP2 || op == TESSEL_SFPU_RECIP || op == TESSEL_SFPU_SILU;
}

} // namespace tessel::test::op_rows
