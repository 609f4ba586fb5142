// SFPU special functions and activations that TT-Metalium keeps in headers
// of their own, with its names, template parameters and argument orders:
// eltwise_unary/cbrt.h, hardmish.h, lgamma.h, softcap.h, activations.h
// (celu, softshrink, hardshrink, and the hardsigmoid and softsign of
// tessel/sfpu_functions.h), rsub.h, lerp.h, addcmul.h, addcdiv.h,
// snake_beta.h, rpow.h, tanh_derivative.h, gelu.h's gelu_derivative_tile
// and gelu_tanh_tile, logsigmoid.h (and the older
// compute_kernel_api/logsigmoid.h), and log1p_exp_tile of log1p.h. Only
// those headers include this one: a kernel that names none of them does not
// parse it. tessel/sfpu.h states the init rule.
//
// Float parameters are the bits of a float, as in Metalium. Every op here is
// computed exactly (correctly rounded float, or exact) whatever the
// approximation mode says; docs/numerics.md.
#ifndef TESSEL_SFPU_SPECIAL_H
#define TESSEL_SFPU_SPECIAL_H

#include "tessel/sfpu.h"

namespace ckernel {

// The one-tile forms of ops that also have a three-tile form are templates
// (in_place, never given): a call with literal zeros, lgamma_stirling_tile(0,
// 0, 0), could also read as the one-tile form with its call site passed
// explicitly (0 is a null const char*), and overload resolution prefers the
// non-template three-tile form.

namespace tessel_sfpu {

// An init that configures a unary op and a binary op of the same name
// (lgamma_stirling_tile and logsigmoid_tile have both forms).
template <uint32_t unary_op, uint32_t binary_op>
inline void unary_and_binary_init(const char* call, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->compute_init(k, TESSEL_INIT_SFPU, call, unary_op, 0, 0, file, line);
  k->api->compute_init(k, TESSEL_INIT_SFPU_BINARY, call, binary_op, TESSEL_SFPU_INIT_MORE, 0, file, line);
}

// softcap_tile_init(cap, 1 / cap) keeps its parameters for softcap_tile(idst),
// as Metalium's init loads them into SFPU registers. Per core (kernel
// statics are), and from the kernel's start until the next such init.
struct SoftcapParams {
  uint32_t cap_bits, inv_bits;
  bool set;
};
[[maybe_unused]] static SoftcapParams softcap_params = {0, 0, false};

} // namespace tessel_sfpu

// ---------------------------------------------------------------------------
// Cube root (cbrt.h), hardmish (hardmish.h): x clamp(x + 2.8, 0, 5) / 5.

TESSEL_SFPU_SIMPLE_OP(cbrt, TESSEL_SFPU_CBRT)
TESSEL_SFPU_SIMPLE_OP(hardmish, TESSEL_SFPU_HARDMISH)

// ---------------------------------------------------------------------------
// ln|gamma(x)| (lgamma.h). lgamma_tile computes it in one op. ttnn's lgamma
// kernels use three steps instead: lgamma_stirling_tile gives ln gamma(z)
// with z = x < 0.5 ? 1 - x : x (in place, or from DST[idst0] = x and
// DST[idst1] = ln z into DST[idst2]; ln z is not read, the result follows
// from x), and lgamma_adjusted_tile(stirling, log_sin, x, out) applies the
// reflection where x < 0.5: ln(pi) - log_sin - stirling, log_sin being
// ln|sin(pi x)| (-inf at the integers gives +inf there).

TESSEL_SFPU_SIMPLE_OP(lgamma, TESSEL_SFPU_LGAMMA)

ALWI void lgamma_stirling_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary_and_binary_init<TESSEL_SFPU_LGAMMA_STIRLING, TESSEL_SFPU_BINARY_LGAMMA_STIRLING>(
      "lgamma_stirling_tile_init", TESSEL_SITE);
}
template <int in_place = 1>
ALWI void lgamma_stirling_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LGAMMA_STIRLING, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void lgamma_stirling_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_LGAMMA_STIRLING, idst0, idst1, idst2, TESSEL_SITE);
}
// The Float32 spelling of the three-operand form.
ALWI void lgamma_stirling_float_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_LGAMMA_STIRLING>("lgamma_stirling_float_tile_init", TESSEL_SITE);
}
ALWI void lgamma_stirling_float_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_LGAMMA_STIRLING, idst0, idst1, idst2, TESSEL_SITE);
}

ALWI void lgamma_adjusted_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary_init<TESSEL_SFPU_TERNARY_LGAMMA_ADJUSTED>("lgamma_adjusted_tile_init", TESSEL_SITE);
}
ALWI void lgamma_adjusted_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t idst3, TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_LGAMMA_ADJUSTED, idst0, idst1, idst2, idst3, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// softcap(x) = cap tanh(x / cap) (softcap.h), x / cap computed as x times
// the reciprocal the kernel passes. Metalium has spelled it with the
// parameters on the init (softcap_tile_init(cap, 1 / cap); softcap_tile(idst))
// and on the op (softcap_tile_init(); softcap_tile(idst, cap, 1 / cap)).

ALWI void softcap_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::softcap_params.set = false;
  tessel_sfpu::init<TESSEL_SFPU_SOFTCAP>("softcap_tile_init", TESSEL_SITE);
}
ALWI void softcap_tile_init(uint32_t param0, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::softcap_params = {param0, param1, true};
  tessel_sfpu::init<TESSEL_SFPU_SOFTCAP>("softcap_tile_init", TESSEL_SITE);
}
ALWI void softcap_tile(uint32_t idst, uint32_t param0, uint32_t param1, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_SOFTCAP, idst, param0, param1, APPROX, TESSEL_SITE);
}
template <int in_place = 1>
ALWI void softcap_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  if (__builtin_expect(!tessel_sfpu::softcap_params.set, 0)) {
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->fail(k,
                 "softcap_tile(idst) without a cap: call softcap_tile_init(cap, 1 / cap) first (float bits), or "
                 "pass them to softcap_tile(idst, cap, 1 / cap)",
                 TESSEL_SITE);
  }
  tessel_sfpu::unary(TESSEL_SFPU_SOFTCAP, idst, tessel_sfpu::softcap_params.cap_bits,
                     tessel_sfpu::softcap_params.inv_bits, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Activations (activations.h, besides hardsigmoid and softsign).

// x > 0 ? x : alpha (e^(x / alpha) - 1), x / alpha as x * alpha_recip.
ALWI void celu_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_CELU>("celu_tile_init", TESSEL_SITE); }
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void celu_tile(uint32_t idst, uint32_t alpha, uint32_t alpha_recip, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_CELU, idst, alpha, alpha_recip, APPROX, TESSEL_SITE);
}
// x - l above l, x + l below -l, else 0 (param0 = l).
ALWI void softshrink_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_SOFTSHRINK>("softshrink_tile_init", TESSEL_SITE);
}
ALWI void softshrink_tile(uint32_t idst, uint32_t param0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_SOFTSHRINK, idst, param0, 0, APPROX, TESSEL_SITE);
}
// x where |x| > l, else 0 (param0 = l).
ALWI void hardshrink_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_HARDSHRINK>("hardshrink_tile_init", TESSEL_SITE);
}
ALWI void hardshrink_tile(uint32_t idst, uint32_t param0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_HARDSHRINK, idst, param0, 0, APPROX, TESSEL_SITE);
}
// hardsigmoid run from the PACK thread in Metalium; one compute context here.
ALWI void hardsigmoid_tile_init_pack(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_HARDSIGMOID>("hardsigmoid_tile_init_pack", TESSEL_SITE);
}
ALWI void hardsigmoid_tile_pack(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_HARDSIGMOID, idst, 0, 0, APPROX, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// scalar - x (rsub.h; the op of rsub_unary_tile). The int32 form takes an
// int32 scalar.

ALWI void rsub_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_RSUB_SCALAR>("rsub_tile_init", TESSEL_SITE);
}
ALWI void rsub_tile(uint32_t idst, uint32_t scalar, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RSUB_SCALAR, idst, scalar, 0, APPROX, TESSEL_SITE);
}
ALWI void rsub_unary_int32_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_RSUB_SCALAR>("rsub_unary_int32_tile_init", TESSEL_SITE);
}
ALWI void rsub_unary_int32_tile(uint32_t idst, uint32_t scalar, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RSUB_SCALAR, idst, tessel_sfpu::float_bits(float(int32_t(scalar))), 0, APPROX,
                     TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// ln(1 + e^x) (log1p_exp_tile: softplus with beta 1).

template <bool fast_and_approx = false>
ALWI void log1p_exp_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_LOG1P_EXP>("log1p_exp_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = false>
ALWI void log1p_exp_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LOG1P_EXP, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// logsigmoid(x) = ln(1 / (1 + e^-x)) (logsigmoid.h): in place on x, or from
// DST[idst_in0] = -x and DST[idst_in1] = e^-x into DST[idst_out] as ttnn's
// logsigmoid kernel calls it (-ln(1 + e^-x)); e^-x is not read.

ALWI void logsigmoid_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary_and_binary_init<TESSEL_SFPU_LOGSIGMOID, TESSEL_SFPU_BINARY_LOGSIGMOID>("logsigmoid_tile_init",
                                                                                            TESSEL_SITE);
}
template <int in_place = 1>
ALWI void logsigmoid_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_LOGSIGMOID, idst, 0, 0, APPROX, TESSEL_SITE);
}
ALWI void logsigmoid_tile(uint32_t idst_in0, uint32_t idst_in1, uint32_t idst_out, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_LOGSIGMOID, idst_in0, idst_in1, idst_out, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// base^x (rpow.h), base_val the bits of a float.

ALWI void rpow_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::init<TESSEL_SFPU_RPOW>("rpow_tile_init", TESSEL_SITE); }
ALWI void rpow_tile(uint32_t idst, uint32_t base_val, int vector_mode = VectorMode::RC, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_RPOW, idst, base_val, 0, APPROX, TESSEL_SITE, vector_mode);
}

// ---------------------------------------------------------------------------
// Derivatives and the tanh form of gelu (gelu.h, tanh_derivative.h):
// gelu'(x) = Phi(x) + x phi(x) of the erf form; gelu_tanh(x) = 0.5 x (1 +
// tanh(sqrt(2 / pi) (x + 0.044715 x^3))); tanh'(x) = sech(x)^2.

template <bool fast_and_approx = false>
ALWI void gelu_derivative_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_GELU_DERIVATIVE>("gelu_derivative_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = false, bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void gelu_derivative_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_GELU_DERIVATIVE, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}
ALWI void gelu_tanh_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_GELU_TANH>("gelu_tanh_tile_init", TESSEL_SITE);
}
ALWI void gelu_tanh_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_GELU_TANH, idst, 0, 0, APPROX, TESSEL_SITE);
}
template <bool fast_and_approx = false>
ALWI void tanh_derivative_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::init<TESSEL_SFPU_TANH_DERIVATIVE>("tanh_derivative_tile_init", TESSEL_SITE);
}
template <bool fast_and_approx = false>
ALWI void tanh_derivative_tile(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::unary(TESSEL_SFPU_TANH_DERIVATIVE, idst, 0, 0, fast_and_approx, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Linear interpolation (lerp.h): DST[odst] = input + weight (end - input),
// input = DST[idst0], end = DST[idst1], weight = DST[idst2].

ALWI void lerp_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary_init<TESSEL_SFPU_TERNARY_LERP>("lerp_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void lerp_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_LERP, idst0, idst1, idst2, odst, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// a + value b c (addcmul.h), a + value b / c (addcdiv.h), value the bits of a
// float; x + sin(alpha x)^2 / beta (snake_beta.h). DST[idst0] = a or x,
// DST[idst1] = b or alpha, DST[idst2] = c or beta.

ALWI void addcmul_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary_init<TESSEL_SFPU_TERNARY_ADDCMUL>("addcmul_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void addcmul_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, uint32_t value,
                       TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_ADDCMUL, idst0, idst1, idst2, odst, TESSEL_SITE, value);
}
ALWI void addcdiv_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary_init<TESSEL_SFPU_TERNARY_ADDCDIV>("addcdiv_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void addcdiv_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst, uint32_t value,
                       TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_ADDCDIV, idst0, idst1, idst2, odst, TESSEL_SITE, value);
}
ALWI void snake_beta_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary_init<TESSEL_SFPU_TERNARY_SNAKE_BETA>("snake_beta_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void snake_beta_tile(uint32_t idst_x, uint32_t idst_alpha, uint32_t idst_beta, uint32_t idst_out,
                          TESSEL_SITE_PARAMS) {
  tessel_sfpu::ternary(TESSEL_SFPU_TERNARY_SNAKE_BETA, idst_x, idst_alpha, idst_beta, idst_out, TESSEL_SITE);
}

} // namespace ckernel

#endif // TESSEL_SFPU_SPECIAL_H
