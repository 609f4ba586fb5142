// The Metalium names of the SFPU ops and of the inits that configure them,
// for messages and traces (enum order of kernel_abi.h).
#include "sim/sfpu.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

namespace {

struct OpNames {
  const char* call;
  const char* init;
};

const OpNames kUnary[TESSEL_SFPU_OP_COUNT] = {
    {"exp_tile", "exp_tile_init"},
    {"exp2_tile", "exp2_tile_init"},
    {"log_tile", "log_tile_init"},
    {"sqrt_tile", "sqrt_tile_init"},
    {"rsqrt_tile", "rsqrt_tile_init"},
    {"recip_tile", "recip_tile_init"},
    {"relu_tile", "relu_tile_init"},
    {"relu_max_tile", "relu_max_tile_init"},
    {"relu_min_tile", "relu_min_tile_init"},
    {"leaky_relu_tile", "leaky_relu_tile_init"},
    {"gelu_tile", "gelu_tile_init"},
    {"sigmoid_tile", "sigmoid_tile_init"},
    {"tanh_tile", "tanh_tile_init"},
    {"silu_tile", "silu_tile_init"},
    {"abs_tile", "abs_tile_init"},
    {"negative_tile", "negative_tile_init"},
    {"square_tile", "square_tile_init"},
    {"power_tile", "power_tile_init"},
    {"sin_tile", "sin_tile_init"},
    {"cos_tile", "cos_tile_init"},
    {"sign_tile", "sign_tile_init"},
    {"floor_tile", "floor_tile_init"},
    {"ceil_tile", "ceil_tile_init"},
    {"fill_tile", "fill_tile_init"},
    {"typecast_tile", "typecast_tile_init"},
    {"eqz_tile", "eqz_tile_init"},
    {"nez_tile", "nez_tile_init"},
    {"ltz_tile", "ltz_tile_init"},
    {"gtz_tile", "gtz_tile_init"},
    {"lez_tile", "lez_tile_init"},
    {"gez_tile", "gez_tile_init"},
    {"unary_eq_tile", "unary_eq_tile_init"},
    {"unary_ne_tile", "unary_ne_tile_init"},
    {"unary_gt_tile", "unary_gt_tile_init"},
    {"unary_lt_tile", "unary_lt_tile_init"},
    {"unary_ge_tile", "unary_ge_tile_init"},
    {"unary_le_tile", "unary_le_tile_init"},
    {"isinf_tile", "isinf_tile_init"},
    {"isposinf_tile", "isposinf_tile_init"},
    {"isneginf_tile", "isneginf_tile_init"},
    {"isnan_tile", "isnan_tile_init"},
    {"isfinite_tile", "isfinite_tile_init"},
    {"signbit_tile", "signbit_tile_init"},
    {"logical_not_tile", "logical_not_tile_init"},
    {"erf_tile", "erf_tile_init"},
    {"erfc_tile", "erfc_tile_init"},
    {"erfinv_tile", "erfinv_tile_init"},
    {"asin_tile", "asin_tile_init"},
    {"acos_tile", "acos_tile_init"},
    {"atan_tile", "atan_tile_init"},
    {"asinh_tile", "asinh_tile_init"},
    {"acosh_tile", "acosh_tile_init"},
    {"atanh_tile", "atanh_tile_init"},
    {"sinh_tile", "sinh_tile_init"},
    {"cosh_tile", "cosh_tile_init"},
    {"tan_tile", "tan_tile_init"},
    {"log1p_tile", "log1p_tile_init"},
    {"expm1_tile", "expm1_tile_init"},
    {"log_with_base_tile", "log_with_base_tile_init"},
    {"heaviside_tile", "heaviside_tile_init"},
    {"trunc_tile", "rounding_op_tile_init"},
    {"frac_tile", "rounding_op_tile_init"},
    {"round_tile", "rounding_op_tile_init"},
    {"elu_tile", "elu_tile_init"},
    {"hardtanh_tile", "hardtanh_tile_init"},
    {"threshold_tile", "threshold_tile_init"},
    {"add_unary_tile", "binop_with_scalar_tile_init"},
    {"sub_unary_tile", "binop_with_scalar_tile_init"},
    {"mul_unary_tile", "binop_with_scalar_tile_init"},
    {"div_unary_tile", "binop_with_scalar_tile_init"},
    {"rsub_unary_tile", "binop_with_scalar_tile_init"},
    {"selu_tile", "selu_tile_init"},
    {"prelu_tile", "prelu_tile_init"},
    {"hardsigmoid_tile", "hardsigmoid_tile_init"},
    {"hardswish_tile", "hardswish_tile_init"},
    {"softsign_tile", "softsign_tile_init"},
    {"clamp_tile", "clamp_tile_init"},
    {"cbrt_tile", "cbrt_tile_init"},
    {"hardmish_tile", "hardmish_tile_init"},
    {"lgamma_tile", "lgamma_tile_init"},
    {"lgamma_stirling_tile", "lgamma_stirling_tile_init"},
    {"softcap_tile", "softcap_tile_init"},
    {"log1p_exp_tile", "log1p_exp_tile_init"},
    {"celu_tile", "celu_tile_init"},
    {"softshrink_tile", "softshrink_tile_init"},
    {"hardshrink_tile", "hardshrink_tile_init"},
    {"logsigmoid_tile", "logsigmoid_tile_init"},
};

const OpNames kBinary[TESSEL_SFPU_BINARY_OP_COUNT] = {
    {"add_binary_tile", "add_binary_tile_init"},
    {"sub_binary_tile", "sub_binary_tile_init"},
    {"mul_binary_tile", "mul_binary_tile_init"},
    {"div_binary_tile", "div_binary_tile_init"},
    {"binary_max_tile", "binary_max_tile_init"},
    {"binary_min_tile", "binary_min_tile_init"},
    {"lt_int_tile", "lt_int_tile_init"},
    {"gt_int_tile", "gt_int_tile_init"},
    {"le_int_tile", "le_int_tile_init"},
    {"ge_int_tile", "ge_int_tile_init"},
    {"eq_binary_tile", "eq_binary_tile_init"},
    {"ne_binary_tile", "ne_binary_tile_init"},
    {"lt_binary_tile", "lt_binary_tile_init"},
    {"gt_binary_tile", "gt_binary_tile_init"},
    {"le_binary_tile", "le_binary_tile_init"},
    {"ge_binary_tile", "ge_binary_tile_init"},
    {"rsub_binary_tile", "rsub_binary_tile_init"},
    {"power_binary_tile", "power_binary_tile_init"},
    {"div_no_nan_binary_tile", "div_binary_tile_init"},
    {"bitwise_and_binary_tile", "binary_bitwise_tile_init"},
    {"bitwise_or_binary_tile", "binary_bitwise_tile_init"},
    {"bitwise_xor_binary_tile", "binary_bitwise_tile_init"},
    {"copy_dest_values", "copy_dest_values_init"},
    {"logsigmoid_tile", "logsigmoid_tile_init"},
    {"lgamma_stirling_tile", "lgamma_stirling_tile_init"},
};

const OpNames kTernary[TESSEL_SFPU_TERNARY_OP_COUNT] = {
    {"where_tile", "where_tile_init"},
    {"lerp_tile", "lerp_tile_init"},
    {"lgamma_adjusted_tile", "lgamma_adjusted_tile_init"},
};

} // namespace

const char* sfpu_name(uint32_t op) { return op < TESSEL_SFPU_OP_COUNT ? kUnary[op].call : "?"; }
const char* sfpu_binary_name(uint32_t op) { return op < TESSEL_SFPU_BINARY_OP_COUNT ? kBinary[op].call : "?"; }
const char* sfpu_ternary_name(uint32_t op) { return op < TESSEL_SFPU_TERNARY_OP_COUNT ? kTernary[op].call : "?"; }
const char* sfpu_init_name(uint32_t op) { return op < TESSEL_SFPU_OP_COUNT ? kUnary[op].init : "?"; }
const char* sfpu_binary_init_name(uint32_t op) { return op < TESSEL_SFPU_BINARY_OP_COUNT ? kBinary[op].init : "?"; }
const char* sfpu_ternary_init_name(uint32_t op) { return op < TESSEL_SFPU_TERNARY_OP_COUNT ? kTernary[op].init : "?"; }

} // namespace tessel::sim
