// The compute kernel of the op table tests (op_table_test.cpp): "sfpu_ops.cpp",
// a step interpreter over its runtime arguments that reaches every SFPU op
// and the FPU element-wise ops by their Metalium names (the api/compute/
// header spellings). Tests find the source line of a call by its marker
// comment ("// @exp_tile").
#pragma once

#include <cstdint>
#include <string>

namespace tessel::test {

inline constexpr const char* kKernelName = "sfpu_ops.cpp";

// Step codes of the kernel (5 words per step: code, a, b, c, d).
enum SfpuStep : uint32_t {
  kInitSfpu = 0,       // init_sfpu(a, c)
  kWaitCb = 1,         // cb_wait_front(a, b)
  kAcquire = 5,        // tile_regs_acquire
  kCopy = 10,          // copy_tile(a, b, c)
  kOpInit = 20,        // the init of op a (approx b)
  kOp = 21,            // op a on DST b, p0 c, approx d
  kExpVectorMode = 30, // exp_tile(0, vector mode a)
  kExpScaled = 31,     // exp_tile<false, true>(0, RC, scale a)
  kRow = 40,           // one tile through op a (p0 b, approx c, p1 d): see the kernel
};
// Ops in steps: tessel_sfpu_op, kBinary + tessel_sfpu_binary_op, or kFpu +
// tessel_binary_op (add_tiles, sub_tiles, mul_tiles).
inline constexpr uint32_t kBinary = 100;
inline constexpr uint32_t kFpu = 200;

inline const std::string& kernel_source() {
  static const std::string source = R"KERNEL(// sfpu_ops.cpp: step interpreter for the op table tests.
#include "api/compute/common.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/sfpu_split_includes.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/gelu.h"
#include "api/compute/eltwise_unary/recip.h"
#include "api/compute/eltwise_unary/relu.h"
#include "api/compute/eltwise_unary/rounding.h"
#include "api/compute/eltwise_unary/sqrt.h"
#include "api/compute/eltwise_unary/rsqrt.h"
#include "api/compute/eltwise_unary/trigonometry.h"
#include "api/compute/eltwise_unary/negative.h"
#include "api/compute/eltwise_unary/fill.h"
#include "api/compute/eltwise_unary/typecast.h"
#include "api/compute/eltwise_unary/comp.h"
#include "api/compute/eltwise_unary/isinf_isnan.h"
#include "api/compute/eltwise_unary/logical_not.h"
#include "api/compute/eltwise_unary/erf_erfc.h"
#include "api/compute/eltwise_unary/erfinv.h"
#include "api/compute/eltwise_unary/log1p.h"
#include "api/compute/eltwise_unary/elu.h"
#include "api/compute/eltwise_unary/hardtanh.h"
#include "api/compute/eltwise_unary/threshold.h"
#include "api/compute/eltwise_unary/binop_with_scalar.h"
#include "api/compute/eltwise_unary/selu.h"
#include "api/compute/eltwise_unary/prelu.h"
#include "api/compute/eltwise_unary/hardsigmoid.h"
#include "api/compute/eltwise_unary/hardswish.h"
#include "api/compute/eltwise_unary/softsign.h"
#include "api/compute/eltwise_unary/clamp.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/binary_max_min.h"
#include "api/compute/bcast.h"
#include "api/compute/transpose_wh.h"

namespace {

constexpr uint32_t F32 = (uint32_t)DataFormat::Float32, BF16 = (uint32_t)DataFormat::Float16_b;
constexpr uint32_t I32 = (uint32_t)DataFormat::Int32, U16 = (uint32_t)DataFormat::UInt16;

void op_init(uint32_t op, bool approx) {
  switch (op) {
  case 0: approx ? exp_tile_init<true>() : exp_tile_init<false>(); break;
  case 1: exp2_tile_init(); break;
  case 2: approx ? log_tile_init<true>() : log_tile_init<false>(); break;
  case 3: sqrt_tile_init(); break;
  case 4: rsqrt_tile_init(); break;
  case 5: recip_tile_init(); break;
  case 6: relu_tile_init(); break; // @relu_tile_init
  case 7: relu_max_tile_init(); break;
  case 8: relu_min_tile_init(); break;
  case 9: leaky_relu_tile_init(); break;
  case 10: approx ? gelu_tile_init<true>() : gelu_tile_init<false>(); break;
  case 11: approx ? sigmoid_tile_init<true>() : sigmoid_tile_init<false>(); break;
  case 12: approx ? tanh_tile_init<true>() : tanh_tile_init<false>(); break;
  case 13: silu_tile_init(); break;
  case 14: abs_tile_init(); break;
  case 15: negative_tile_init(); break;
  case 16: square_tile_init(); break;
  case 17: power_tile_init(); break;
  case 18: sin_tile_init(); break;
  case 19: cos_tile_init(); break;
  case 20: sign_tile_init(); break;
  case 21: floor_tile_init(); break;
  case 22: rounding_op_tile_init(); break;
  case 23: fill_tile_init(); break;
  case 24: typecast_tile_init<F32, BF16>(); break; // the formats are checked, not kept: typecast_tile names them
  case 25: eqz_tile_init(); break;
  case 26: nez_tile_init(); break;
  case 27: ltz_tile_init(); break;
  case 28: gtz_tile_init(); break;
  case 29: lez_tile_init(); break;
  case 30: gez_tile_init(); break;
  case 31: unary_eq_tile_init(); break;
  case 32: unary_ne_tile_init(); break;
  case 33: unary_gt_tile_init(); break;
  case 34: unary_lt_tile_init(); break;
  case 35: unary_ge_tile_init(); break;
  case 36: unary_le_tile_init(); break;
  case 37: isinf_tile_init(); break;
  case 38: isposinf_tile_init(); break;
  case 39: isneginf_tile_init(); break;
  case 40: isnan_tile_init(); break;
  case 41: isfinite_tile_init(); break;
  case 42: signbit_tile_init(); break;
  case 43: logical_not_tile_init(); break;
  case 44: erf_tile_init<false>(); break;
  case 45: erfc_tile_init(); break;
  case 46: erfinv_tile_init(); break;
  case 47: asin_tile_init(); break;
  case 48: acos_tile_init(); break;
  case 49: atan_tile_init(); break;
  case 50: asinh_tile_init(); break;
  case 51: acosh_tile_init(); break;
  case 52: atanh_tile_init(); break;
  case 53: sinh_tile_init(); break;
  case 54: cosh_tile_init(); break;
  case 55: tan_tile_init(); break;
  case 56: log1p_tile_init(); break;
  case 57: expm1_tile_init(); break;
  case 58: log_with_base_tile_init(); break;
  case 59: heaviside_tile_init(); break;
  case 60: case 61: case 62: rounding_op_tile_init(); break;
  case 63: elu_tile_init(); break;
  case 64: hardtanh_tile_init(); break;
  case 65: threshold_tile_init(); break;
  case 66: case 67: case 68: case 69: case 70: binop_with_scalar_tile_init(); break;
  case 71: selu_tile_init(); break;
  case 72: prelu_tile_init(); break;
  case 73: hardsigmoid_tile_init(); break;
  case 74: hardswish_tile_init(); break;
  case 75: softsign_tile_init(); break;
  case 76: clamp_tile_init(); break;
  case 100: add_binary_tile_init(); break; // @add_binary_tile_init
  case 101: sub_binary_tile_init(); break;
  case 102: mul_binary_tile_init(); break;
  case 103: div_binary_tile_init(); break;
  case 104: binary_max_tile_init(); break;
  case 105: binary_min_tile_init(); break;
  case 110: eq_binary_tile_init(); break;
  case 111: ne_binary_tile_init(); break;
  case 112: lt_binary_tile_init(); break;
  case 113: gt_binary_tile_init(); break;
  case 114: le_binary_tile_init(); break;
  case 115: ge_binary_tile_init(); break;
  case 116: rsub_binary_tile_init(); break;
  case 117: power_binary_tile_init(); break;
  case 118: div_binary_tile_init(); break;
  default: ASSERT(false);
  }
}

// DST 0 = CB 0 op broadcast(CB 1): op 0 add, 1 sub, 2 mul; dim a BroadcastType.
template <EltwiseBinaryType OP, BroadcastType DIM>
void bcast_op() {
  init_bcast<OP, DIM>(0, 1, 16);
  any_tiles_bcast<OP, DIM>(0, 1, 0, 0, 0);
}
template <EltwiseBinaryType OP>
void bcast_dim(uint32_t dim) {
  if (dim == 1) bcast_op<OP, BroadcastType::COL>();
  if (dim == 2) bcast_op<OP, BroadcastType::ROW>();
  if (dim == 3) bcast_op<OP, BroadcastType::SCALAR>();
}
void fpu_bcast(uint32_t op, uint32_t dim) {
  if (op == 0) bcast_dim<EltwiseBinaryType::ELWADD>(dim);
  if (op == 1) bcast_dim<EltwiseBinaryType::ELWSUB>(dim);
  if (op == 2) bcast_dim<EltwiseBinaryType::ELWMUL>(dim);
}

// Binary ops: DST[i] = DST[i] op DST[i + 1]. p1: the second parameter.
void op_run(uint32_t op, uint32_t i, uint32_t p0, bool approx, uint32_t p1 = 0) {
  switch (op) {
  case 0: approx ? exp_tile<true>(i) : exp_tile<false>(i); break; // @exp_tile
  case 1: exp2_tile(i); break;
  case 2: approx ? log_tile<true>(i) : log_tile<false>(i); break;
  case 3: approx ? sqrt_tile<true>(i) : sqrt_tile<false>(i); break;
  case 4: approx ? rsqrt_tile<false, true>(i) : rsqrt_tile<false, false>(i); break;
  case 5: recip_tile(i); break;
  case 6: relu_tile(i); break;
  case 7: relu_max_tile(i, p0); break;
  case 8: relu_min_tile(i, p0); break;
  case 9: leaky_relu_tile(i, p0); break;
  case 10: approx ? gelu_tile<true>(i) : gelu_tile<false>(i); break;
  case 11: approx ? sigmoid_tile<VectorMode::RC, true>(i) : sigmoid_tile<VectorMode::RC, false>(i); break;
  case 12: approx ? tanh_tile<true>(i) : tanh_tile<false>(i); break;
  case 13: silu_tile(i); break;
  case 14: abs_tile(i); break;
  case 15: negative_tile(i); break;
  case 16: square_tile(i); break;
  case 17: power_tile(i, p0); break;
  case 18: sin_tile(i); break;
  case 19: cos_tile(i); break;
  case 20: sign_tile(i); break;
  case 21: floor_tile(i); break;
  case 22: ceil_tile(i); break;
  case 23: fill_tile_bitcast(i, p0); break;
  case 24:
    if (p0 == 0) typecast_tile<BF16, U16>(i);
    else if (p0 == 1) typecast_tile<F32, I32>(i);
    else typecast_tile<F32, BF16>(i);
    break;
  case 25: eqz_tile(i); break;
  case 26: nez_tile(i); break;
  case 27: ltz_tile(i); break;
  case 28: gtz_tile(i); break;
  case 29: lez_tile(i); break;
  case 30: gez_tile(i); break;
  case 31: unary_eq_tile(i, p0); break;
  case 32: unary_ne_tile(i, p0); break;
  case 33: unary_gt_tile(i, p0); break;
  case 34: unary_lt_tile(i, p0); break;
  case 35: unary_ge_tile(i, p0); break;
  case 36: unary_le_tile(i, p0); break;
  case 37: isinf_tile(i); break;
  case 38: isposinf_tile(i); break;
  case 39: isneginf_tile(i); break;
  case 40: isnan_tile(i); break;
  case 41: isfinite_tile(i); break;
  case 42: signbit_tile(i); break;
  case 43: logical_not_tile<DataFormat::Float16_b>(i); break;
  case 44: erf_tile<false>(i); break;
  case 45: erfc_tile(i); break;
  case 46: erfinv_tile(i); break;
  case 47: asin_tile(i); break;
  case 48: acos_tile(i); break;
  case 49: atan_tile(i); break;
  case 50: asinh_tile(i); break;
  case 51: acosh_tile(i); break;
  case 52: atanh_tile(i); break;
  case 53: sinh_tile(i); break;
  case 54: cosh_tile(i); break;
  case 55: tan_tile(i); break;
  case 56: log1p_tile(i); break;
  case 57: expm1_tile(i); break;
  case 58: log_with_base_tile(i, p0); break;
  case 59: heaviside_tile(i, p0); break;
  case 60: trunc_tile(i); break;
  case 61: frac_tile(i); break;
  case 62: round_tile(i, int32_t(p0)); break;
  case 63: elu_tile(i, p0); break;
  case 64: hardtanh_tile(i, p0, p1); break;
  case 65: threshold_tile(i, p0, p1); break;
  case 66: add_unary_tile(i, p0); break;
  case 67: sub_unary_tile(i, p0); break;
  case 68: mul_unary_tile(i, p0); break;
  case 69: div_unary_tile(i, p0); break;
  case 70: rsub_unary_tile(i, p0); break;
  case 71: selu_tile(i, p0, p1); break;
  case 72: prelu_tile(i, p0); break;
  case 73: hardsigmoid_tile(i); break;
  case 74: hardswish_tile(i); break;
  case 75: softsign_tile(i); break;
  case 76: clamp_tile(i, p0, p1); break;
  case 100: add_binary_tile(i, i + 1, i); break; // @add_binary_tile
  case 101: sub_binary_tile(i, i + 1, i); break;
  case 102: mul_binary_tile(i, i + 1, i); break;
  case 103: div_binary_tile(i, i + 1, i); break;
  case 104: binary_max_tile(i, i + 1, i); break;
  case 105: binary_min_tile(i, i + 1, i); break;
  case 110: eq_binary_tile(i, i + 1, i); break;
  case 111: ne_binary_tile(i, i + 1, i); break;
  case 112: lt_binary_tile(i, i + 1, i); break;
  case 113: gt_binary_tile(i, i + 1, i); break;
  case 114: le_binary_tile(i, i + 1, i); break;
  case 115: ge_binary_tile(i, i + 1, i); break;
  case 116: rsub_binary_tile(i, i + 1, i); break;
  case 117: power_binary_tile(i, i + 1, i); break;
  case 118: div_no_nan_binary_tile(i, i + 1, i); break;
  default: ASSERT(false);
  }
}

} // namespace

void kernel_main() {
  const uint32_t steps = get_arg_val<uint32_t>(0);
  for (uint32_t s = 0; s < steps; ++s) {
    uint32_t v[5];
    for (uint32_t w = 0; w < 5; ++w) v[w] = get_arg_val<uint32_t>(1 + 5 * s + w);
    const uint32_t a = v[1], b = v[2], c = v[3], d = v[4];
    switch (v[0]) {
    case 0: init_sfpu(a, c); break;
    case 1: cb_wait_front(a, b); break;
    case 5: tile_regs_acquire(); break;
    case 10: copy_tile(a, b, c); break;
    case 20: op_init(a, b != 0); break;
    case 21: op_run(a, b, c, d != 0); break;
    case 30: exp_tile(0, (int)a); break; // @exp_vector_mode
    case 31: exp_tile<false, true>(0, VectorMode::RC, uint16_t(a)); break; // @exp_scaled
    case 40: { // one tile: CB 0 (and CB 1 for a binary op) -> DST 0 (, 1) -> op -> CB 16
      const bool binary = a >= 100 && a < 200;
      cb_wait_front(0, 1);
      cb_wait_front(1, 1);
      tile_regs_acquire();
      if (a >= 200) { // FPU: DST 0 = CB 0 op CB 1
        if (a == 200) { add_tiles_init(0, 1); add_tiles(0, 1, 0, 0, 0); }
        if (a == 201) { sub_tiles_init(0, 1); sub_tiles(0, 1, 0, 0, 0); }
        if (a == 202) { mul_tiles_init(0, 1); mul_tiles(0, 1, 0, 0, 0); }
        if (a >= 210 && a < 222) fpu_bcast((a - 210) / 4, (a - 210) % 4);
        if (a == 230) { transpose_wh_init(0, 16); transpose_wh_tile(0, 0, 0); }
        copy_tile_init(0);
      } else {
        copy_tile(0, 0, 0);
        if (binary) copy_tile(1, 0, 1);
        op_init(a, c != 0);
        op_run(a, 0, b, c != 0, d);
      }
      tile_regs_commit();
      tile_regs_wait();
      cb_reserve_back(16, 1);
      pack_tile(0, 16);
      cb_push_back(16, 1);
      cb_pop_front(0, 1);
      cb_pop_front(1, 1);
      tile_regs_release();
      break;
    }
    default: ASSERT(false);
    }
  }
}
)KERNEL";
  return source;
}

} // namespace tessel::test
