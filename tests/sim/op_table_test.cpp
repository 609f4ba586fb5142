// The compute ops through the whole device path (reader -> CB -> unpack ->
// DST -> op -> pack -> CB -> writer), driven by one op table: each row is
// an op with its parameters, the input domain, a float64 reference and the
// error bound the result must meet. Every row runs over the CB formats it
// applies to (Float16_b, Float32, Bfp8_b) and every DST mode (half and full
// sync, fp32_dest_acc_en off and on), against the reference computed on the
// exact values DST holds. The rows are the SFPU ops and the FPU tile ops
// whose result element depends on one element of each operand (add_tiles,
// sub_tiles, mul_tiles, their row/column/scalar broadcasts and
// transpose_wh_tile; their operands pass through the 19-bit source
// registers, except a Float32 transpose into a 32-bit DST, which happens in
// DST). matmul and reduce, which sum, have their own tests
// (compute_fpu_test.cpp) and run in every format in the examples. The
// misuse cases at the end check the engine's messages for SFPU calls.
//
// Bounds. A row states its error in the unit it is specified in: `ulps` of
// the result's precision (bfloat16 when DST is 16-bit or the output CB is
// Float16_b, float otherwise), `rel` relative to the reference and `abs`
// absolute. On top of the row's bound every case allows what the data path
// adds, stated once here: half a float ULP when an exact float result is then
// rounded to bfloat16 (double rounding), 2^-126 for results that flush to
// zero, and one LSB of the 16-value group for a Bfp8_b output.
//
// One compute kernel ("sfpu_ops.cpp", a step interpreter, sfpu_ops_kernel.hpp)
// runs everything: it compiles once per DST mode and math_approx_mode (8
// builds, cached).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "sfpu_ops_kernel.hpp"
#include "tessel/kernel_abi.h"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

uint32_t kernel_line(const std::string& marker) {
  std::istringstream in(kernel_source());
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.size() >= tag.size() && line.compare(line.size() - tag.size(), tag.size(), tag) == 0) return n;
  ADD_FAILURE() << "no marker " << tag;
  return 0;
}
std::string site(const std::string& marker) {
  return std::string(kKernelName) + ":" + std::to_string(kernel_line(marker));
}
// "sfpu_ops.cpp:N: core (0,0) COMPUTE: " for the call marked `marker`.
std::string at(const std::string& marker) { return site(marker) + ": core (0,0) COMPUTE: "; }

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

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
constexpr Bound kExact{0.5 + 0x1p-20, 0, 0};
// Approximate ops: docs/numerics.md's relative bound plus the final rounding.
constexpr Bound approx_bound(double rel, double abs = 0) { return Bound{0.5, rel, abs}; }

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); }
double saturate(double x, double lo, double hi) { return std::min(std::max(std::nearbyint(x), lo), hi); }

// erfinv(x): the root of erf(y) = x, by bisection.
double erfinv_ref(double x) {
  double lo = -6, hi = 6;
  for (int i = 0; i < 100; ++i)
    (std::erf((lo + hi) / 2) < x ? lo : hi) = (lo + hi) / 2;
  return (lo + hi) / 2;
}

Row unary(const char* name, uint32_t op, Domain a, double (*ref)(double), Bound bound) {
  return Row{name, Kind::SfpuUnary, op, 0, false, a, {}, [ref](double x, double) { return ref(x); }, bound};
}
Row binary(const char* name, uint32_t op, Domain a, Domain b, double (*ref)(double, double)) {
  return Row{name, Kind::SfpuBinary, op, 0, false, a, b, ref, kExact};
}
// FPU element-wise op on CB 0 and CB 1 (HiFi4: the product of two source
// registers is exact in float).
Row fpu(const char* name, uint32_t op, double (*ref)(double, double), Row::Layout layout = Row::Layout::Same) {
  Row row{name, Kind::FpuBinary, op, 0, false, {-4, 4}, {-4, 4}, ref, kExact};
  row.layout = layout;
  return row;
}
// The broadcast form of FPU op `binop` (0 add, 1 sub, 2 mul) with BroadcastType `dim` (1 col, 2 row, 3 scalar).
Row fpu_bcast(const char* name, uint32_t binop, uint32_t dim, double (*ref)(double, double)) {
  return fpu(name, 10 + binop * 4 + dim, ref,
             dim == 1   ? Row::Layout::BcastColB
             : dim == 2 ? Row::Layout::BcastRowB
                        : Row::Layout::BcastScalarB);
}

// Tile-order index of (r, c), and the operand index a row's layout reads for output element i.
size_t tile_index(uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; }
size_t source_index(Row::Layout layout, bool operand_b, size_t i) {
  const uint32_t f = uint32_t(i / 256), r = (f / 2) * 16 + uint32_t(i % 256) / 16, c = (f % 2) * 16 + uint32_t(i % 16);
  switch (layout) {
  case Row::Layout::TransposeA: return operand_b ? i : tile_index(c, r);
  case Row::Layout::BcastRowB: return operand_b ? tile_index(0, c) : i;
  case Row::Layout::BcastColB: return operand_b ? tile_index(r, 0) : i;
  case Row::Layout::BcastScalarB: return operand_b ? 0 : i;
  default: return i;
  }
}
Row with_p0(Row row, uint32_t p0) {
  row.p0 = p0;
  return row;
}
Row with_p01(Row row, uint32_t p0, uint32_t p1) {
  row.p0 = p0;
  row.p1 = p1;
  return row;
}
Row approximate(Row row) {
  row.approx = true;
  return row;
}
Row only(Row row, uint32_t formats, DataFormat out) {
  row.formats = formats;
  row.out = out;
  return row;
}

const std::vector<Row>& op_table() {
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
bool approx_by_config(uint32_t op) {
  return op == TESSEL_SFPU_EXP2 || op == TESSEL_SFPU_RECIP || op == TESSEL_SFPU_SILU;
}

struct DstMode {
  bool full_sync, fp32;
  const char* text;
};
const DstMode kDstModes[] = {{false, false, "half-sync 16-bit"},
                             {false, true, "half-sync fp32"},
                             {true, false, "full-sync 16-bit"},
                             {true, true, "full-sync fp32"}};

struct FormatCase {
  FormatMask bit;
  DataFormat format;
};
const FormatCase kFormats[] = {
    {kF16b, DataFormat::Float16_b}, {kF32, DataFormat::Float32}, {kBfp8, DataFormat::Bfp8_b}};

// ---- Inputs, DST values and the bound ----

std::vector<float> inputs(const Domain& d, uint64_t seed) {
  std::vector<float> v(kTileHW);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = double(state >> 11) / double(1ull << 53);
    x = float(d.lo + (d.hi - d.lo) * u);
    if (d.signed_magnitude && (state >> 7 & 1)) x = -x;
  }
  return v;
}

// A Float32 value in a 19-bit source register: 10 explicit mantissa bits.
float src_register(float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & ~0x1fffu); }

// What a CB of `format` holds for v, as the FPU's source registers see it.
std::vector<float> through_src(const std::vector<float>& v, DataFormat format) {
  std::vector<float> q = unpack_tiles(pack_tiles(v, format), format);
  if (format == DataFormat::Float32)
    for (float& x : q)
      x = src_register(x);
  return q;
}

// What a CB of `format` holds for v, then what copy_tile leaves in DST: a
// 32-bit DST gets Float32 CBs unpacked straight to it (UnpackToDestFp32, set
// by build()); a 16-bit DST gets them through SrcA, then rounded.
std::vector<float> through_cb_and_dst(const std::vector<float>& v, DataFormat format, bool fp32) {
  std::vector<float> q = fp32 ? unpack_tiles(pack_tiles(v, format), format) : through_src(v, format);
  if (!fp32)
    for (float& x : q)
      x = bf16_to_float(float_to_bf16(x));
  return q;
}

// One ULP of precision `mantissa_bits` (explicit bits) at the magnitude of r.
double ulp(double r, int mantissa_bits) {
  int e = 0;
  std::frexp(r, &e);
  return std::ldexp(1.0, std::max(e - 1, -126) - mantissa_bits);
}

// The allowed |result - ref| for element i (see the file comment).
struct Allowance {
  const Row& row;
  bool bf16_result; // DST or the output CB rounds to bfloat16
  DataFormat out;
  const std::vector<double>& refs;

  double at(size_t i) const {
    const double r = refs[i];
    const int bits = bf16_result ? 7 : 23;
    double a = row.bound.ulps * ulp(r, bits) + row.bound.rel * std::fabs(r) + row.bound.abs + 0x1p-126;
    if (bf16_result) a += 0.5 * ulp(r, 23);
    if (out == DataFormat::Bfp8_b) {
      const size_t g = i / kBfpGroupSize * kBfpGroupSize;
      double max_ref = 0;
      for (size_t j = g; j < g + kBfpGroupSize; ++j)
        max_ref = std::max(max_ref, std::fabs(refs[j]));
      int e = 0;
      std::frexp(max_ref * (1 + 0x1p-7), &e); // the group's exponent, rounding up included
      a += std::ldexp(1.0, e - 1 - 6);
    }
    return a;
  }
};

class OpTableTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  struct Run {
    DataFormat in, out;
    DstMode mode;
    bool approx_mode = false;
    std::vector<const Row*> rows; // one tile each
    std::vector<float> a, b;      // inputs, rows.size() tiles each
  };

  // Runs the rows (one tile each) and returns the output tiles as floats.
  std::vector<float> run(const Run& r) {
    const uint32_t tiles = uint32_t(r.rows.size());
    std::vector<uint32_t> args = {0};
    auto step = [&](uint32_t code, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, uint32_t d = 0) {
      args.insert(args.end(), {code, a, b, c, d});
      ++args[0];
    };
    step(kInitSfpu, 0, 0, 16);
    for (const Row* row : r.rows)
      step(kRow,
           row->kind == Kind::SfpuBinary  ? kBinary + row->op
           : row->kind == Kind::FpuBinary ? kFpu + row->op
                                          : row->op,
           row->p0, row->approx, row->p1);
    Program program = build(r.in, r.out, r.mode, r.approx_mode, tiles, tiles, args);
    write_inputs(r.in, r.a, r.b, tiles);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(size_t(tiles) * tile_size(r.out));
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, r.out);
  }

  // Runs `args` (steps) expecting a KernelError; returns its message and checks the device still works.
  std::string fails(const std::vector<uint32_t>& steps, const DstMode& mode = kDstModes[0]) {
    std::vector<uint32_t> args = {uint32_t(steps.size() / 5)};
    args.insert(args.end(), steps.begin(), steps.end());
    Program program = build(DataFormat::Float16_b, DataFormat::Float16_b, mode, false, 1, 0, args);
    write_inputs(DataFormat::Float16_b, std::vector<float>(kTileHW, 1.0f), std::vector<float>(kTileHW, 2.0f), 1);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  Program build(DataFormat in, DataFormat out, const DstMode& mode, bool approx_mode, uint32_t in_tiles,
                uint32_t out_tiles, const std::vector<uint32_t>& compute_args) {
    const uint32_t in_tile = tile_size(in), out_tile = tile_size(out);
    in0_ = Buffer::create(device_, {uint64_t(in_tiles) * in_tile, in_tile, BufferType::DRAM});
    in1_ = Buffer::create(device_, {uint64_t(in_tiles) * in_tile, in_tile, BufferType::DRAM});
    out_ = Buffer::create(device_, {uint64_t(std::max(out_tiles, 1u)) * out_tile, out_tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    for (uint8_t cb : {uint8_t(0), uint8_t(1)})
      program.add_circular_buffer(core,
                                  CircularBufferConfig(in_tiles * in_tile, {{cb, in}}).set_page_size(cb, in_tile));
    program.add_circular_buffer(
        core,
        CircularBufferConfig(std::max(out_tiles, 1u) * out_tile, {{uint8_t(16), out}}).set_page_size(16, out_tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.fp32_dest_acc_en = mode.fp32;
    config.dst_full_sync_en = mode.full_sync;
    config.math_approx_mode = approx_mode;
    if (in == DataFormat::Float32 && mode.fp32)
      config.unpack_to_dest_mode = {UnpackToDestMode::UnpackToDestFp32, UnpackToDestMode::UnpackToDestFp32};
    KernelHandle compute = program.add_kernel_from_source(kernel_source(), kKernelName, core, config);
    program.set_runtime_args(reader, core, {0, in0_->address(), in_tiles, 1, in1_->address(), in_tiles});
    program.set_runtime_args(writer, core, {16, out_->address(), out_tiles});
    program.set_runtime_args(compute, core, compute_args);
    return program;
  }

  void write_inputs(DataFormat format, const std::vector<float>& a, const std::vector<float>& b, uint32_t tiles) {
    std::vector<float> va(a), vb(b);
    va.resize(size_t(tiles) * kTileHW, 0.0f);
    vb.resize(size_t(tiles) * kTileHW, 0.0f);
    const std::vector<uint8_t> pa = pack_tiles(va, format), pb = pack_tiles(vb, format);
    in0_->write(pa.data(), pa.size());
    in1_->write(pb.data(), pb.size());
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;
};

// Rows per program: each takes 5 of the kernel's runtime arguments (at most
// 341 per core).
constexpr size_t kMaxRowsPerRun = 64;

// Every row x CB format x DST mode. Rows sharing an output format and
// math_approx_mode run as one program (up to kMaxRowsPerRun), one tile per row.
TEST_F(OpTableTest, EveryOpWithinItsBound) {
  const std::vector<Row>& table = op_table();
  for (const FormatCase& fc : kFormats) {
    for (const DstMode& mode : kDstModes) {
      // Group rows into runs.
      std::vector<Run> runs;
      for (size_t ri = 0; ri < table.size(); ++ri) {
        const Row& row = table[ri];
        if (!(row.formats & fc.bit)) continue;
        const DataFormat out = row.out == DataFormat::Invalid ? fc.format : row.out;
        const bool approx_mode = row.approx && approx_by_config(row.op);
        Run* target = nullptr;
        for (Run& r : runs)
          if (r.out == out && r.approx_mode == approx_mode && r.rows.size() < kMaxRowsPerRun) target = &r;
        if (!target) {
          runs.push_back(Run{fc.format, out, mode, approx_mode, {}, {}, {}});
          target = &runs.back();
        }
        target->rows.push_back(&row);
        const std::vector<float> a = inputs(row.a, 2 * ri + 1);
        const std::vector<float> b = row.kind != Kind::SfpuUnary ? inputs(row.b, 2 * ri + 2) : a;
        target->a.insert(target->a.end(), a.begin(), a.end());
        target->b.insert(target->b.end(), b.begin(), b.end());
      }
      for (const Run& r : runs) {
        const std::vector<float> got = run(r);
        ASSERT_EQ(got.size(), r.rows.size() * kTileHW);
        // SFPU rows see what copy_tile leaves in DST; FPU rows their source-register operands,
        // except a transpose of a Float32 CB into a 32-bit DST, which unpacks to DST and
        // transposes there (all 32 bits).
        const std::vector<float> da = through_cb_and_dst(r.a, r.in, mode.fp32);
        const std::vector<float> db = through_cb_and_dst(r.b, r.in, mode.fp32);
        const std::vector<float> sa = through_src(r.a, r.in), sb = through_src(r.b, r.in);
        const bool in_dest = mode.fp32 && r.in == DataFormat::Float32;
        for (size_t t = 0; t < r.rows.size(); ++t) {
          const Row& row = *r.rows[t];
          const std::vector<float>& a_fpu = row.layout == Row::Layout::TransposeA && in_dest ? da : sa;
          std::vector<double> refs(kTileHW);
          for (uint32_t i = 0; i < kTileHW; ++i)
            refs[i] = row.kind == Kind::FpuBinary ? row.ref(a_fpu[t * kTileHW + source_index(row.layout, false, i)],
                                                            sb[t * kTileHW + source_index(row.layout, true, i)])
                                                  : row.ref(da[t * kTileHW + i], db[t * kTileHW + i]);
          const bool bf16_result = !mode.fp32 || r.out == DataFormat::Float16_b;
          const Allowance allow{row, bf16_result, r.out, refs};
          uint32_t bad = 0;
          std::string first;
          for (uint32_t i = 0; i < kTileHW; ++i) {
            const double y = got[t * kTileHW + i];
            const double err = std::fabs(y - refs[i]);
            if (!(err <= allow.at(i))) {
              if (!bad++) {
                std::ostringstream os;
                os.precision(9);
                os << "x = " << da[t * kTileHW + i] << ": got " << y << ", want " << refs[i] << " (error " << err
                   << ", allowed " << allow.at(i) << ")";
                first = os.str();
              }
            }
          }
          EXPECT_EQ(bad, 0u) << row.name << " with " << to_string(r.in) << " -> " << to_string(r.out) << " CBs, "
                             << mode.text << " DST: " << bad << " values outside the bound, first " << first;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Misuse

std::vector<uint32_t> steps(std::initializer_list<std::initializer_list<uint32_t>> list) {
  std::vector<uint32_t> v;
  for (const auto& s : list) {
    std::vector<uint32_t> w(s);
    w.resize(5, 0);
    v.insert(v.end(), w.begin(), w.end());
  }
  return v;
}

TEST_F(OpTableTest, SfpuOpWithoutItsInit) {
  // No SFPU init at all.
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kWaitCb, 0, 1}, {kAcquire}, {kCopy, 0, 0, 0}, {kOp, 0, 0}})),
            at("exp_tile") + "exp_tile(idst=0): the SFPU is not configured for exp_tile: call exp_tile_init() first "
                             "(no SFPU init was called in this kernel)");
  // The most recent SFPU init configured another op.
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16},
                         {kWaitCb, 0, 1},
                         {kAcquire},
                         {kCopy, 0, 0, 0},
                         {kOpInit, TESSEL_SFPU_RELU},
                         {kOp, 0, 0}})),
            at("exp_tile") +
                "exp_tile(idst=0): the SFPU is not configured for exp_tile: call exp_tile_init() first "
                "(the last SFPU init was relu_tile_init at " +
                site("relu_tile_init") + ")");
  // A unary init does not configure a binary op, nor a binary init a unary one.
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16},
                         {kAcquire},
                         {kOpInit, TESSEL_SFPU_RELU},
                         {kOp, kBinary + TESSEL_SFPU_BINARY_ADD, 0}})),
            at("add_binary_tile") +
                "add_binary_tile(idst0=0, idst1=1, odst=0): the SFPU is not configured for "
                "add_binary_tile: call add_binary_tile_init() first (the last SFPU init was "
                "relu_tile_init at " +
                site("relu_tile_init") + ")");
  EXPECT_EQ(
      fails(steps(
          {{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, kBinary + TESSEL_SFPU_BINARY_ADD}, {kOp, TESSEL_SFPU_EXP, 0}})),
      at("exp_tile") +
          "exp_tile(idst=0): the SFPU is not configured for exp_tile: call exp_tile_init() first "
          "(the last SFPU init was add_binary_tile_init at " +
          site("add_binary_tile_init") + ")");
}

TEST_F(OpTableTest, SfpuIndexBeyondCapacity) {
  for (const DstMode& mode : kDstModes) {
    const uint32_t cap = (mode.full_sync ? 16u : 8u) >> (mode.fp32 ? 1 : 0);
    const std::string text = std::string(mode.full_sync ? "full-sync" : "half-sync") +
                             (mode.fp32 ? " with fp32_dest_acc_en" : " with 16-bit DST");
    const std::string range = " is out of range: one acquire holds " + std::to_string(cap) + " tiles in " + text +
                              " mode (indices 0.." + std::to_string(cap - 1) +
                              "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)";
    const std::string c = std::to_string(cap);
    EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, TESSEL_SFPU_EXP}, {kOp, TESSEL_SFPU_EXP, cap}}),
                    mode),
              at("exp_tile") + "exp_tile(idst=" + c + "): DST index " + c + range)
        << mode.text;
    // A binary op checks its second operand (DST[idst + 1] here) too.
    const std::string last = std::to_string(cap - 1);
    EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16},
                           {kAcquire},
                           {kOpInit, kBinary + TESSEL_SFPU_BINARY_ADD},
                           {kOp, kBinary + TESSEL_SFPU_BINARY_ADD, cap - 1}}),
                    mode),
              at("add_binary_tile") + "add_binary_tile(idst0=" + last + ", idst1=" + c + ", odst=" + last +
                  "): DST index " + c + range)
        << mode.text;
  }
}

TEST_F(OpTableTest, SfpuWithoutDstOrWholeTile) {
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kOpInit, TESSEL_SFPU_EXP}, {kOp, TESSEL_SFPU_EXP, 0}})),
            at("exp_tile") + "exp_tile(idst=0): MATH does not hold DST: call tile_regs_acquire (or acquire_dst) "
                             "before writing DST");
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, TESSEL_SFPU_EXP}, {kExpVectorMode, 1}})),
            at("exp_vector_mode") + "SFPU op with a vector mode other than VectorMode::RC: tessel models SFPU ops "
                                    "on whole tiles only (pass VectorMode::RC, the default)");
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, TESSEL_SFPU_EXP}, {kExpScaled, 0x4000}})),
            at("exp_scaled") + "exp_tile: input scaling (scale_en with a scale other than 1.0) is not modelled by "
                               "tessel");
}

} // namespace
} // namespace tessel::test
