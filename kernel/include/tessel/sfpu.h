// SFPU kernel API: element-wise math in place on DST tiles (exp_tile,
// relu_tile, typecast_tile, add_binary_tile, ...) with TT-Metalium's names,
// template parameters and argument orders. Included through
// compute_kernel_api.h, compute_kernel_api/eltwise_unary/*.h,
// compute_kernel_api/eltwise_binary_sfpu.h, compute_kernel_api/binary_max_min.h
// and their api/compute/ twins, and the headers of the family files below.
//
// Inits. Every op needs an init, and the most recent SFPU init must be one
// that configures it (Metalium: call the init again after switching ops).
// An init sends the ops it configures, one compute_init call per op (enum
// tessel_sfpu_op, tessel_sfpu_binary_op or tessel_sfpu_ternary_op; any
// number of ops); inits that are one init in Metalium (relu_tile_init and
// relu_min_tile_init; rounding_op_tile_init for floor, ceil, trunc, frac and
// round; binop_with_scalar_tile_init) configure all of their ops.
//
// The ops by family: this file (exp, log, roots, relu, activations, sign,
// power, sin/cos, rounding, fill, typecast, binary arithmetic),
// tessel/sfpu_compare.h (comparisons, classification, logical_not, where),
// tessel/sfpu_functions.h (erf, inverse trigonometry, hyperbolic functions,
// log1p/expm1, more rounding and activations, arithmetic with a scalar).
//
// Approximation. Where Metalium has an approximation template argument
// (`approx`, `fast_and_approx`, `FAST_APPROX`) it is here with Metalium's
// default; ops without one use APPROX (the kernel's math_approx_mode), as
// Metalium's do. Which ops approximate and their bounds: docs/numerics.md.
//
// Only whole tiles are modelled: a vector mode other than VectorMode::RC, or
// exp_tile's input scaling with a scale other than 1, fails the call.
#ifndef TESSEL_SFPU_H
#define TESSEL_SFPU_H

#include "tessel/compute.h"

namespace ckernel {

// Which faces of a tile an SFPU op covers (Metalium's values). Unscoped, so
// it converts to int as Metalium's signatures need, but in its own namespace
// so that its enumerators (R, C, None, ...) do not become global names.
namespace tessel_vector_mode {
enum VectorMode : int { None = 0, R = 1, C = 2, RC = 4, RC_custom = 6, Invalid = 0xFF };
} // namespace tessel_vector_mode
using tessel_vector_mode::VectorMode;
// exp_tile's clamping of very negative inputs in approximate mode; results
// do not depend on it here (docs/numerics.md).
enum class InputClamping : uint8_t { None = 0, ClampToNegative = 1 };
// The binary add/sub rounding into a 16-bit DST; tessel always rounds to
// nearest even (docs/numerics.md).
enum class DstRoundingMode : uint8_t { Default = 0, NearestEven = 1 };

namespace tessel_sfpu {

// odst of a binary op when the call names only idst0 and idst1 (older
// Metalium): the result goes to idst0.
constexpr uint32_t kIntoFirst = ~0u;

// An init of `kind` (TESSEL_INIT_SFPU, _BINARY, _TERNARY) that configures
// the ops `first, more...`: one call per op (kernel_abi.h, TESSEL_SFPU_INIT_MORE).
template <uint32_t kind, uint32_t first, uint32_t... more>
inline void configure(const char* call, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->compute_init(k, kind, call, first, 0, 0, file, line);
  (k->api->compute_init(k, kind, call, more, TESSEL_SFPU_INIT_MORE, 0, file, line), ...);
}
template <uint32_t... ops>
inline void init(const char* call, const char* file, uint32_t line) {
  configure<TESSEL_INIT_SFPU, ops...>(call, file, line);
}
template <uint32_t... ops>
inline void binary_init(const char* call, const char* file, uint32_t line) {
  configure<TESSEL_INIT_SFPU_BINARY, ops...>(call, file, line);
}
template <uint32_t... ops>
inline void ternary_init(const char* call, const char* file, uint32_t line) {
  configure<TESSEL_INIT_SFPU_TERNARY, ops...>(call, file, line);
}
inline void vector_mode_error(const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k,
               "SFPU op with a vector mode other than VectorMode::RC: tessel models SFPU ops on whole tiles "
               "only (pass VectorMode::RC, the default)",
               file, line);
}
inline void unary(uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, bool approx, const char* file, uint32_t line,
                  int vector_mode = VectorMode::RC) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(vector_mode != VectorMode::RC, 0)) vector_mode_error(file, line);
  k->api->sfpu_unary(k, op, idst, p0, p1, approx ? 1u : 0u, file, line);
}
inline void binary(uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t odst, const char* file, uint32_t line,
                   int vector_mode = VectorMode::RC) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(vector_mode != VectorMode::RC, 0)) vector_mode_error(file, line);
  k->api->sfpu_binary(k, op, idst0, idst1, odst == kIntoFirst ? idst0 : odst, file, line);
}
inline void ternary(uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, const char* file,
                    uint32_t line, uint32_t p0 = 0) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sfpu_ternary(k, op, idst0, idst1, idst2, odst, p0, file, line);
}
inline uint32_t float_bits(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, 4);
  return bits;
}
constexpr bool is_typecast_format(uint32_t f) {
  return f == uint32_t(DataFormat::Float32) || f == uint32_t(DataFormat::Float16_b) ||
         f == uint32_t(DataFormat::Bfp8_b) || f == uint32_t(DataFormat::Bfp4_b) || f == uint32_t(DataFormat::Int32) ||
         f == uint32_t(DataFormat::UInt32) || f == uint32_t(DataFormat::UInt16) || f == uint32_t(DataFormat::UInt8);
}

} // namespace tessel_sfpu

// An op with no parameters whose init configures only itself: name_tile_init()
// and name_tile(idst), approximation from APPROX.
#define TESSEL_SFPU_SIMPLE_OP(name, OP)                                                                                \
  ALWI void name##_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<OP>(#name "_tile_init", TESSEL_SITE); }           \
  ALWI void name##_tile(uint32_t idst, TESSEL_SITE_PARAMS) { tessel_sfpu::unary(OP, idst, 0, 0, APPROX, TESSEL_SITE); }

// ---------------------------------------------------------------------------
// Exponential and logarithm (eltwise_unary/exp.h, compute_kernel_api.h)

template <bool approx = false, uint32_t scale = 0x3F800000,
          InputClamping input_clamping = InputClamping::ClampToNegative>
ALWI void exp_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_EXP>("exp_tile_init", TESSEL_SITE);
}
// With scale_en, Metalium computes exp(x * scale) (scale as bf16 bits); only a
// scale of 1 is modelled.
template <bool approx = false, bool scale_en = false, InputClamping input_clamping = InputClamping::ClampToNegative,
          int iterations = 8>
ALWI void exp_tile(uint32_t idst, int vector_mode = VectorMode::RC, uint16_t scale = 0x3F80, TESSEL_SITE_PARAMS) {
  static_assert(iterations == 8, "tessel: exp_tile covers the whole tile only (iterations = 8)");
  if (scale_en && scale != 0x3F80) {
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->fail(k, "exp_tile: input scaling (scale_en with a scale other than 1.0) is not modelled by tessel",
                 TESSEL_SITE);
  }
  tessel_sfpu::unary(TESSEL_SFPU_EXP, idst, 0, 0, approx, TESSEL_SITE, vector_mode);
}

TESSEL_SFPU_SIMPLE_OP(exp2, TESSEL_SFPU_EXP2)

template <bool fast_and_approx = false>
ALWI void log_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_LOG>("log_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = false>
ALWI void log_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LOG, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Roots and reciprocal (eltwise_unary/sqrt.h, rsqrt.h, recip.h)

ALWI void sqrt_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_SQRT>("sqrt_tile_init", TESSEL_SITE); }
// Approximate when FAST_APPROX or APPROX (Metalium passes both to its kernel).
template <bool FAST_APPROX = false>
ALWI void sqrt_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_SQRT, idst, 0, 0, FAST_APPROX || APPROX, TESSEL_SITE);
}

template <bool legacy_compat = false>
ALWI void rsqrt_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_RSQRT>("rsqrt_tile_init", TESSEL_SITE);
}
template <bool legacy_compat = false, bool FAST_APPROX = false, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void rsqrt_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RSQRT, idst, 0, 0, FAST_APPROX, TESSEL_SITE);
}
// Newer Metalium names the approximation with RsqrtMode: rsqrt_tile<RsqrtMode::Fast>(idst). (Its
// default argument is left off here so that rsqrt_tile(idst) stays the form above.)
enum class RsqrtMode { Default, Fast };
template <RsqrtMode mode, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void rsqrt_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RSQRT, idst, 0, 0, mode == RsqrtMode::Fast, TESSEL_SITE);
}

template <bool legacy_compat = false>
ALWI void recip_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_RECIP>("recip_tile_init", TESSEL_SITE);
}
template <bool legacy_compat = false>
ALWI void recip_tile(uint32_t idst, int vector_mode = VectorMode::RC, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RECIP, idst, 0, 0, APPROX, TESSEL_SITE, vector_mode);
}

// ---------------------------------------------------------------------------
// ReLU family (eltwise_unary/relu.h). Limits and slopes are float bits.

ALWI void relu_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_RELU, TESSEL_SFPU_RELU_MIN>("relu_tile_init", TESSEL_SITE);
}
ALWI void relu_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RELU, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void relu_min_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_RELU, TESSEL_SFPU_RELU_MIN>("relu_min_tile_init", TESSEL_SITE);
}
// max(x, lower_limit)
ALWI void relu_min_tile(uint32_t idst, uint32_t lower_limit, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RELU_MIN, idst, lower_limit, 0, APPROX, TESSEL_SITE);
}
ALWI void relu_max_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_RELU_MAX>("relu_max_tile_init", TESSEL_SITE);
}
// min(max(x, 0), upper_limit)
ALWI void relu_max_tile(uint32_t idst, uint32_t upper_limit, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RELU_MAX, idst, upper_limit, 0, APPROX, TESSEL_SITE);
}
ALWI void leaky_relu_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_LEAKY_RELU>("leaky_relu_tile_init", TESSEL_SITE);
}
// x < 0 ? x * slope : x
ALWI void leaky_relu_tile(uint32_t idst, uint32_t slope = 0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LEAKY_RELU, idst, slope, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Activations (eltwise_unary/gelu.h, compute_kernel_api.h)

// gelu: the erf form exactly, or the tanh approximation when fast_and_approx
// (Metalium's default).
template <bool fast_and_approx = true>
ALWI void gelu_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_GELU>("gelu_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = true>
ALWI void gelu_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_GELU, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}

template <bool fast_and_approx = false>
ALWI void sigmoid_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_SIGMOID>("sigmoid_tile_init", TESSEL_SITE);
}
template <int vec_mode = VectorMode::RC, bool fast_and_approx = false>
ALWI void sigmoid_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  static_assert(vec_mode == VectorMode::RC, "tessel: sigmoid_tile covers the whole tile only (VectorMode::RC)");
  tessel_sfpu::unary(TESSEL_SFPU_SIGMOID, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}

template <bool fast_and_approx = false>
ALWI void tanh_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_TANH>("tanh_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = false>
ALWI void tanh_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_TANH, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}

TESSEL_SFPU_SIMPLE_OP(silu, TESSEL_SFPU_SILU)

// ---------------------------------------------------------------------------
// Sign and magnitude (compute_kernel_api.h, eltwise_unary/negative.h)

TESSEL_SFPU_SIMPLE_OP(abs, TESSEL_SFPU_ABS)
TESSEL_SFPU_SIMPLE_OP(negative, TESSEL_SFPU_NEG)
TESSEL_SFPU_SIMPLE_OP(sign, TESSEL_SFPU_SIGN)
TESSEL_SFPU_SIMPLE_OP(square, TESSEL_SFPU_SQUARE)

// x^exponent for a non-negative integer exponent (newer Metalium passes the
// exponent of power_tile as float bits; tessel takes the integer, as
// power_iterative_tile does).
ALWI void power_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_POWER>("power_tile_init", TESSEL_SITE); }
ALWI void power_tile(uint32_t idst, uint32_t exponent, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_POWER, idst, exponent, 0, APPROX, TESSEL_SITE);
}
ALWI void power_iterative_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_POWER>("power_iterative_tile_init", TESSEL_SITE);
}
ALWI void power_iterative_tile(uint32_t idst, uint32_t exponent, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_POWER, idst, exponent, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Trigonometry (eltwise_unary/trigonometry.h)

TESSEL_SFPU_SIMPLE_OP(sin, TESSEL_SFPU_SIN)
TESSEL_SFPU_SIMPLE_OP(cos, TESSEL_SFPU_COS)

// ---------------------------------------------------------------------------
// Rounding (eltwise_unary/rounding.h; floor.h and ceil.h in older Metalium)

ALWI void rounding_op_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_FLOOR, TESSEL_SFPU_CEIL, TESSEL_SFPU_TRUNC, TESSEL_SFPU_FRAC, TESSEL_SFPU_ROUND>(
      "rounding_op_tile_init", TESSEL_SITE);
}
ALWI void floor_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_FLOOR>("floor_tile_init", TESSEL_SITE); }
ALWI void ceil_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_CEIL>("ceil_tile_init", TESSEL_SITE); }
ALWI void floor_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_FLOOR, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void ceil_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_CEIL, idst, 0, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Fill (eltwise_unary/fill.h)

ALWI void fill_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_FILL>("fill_tile_init", TESSEL_SITE); }
ALWI void fill_tile(uint32_t idst, float value, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_FILL, idst, tessel_sfpu::float_bits(value), 0, APPROX, TESSEL_SITE);
}
// value: the bits of a float.
ALWI void fill_tile_bitcast(uint32_t idst, uint32_t value, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_FILL, idst, value, 0, APPROX, TESSEL_SITE);
}
// An integer value for an Int32 / UInt32 / UInt16 tile. DST holds integers as
// floats, so the value is stored as the nearest float (exact up to 2^24).
template <DataFormat DATA_FORMAT>
ALWI void fill_tile_int(uint32_t idst, uint32_t value, TESSEL_SITE_PARAMS) {
  static_assert(DATA_FORMAT == DataFormat::Int32 || DATA_FORMAT == DataFormat::UInt32 ||
                    DATA_FORMAT == DataFormat::UInt16,
                "fill_tile_int supports Int32, UInt32 and UInt16");
  const float f = DATA_FORMAT == DataFormat::Int32 ? float(int32_t(value)) : float(value);
  tessel_sfpu::unary(TESSEL_SFPU_FILL, idst, tessel_sfpu::float_bits(f), 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Typecast (eltwise_unary/typecast.h). IN_DTYPE / OUT_DTYPE are data-format
// codes ((uint32_t)DataFormat::Float16_b, ...). DST holds floats: an integer
// output is rounded to nearest (ties to even) and saturated to its range, a
// Float16_b output is rounded to bfloat16; results in a 16-bit DST are then
// rounded to bfloat16 (use fp32_dest_acc_en for 32-bit outputs, as Metalium
// requires).

ALWI void typecast_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_TYPECAST>("typecast_tile_init", TESSEL_SITE);
}
// Current Metalium names the formats in the init too.
template <uint32_t IN_DTYPE, uint32_t OUT_DTYPE, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void typecast_tile_init(TESSEL_SITE_PARAMS) {
  static_assert(tessel_sfpu::is_typecast_format(IN_DTYPE) && tessel_sfpu::is_typecast_format(OUT_DTYPE),
                "tessel: typecast_tile converts between Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, UInt32, UInt16 "
                "and UInt8");
  typecast_tile_init(TESSEL_SITE);
}
template <uint32_t IN_DTYPE, uint32_t OUT_DTYPE, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void typecast_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  static_assert(tessel_sfpu::is_typecast_format(IN_DTYPE) && tessel_sfpu::is_typecast_format(OUT_DTYPE),
                "tessel: typecast_tile converts between Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, UInt32, UInt16 "
                "and UInt8");
  tessel_sfpu::unary(TESSEL_SFPU_TYPECAST, idst, IN_DTYPE, OUT_DTYPE, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Binary SFPU ops between DST tiles (eltwise_binary_sfpu.h, binary_max_min.h):
// DST[odst] = DST[idst0] op DST[idst1]. Without odst (older Metalium) the
// result replaces DST[idst0].

ALWI void add_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_ADD>("add_binary_tile_init", TESSEL_SITE);
}
ALWI void sub_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_SUB>("sub_binary_tile_init", TESSEL_SITE);
}
ALWI void mul_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_MUL>("mul_binary_tile_init", TESSEL_SITE);
}
ALWI void div_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_DIV, TESSEL_SFPU_BINARY_DIV_NO_NAN>("div_binary_tile_init", TESSEL_SITE);
}
ALWI void binary_max_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_MAX>("binary_max_tile_init", TESSEL_SITE);
}
ALWI void binary_min_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_MIN>("binary_min_tile_init", TESSEL_SITE);
}

// add_int_sfpu.h, mul_int_sfpu.h: the integer forms for Int32, UInt32 and
// UInt16 tiles (DST holds them as floats: exact up to 2^24).
#define TESSEL_INT_SFPU_FORMAT(name)                                                                                   \
  static_assert(data_format == DataFormat::Int32 || data_format == DataFormat::UInt32 ||                               \
                    data_format == DataFormat::UInt16,                                                                 \
                name " supports Int32, UInt32 and UInt16")
ALWI void add_int_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_ADD>("add_int_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void add_int_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  TESSEL_INT_SFPU_FORMAT("add_int_tile");
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_ADD, idst0, idst1, odst, TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void mul_int_tile_init(TESSEL_SITE_PARAMS) {
  TESSEL_INT_SFPU_FORMAT("mul_int_tile_init");
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_MUL>("mul_int_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void mul_int_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  TESSEL_INT_SFPU_FORMAT("mul_int_tile");
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_MUL, idst0, idst1, odst, TESSEL_SITE);
}
#undef TESSEL_INT_SFPU_FORMAT

template <DstRoundingMode dst_rounding_mode = DstRoundingMode::Default, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void add_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst = tessel_sfpu::kIntoFirst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_ADD, idst0, idst1, odst, TESSEL_SITE);
}
template <DstRoundingMode dst_rounding_mode = DstRoundingMode::Default, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void sub_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst = tessel_sfpu::kIntoFirst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_SUB, idst0, idst1, odst, TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void mul_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst = tessel_sfpu::kIntoFirst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_MUL, idst0, idst1, odst, TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void div_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst = tessel_sfpu::kIntoFirst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_DIV, idst0, idst1, odst, TESSEL_SITE);
}
ALWI void rsub_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_RSUB>("rsub_binary_tile_init", TESSEL_SITE);
}
ALWI void power_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_POW>("power_binary_tile_init", TESSEL_SITE);
}
// DST[idst1] - DST[idst0].
template <DstRoundingMode dst_rounding_mode = DstRoundingMode::Default, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void rsub_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_RSUB, idst0, idst1, odst, TESSEL_SITE);
}
// DST[idst0] ^ DST[idst1].
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void power_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_POW, idst0, idst1, odst, TESSEL_SITE);
}
// div_binary_tile with 0 where the divisor is 0 (div_binary_tile_init).
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void div_no_nan_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_DIV_NO_NAN, idst0, idst1, odst, TESSEL_SITE);
}
ALWI void binary_max_tile(uint32_t idst0, uint32_t idst1, uint32_t odst = tessel_sfpu::kIntoFirst,
                          int vector_mode = VectorMode::RC, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_MAX, idst0, idst1, odst, TESSEL_SITE, vector_mode);
}
ALWI void binary_min_tile(uint32_t idst0, uint32_t idst1, uint32_t odst = tessel_sfpu::kIntoFirst,
                          int vector_mode = VectorMode::RC, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_MIN, idst0, idst1, odst, TESSEL_SITE, vector_mode);
}

} // namespace ckernel

#include "tessel/sfpu_compare.h"
#include "tessel/sfpu_functions.h"

using namespace ckernel;

// Metalium's SFPU headers bring the SFPI language and the LLK face loops to
// the MATH thread's code (#ifdef TRISC_MATH), where custom SFPU kernels use
// them. Here only when the JIT saw the kernel name them
// (TESSEL_KERNEL_SFPI): parsing them costs a third of a cold compile.
#if defined(TRISC_MATH) && defined(TESSEL_KERNEL_SFPI)
#include "tessel/llk_sfpu.h"
#endif

#endif // TESSEL_SFPU_H
