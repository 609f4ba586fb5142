// The compute engine's call vocabulary in the kernel ABI (kernel_abi.h, which
// includes this header): the inits a compute kernel records, and the op codes
// of the FPU, SFPU, Welford and DST-stepping calls of `tessel_sim_api`. The
// simulator decodes them in src/sim/compute*.cpp and src/sim/sfpu*.cpp. Part
// of the ABI: changing a value changes TESSEL_KERNEL_ABI_VERSION.
//
// This header is C and free of the standard library so kernels compile fast.
#ifndef TESSEL_COMPUTE_ABI_H
#define TESSEL_COMPUTE_ABI_H

// Compute engine calls (compute kernels only; see src/sim/compute.cpp).
// Hardware and op inits, recorded as state: an op checks that its init ran.
enum tessel_compute_init {
  TESSEL_INIT_HW_STARTUP = 0,    // compute_kernel_hw_startup(a, b, c) / (a, c)
  TESSEL_INIT_BINARY_COMMON = 1, // binary_op_init_common(a, b, c)
  TESSEL_INIT_UNARY_COMMON = 2,  // unary_op_init_common(a, c) / init_sfpu(a, c)
  TESSEL_INIT_COPY = 3,          // copy_tile_init(a) and its spellings
  TESSEL_INIT_ADD = 4,           // add_tiles_init(a, b, c = acc_to_dest)
  TESSEL_INIT_SUB = 5,
  TESSEL_INIT_MUL = 6,
  TESSEL_INIT_MATMUL = 7,         // mm_init / matmul_init / mm_block_init...(a = in0, b = in1, c = transpose)
  TESSEL_INIT_REDUCE = 8,         // reduce_init(a = in, b = scaler, c = (pool << 4) | dim)
  TESSEL_INIT_REDUCE_UNINIT = 9,  // reduce_uninit()
  TESSEL_INIT_TRANSPOSE = 10,     // transpose_wh_init(a = in)
  TESSEL_INIT_BCAST = 11,         // *_bcast_*_init(a = in0, b = in1, c = (binary op << 4) | enum tessel_bcast)
  TESSEL_INIT_SFPU = 12,          // an SFPU unary init configures op a (enum tessel_sfpu_op): see below
  TESSEL_INIT_SFPU_BINARY = 13,   // likewise for op a of enum tessel_sfpu_binary_op
  TESSEL_INIT_RECONFIG_SRCA = 14, // reconfig_data_format_srca(a = new cb); b = 1 + old cb when given
  TESSEL_INIT_RECONFIG_SRCB = 15, // reconfig_data_format_srcb(a = new cb); b as above
  TESSEL_INIT_RECONFIG_PACK = 16, // pack_reconfig_data_format(a = new cb); b as above
  TESSEL_INIT_MATMUL_FULL = 17,   // mm_init / mm_block_init: also configures formats and the packer:
                                  // a = in0, b = in1, c = (out cb << 8) | transpose
  TESSEL_INIT_PACK_L1_ACC = 18,   // pack_reconfig_l1_acc(a = enable): pack_tile adds to the page it writes
  TESSEL_INIT_SFPU_TERNARY = 19,  // likewise for op a of enum tessel_sfpu_ternary_op
  // Layout conversions (tessel/tilize.h).
  TESSEL_INIT_TILIZE = 20,               // tilize_init(a = icb, b = block, c = ocb [| TESSEL_TILIZE_FAST])
  TESSEL_INIT_TILIZE_UNINIT = 21,        // tilize_uninit(a = icb, c = ocb [| TESSEL_TILIZE_FAST])
  TESSEL_INIT_UNTILIZE = 22,             // untilize_init(a = icb)
  TESSEL_INIT_UNTILIZE_UNINIT = 23,      // untilize_uninit(a = icb)
  TESSEL_INIT_PACK_UNTILIZE = 24,        // pack_untilize_init(a = icb, or TESSEL_NO_CB for pack_untilize_dest_init,
                                         // b = ocb, c = (full_ct_dim << 16) | block_ct_dim)
  TESSEL_INIT_PACK_UNTILIZE_UNINIT = 25, // pack_untilize_uninit(a = ocb)
  TESSEL_INIT_DEST_REUSE = 26,           // binary_dest_reuse_tiles_init(a = icb, c = (binary op << 4) | reuse)
  TESSEL_INIT_UNARY_BCAST = 27,          // unary_bcast_init(a = icb, b = ocb, c = enum tessel_bcast)
  TESSEL_INIT_UNARY_BCAST_UNINIT = 28,   // unary_bcast_uninit(a = icb)
  // The packer's own edits of what it packs (tessel/pack_config.h).
  TESSEL_INIT_PACK_RELU = 29,        // llk_pack_relu_config(a = enum tessel_pack_relu)
  TESSEL_INIT_PACK_REDUCE_MASK = 30, // llk_pack_reduce_mask_config(a = 1 + enum tessel_reduce_dim) / _clear (a = 0)
};
// The packer's ReLU modes modelled (ReluType): off, or negative values packed as 0.
enum tessel_pack_relu { TESSEL_PACK_RELU_NONE = 0, TESSEL_PACK_RELU_ZERO = 1 };
// An SFPU init that configures n ops sends n TESSEL_INIT_SFPU* calls, one per
// op: the first with b = 0 (the init replaces whatever the previous SFPU init
// configured), the others with b = TESSEL_SFPU_INIT_MORE (they add to it).
#define TESSEL_SFPU_INIT_MORE 1u
// TESSEL_INIT_TILIZE*'s c: the fast_tilize_* spelling.
#define TESSEL_TILIZE_FAST 0x80000000u
// TESSEL_INIT_PACK_UNTILIZE's c: the packer-only LLK init (llk_pack_untilize_init),
// which leaves the packer's data format as it is.
#define TESSEL_PACK_UNTILIZE_KEEP_FORMAT 0x80000000u
// "No CB": pack_untilize_dest and its init, which take no input CB.
#define TESSEL_NO_CB 0xFFFFFFFFu
// Reduce pools and dims (PoolType / ReduceDim).
enum tessel_pool { TESSEL_POOL_SUM = 0, TESSEL_POOL_AVG = 1, TESSEL_POOL_MAX = 2 };
enum tessel_reduce_dim { TESSEL_REDUCE_ROW = 0, TESSEL_REDUCE_COL = 1, TESSEL_REDUCE_SCALAR = 2 };
// Broadcast of the second operand (BroadcastType).
enum tessel_bcast { TESSEL_BCAST_NONE = 0, TESSEL_BCAST_COL = 1, TESSEL_BCAST_ROW = 2, TESSEL_BCAST_SCALAR = 3 };
enum tessel_dest_tiles { TESSEL_DEST_REUSE = 0, TESSEL_UNARY_BCAST = 1 };
enum tessel_reuse { TESSEL_REUSE_DEST_TO_SRCA = 1, TESSEL_REUSE_DEST_TO_SRCB = 2 };
// SFPU unary ops, in place on one DST tile. p0/p1 per op: see sim/sfpu.hpp.
// Float parameters are float bits; a result "1 / 0" is 1.0 where the
// condition holds and 0.0 elsewhere.
enum tessel_sfpu_op {
  TESSEL_SFPU_EXP = 0,
  TESSEL_SFPU_EXP2 = 1,
  TESSEL_SFPU_LOG = 2,
  TESSEL_SFPU_SQRT = 3,
  TESSEL_SFPU_RSQRT = 4,
  TESSEL_SFPU_RECIP = 5,
  TESSEL_SFPU_RELU = 6,
  TESSEL_SFPU_RELU_MAX = 7,   // p0 = upper limit (float bits)
  TESSEL_SFPU_RELU_MIN = 8,   // p0 = lower limit (float bits)
  TESSEL_SFPU_LEAKY_RELU = 9, // p0 = slope (float bits)
  TESSEL_SFPU_GELU = 10,
  TESSEL_SFPU_SIGMOID = 11,
  TESSEL_SFPU_TANH = 12,
  TESSEL_SFPU_SILU = 13,
  TESSEL_SFPU_ABS = 14,
  TESSEL_SFPU_NEG = 15,
  TESSEL_SFPU_SQUARE = 16,
  TESSEL_SFPU_POWER = 17, // p0 = integer exponent
  TESSEL_SFPU_SIN = 18,
  TESSEL_SFPU_COS = 19,
  TESSEL_SFPU_SIGN = 20,
  TESSEL_SFPU_FLOOR = 21,
  TESSEL_SFPU_CEIL = 22,
  TESSEL_SFPU_FILL = 23,     // p0 = value (float bits)
  TESSEL_SFPU_TYPECAST = 24, // p0 = input format, p1 = output format (data-format codes)
  // Comparisons with zero and with a scalar (p0, float bits): 1 / 0.
  TESSEL_SFPU_EQZ = 25,
  TESSEL_SFPU_NEZ = 26,
  TESSEL_SFPU_LTZ = 27,
  TESSEL_SFPU_GTZ = 28,
  TESSEL_SFPU_LEZ = 29,
  TESSEL_SFPU_GEZ = 30,
  TESSEL_SFPU_UNARY_EQ = 31,
  TESSEL_SFPU_UNARY_NE = 32,
  TESSEL_SFPU_UNARY_GT = 33,
  TESSEL_SFPU_UNARY_LT = 34,
  TESSEL_SFPU_UNARY_GE = 35,
  TESSEL_SFPU_UNARY_LE = 36,
  // Classification: 1 / 0.
  TESSEL_SFPU_ISINF = 37,
  TESSEL_SFPU_ISPOSINF = 38,
  TESSEL_SFPU_ISNEGINF = 39,
  TESSEL_SFPU_ISNAN = 40,
  TESSEL_SFPU_ISFINITE = 41,
  TESSEL_SFPU_SIGNBIT = 42,
  TESSEL_SFPU_LOGICAL_NOT = 43,
  // Special and inverse functions.
  TESSEL_SFPU_ERF = 44,
  TESSEL_SFPU_ERFC = 45,
  TESSEL_SFPU_ERFINV = 46,
  TESSEL_SFPU_ASIN = 47,
  TESSEL_SFPU_ACOS = 48,
  TESSEL_SFPU_ATAN = 49,
  TESSEL_SFPU_ASINH = 50,
  TESSEL_SFPU_ACOSH = 51,
  TESSEL_SFPU_ATANH = 52,
  TESSEL_SFPU_SINH = 53,
  TESSEL_SFPU_COSH = 54,
  TESSEL_SFPU_TAN = 55,
  TESSEL_SFPU_LOG1P = 56,
  TESSEL_SFPU_EXPM1 = 57,
  TESSEL_SFPU_LOG_WITH_BASE = 58, // p0 = scale (float bits): log(x) * scale
  TESSEL_SFPU_HEAVISIDE = 59,     // p0 = the value at x == 0 (float bits)
  // Rounding (with floor and ceil).
  TESSEL_SFPU_TRUNC = 60,
  TESSEL_SFPU_FRAC = 61,
  TESSEL_SFPU_ROUND = 62, // p0 = decimals (int32)
  // Activations.
  TESSEL_SFPU_ELU = 63,       // p0 = alpha (float bits)
  TESSEL_SFPU_HARDTANH = 64,  // p0 = min, p1 = max (float bits)
  TESSEL_SFPU_THRESHOLD = 65, // p0 = threshold, p1 = replacement (float bits)
  // Arithmetic with a scalar p0 (float bits).
  TESSEL_SFPU_ADD_SCALAR = 66,
  TESSEL_SFPU_SUB_SCALAR = 67,
  TESSEL_SFPU_MUL_SCALAR = 68,
  TESSEL_SFPU_DIV_SCALAR = 69,
  TESSEL_SFPU_RSUB_SCALAR = 70, // p0 - x
  // More activations.
  TESSEL_SFPU_SELU = 71,        // p0 = scale, p1 = alpha (float bits)
  TESSEL_SFPU_PRELU = 72,       // p0 = slope (float bits)
  TESSEL_SFPU_HARDSIGMOID = 73, // clamp(x / 6 + 1/2, 0, 1)
  TESSEL_SFPU_HARDSWISH = 74,   // x hardsigmoid(x)
  TESSEL_SFPU_SOFTSIGN = 75,    // x / (1 + |x|)
  TESSEL_SFPU_CLAMP = 76,       // p0 = min, p1 = max (float bits)
  // Special functions and activations of their own headers (tessel/sfpu_special.h).
  TESSEL_SFPU_CBRT = 77,
  TESSEL_SFPU_HARDMISH = 78,        // x clamp(x + 2.8, 0, 5) / 5
  TESSEL_SFPU_LGAMMA = 79,          // ln|gamma(x)|
  TESSEL_SFPU_LGAMMA_STIRLING = 80, // ln gamma(z), z = x < 0.5 ? 1 - x : x
  TESSEL_SFPU_SOFTCAP = 81,         // p0 = cap, p1 = 1 / cap (float bits): cap tanh(x p1)
  TESSEL_SFPU_LOG1P_EXP = 82,       // ln(1 + e^x)
  TESSEL_SFPU_CELU = 83,            // p0 = alpha, p1 = 1 / alpha (float bits)
  TESSEL_SFPU_SOFTSHRINK = 84,      // p0 = lambda (float bits)
  TESSEL_SFPU_HARDSHRINK = 85,      // p0 = lambda (float bits)
  TESSEL_SFPU_LOGSIGMOID = 86,      // ln(1 / (1 + e^-x))
  TESSEL_SFPU_RPOW = 87,            // p0^x (p0: float bits)
  TESSEL_SFPU_GELU_DERIVATIVE = 88, // the derivative of the erf form of gelu
  TESSEL_SFPU_GELU_TANH = 89,       // the tanh form of gelu
  TESSEL_SFPU_TANH_DERIVATIVE = 90, // 1 - tanh(x)^2 = sech(x)^2
  // Ops of their own headers (tessel/sfpu_misc.h).
  TESSEL_SFPU_I0 = 91,              // the modified Bessel function I0(x), as its 11-term series
  TESSEL_SFPU_IDENTITY = 92,        // x
  TESSEL_SFPU_IDENTITY_UINT32 = 93, // x (as a 32-bit word)
  TESSEL_SFPU_I1 = 94,              // the modified Bessel function I1(x), x clamped to [-88.5, 88.5]
  TESSEL_SFPU_OP_COUNT = 95
};
enum tessel_sfpu_binary_op {
  TESSEL_SFPU_BINARY_ADD = 0,
  TESSEL_SFPU_BINARY_SUB = 1,
  TESSEL_SFPU_BINARY_MUL = 2,
  TESSEL_SFPU_BINARY_DIV = 3,
  TESSEL_SFPU_BINARY_MAX = 4,
  TESSEL_SFPU_BINARY_MIN = 5,
  // Integer comparisons: 1 / 0.
  TESSEL_SFPU_BINARY_LT_INT = 6,
  TESSEL_SFPU_BINARY_GT_INT = 7,
  TESSEL_SFPU_BINARY_LE_INT = 8,
  TESSEL_SFPU_BINARY_GE_INT = 9,
  // Float comparisons: 1 / 0.
  TESSEL_SFPU_BINARY_EQ = 10,
  TESSEL_SFPU_BINARY_NE = 11,
  TESSEL_SFPU_BINARY_LT = 12,
  TESSEL_SFPU_BINARY_GT = 13,
  TESSEL_SFPU_BINARY_LE = 14,
  TESSEL_SFPU_BINARY_GE = 15,
  TESSEL_SFPU_BINARY_RSUB = 16,       // b - a
  TESSEL_SFPU_BINARY_POW = 17,        // a^b
  TESSEL_SFPU_BINARY_DIV_NO_NAN = 18, // b == 0 ? 0 : a / b
  // Bitwise ops on the integers DST holds (two's complement).
  TESSEL_SFPU_BINARY_BITWISE_AND = 19,
  TESSEL_SFPU_BINARY_BITWISE_OR = 20,
  TESSEL_SFPU_BINARY_BITWISE_XOR = 21,
  TESSEL_SFPU_BINARY_COPY = 22,            // a (copy_dest_values; b is not read)
  TESSEL_SFPU_BINARY_LOGSIGMOID = 23,      // -ln(1 + e^a), a = -x (b, e^a, is not read)
  TESSEL_SFPU_BINARY_LGAMMA_STIRLING = 24, // ln gamma(z), z = a < 0.5 ? 1 - a : a (b, ln z, is not read)
  // Float functions of two tiles.
  TESSEL_SFPU_BINARY_ATAN2 = 25,     // atan2(a, b)
  TESSEL_SFPU_BINARY_FMOD = 26,      // fmod(a, b): the sign of a
  TESSEL_SFPU_BINARY_REMAINDER = 27, // a - b floor(a / b): the sign of b
  TESSEL_SFPU_BINARY_XLOGY = 28,     // a ln(b), 0 where a == 0
  // Integer arithmetic on the integers DST holds (sfpu_integer.h).
  TESSEL_SFPU_BINARY_FMOD_INT32 = 29,      // a % b, the sign of a (0 where b == 0)
  TESSEL_SFPU_BINARY_REMAINDER_INT32 = 30, // a mod b, the sign of b (0 where b == 0)
  TESSEL_SFPU_BINARY_DIV_INT32 = 31,       // a / b as a float
  TESSEL_SFPU_BINARY_DIV_INT32_FLOOR = 32, // floor(a / b) (0 where b == 0)
  TESSEL_SFPU_BINARY_DIV_INT32_TRUNC = 33, // trunc(a / b) (0 where b == 0)
  TESSEL_SFPU_BINARY_GCD = 34,
  TESSEL_SFPU_BINARY_LCM = 35,
  // Integer ops whose result wraps to the tiles' format: one op per format,
  // Int32, UInt32, UInt16 in that order.
  TESSEL_SFPU_BINARY_SUB_INT = 36,             // a - b
  TESSEL_SFPU_BINARY_RSUB_INT = 39,            // b - a
  TESSEL_SFPU_BINARY_LEFT_SHIFT = 42,          // a << b
  TESSEL_SFPU_BINARY_RIGHT_SHIFT = 45,         // a >> b, arithmetic for Int32
  TESSEL_SFPU_BINARY_LOGICAL_RIGHT_SHIFT = 48, // a >> b on the 32-bit word
  // One ULP from a toward b (tessel/sfpu_misc.h).
  TESSEL_SFPU_BINARY_NEXTAFTER = 51,      // one float32 ULP
  TESSEL_SFPU_BINARY_NEXTAFTER_BF16 = 52, // one bfloat16 ULP
  TESSEL_SFPU_BINARY_LOGADDEXP = 53,      // ln(e^a + e^b)
  TESSEL_SFPU_BINARY_LOGADDEXP2 = 54,     // log2(2^a + 2^b)
  TESSEL_SFPU_BINARY_OP_COUNT = 55
};
// SFPU ops of three DST tiles.
enum tessel_sfpu_ternary_op {
  TESSEL_SFPU_TERNARY_WHERE = 0,           // DST[idst0] != 0 ? DST[idst1] : DST[idst2]
  TESSEL_SFPU_TERNARY_LERP = 1,            // a + c (b - a)
  TESSEL_SFPU_TERNARY_LGAMMA_ADJUSTED = 2, // c < 0.5 ? ln(pi) - b - a : a
  TESSEL_SFPU_TERNARY_ADDCMUL = 3,         // a + p0 b c (p0: float bits)
  TESSEL_SFPU_TERNARY_ADDCDIV = 4,         // a + p0 b / c (p0: float bits)
  TESSEL_SFPU_TERNARY_SNAKE_BETA = 5,      // a + sin(b a)^2 / c
  TESSEL_SFPU_TERNARY_MAC = 6,             // a b + c, one rounding (p0: the data format; tiles 0, 1, 2 -> 0)
  TESSEL_SFPU_TERNARY_OP_COUNT = 7
};
// SFPU ops that keep state in the SFPU between calls or combine a tile's rows,
// columns or neighbour tile (sfpu_state; src/sim/compute_sfpu_state.cpp).
// "init" ops configure the SFPU as every SFPU init does (the most recent SFPU
// init must be the one an op names); the ones without DST need no section.
enum tessel_sfpu_state_op {
  TESSEL_SFPU_STATE_RAND_INIT = 0,     // rand_tile_init: p0 = seed of this core's PRNG (init, no DST)
  TESSEL_SFPU_STATE_RAND = 1,          // rand_tile: DST[idst] = p0 + p1 * uniform [0, 1) (float bits; no init needed)
  TESSEL_SFPU_STATE_EMA_INIT = 2,      // ema_init: alpha = p0, beta = p1 (float bits; init, no DST)
  TESSEL_SFPU_STATE_EMA_CLEAR = 3,     // ema_clear_previous_output: the running average = 0 (no DST)
  TESSEL_SFPU_STATE_EMA = 4,           // ema_tile: DST[idst + 1] = the running average down DST[idst]'s rows
  TESSEL_SFPU_STATE_SUM_INT_INIT = 5,  // sfpu_sum_int_init (init, no DST)
  TESSEL_SFPU_STATE_SUM_INT_COL = 6,   // sfpu_sum_int_col: partial column sums into rows 0..3
  TESSEL_SFPU_STATE_SUM_INT_ROW = 7,   // sfpu_sum_int_row: partial row sums into columns 0, 2, .., 14
  TESSEL_SFPU_STATE_ADD_INT = 8,       // sfpu_add_int: DST[idst] += DST[idst + 1]; p0 = the call's dst_offset
  TESSEL_SFPU_STATE_CUMSUM_INIT = 9,   // cumsum_tile_init (init, no DST)
  TESSEL_SFPU_STATE_CUMSUM = 10,       // cumsum_tile: running sums down DST[idst]'s columns; p0 = first
  TESSEL_SFPU_STATE_DROPOUT_INIT = 11, // dropout_kernel_init: p0 = seed of this core's PRNG (init, no DST)
  TESSEL_SFPU_STATE_DROPOUT = 12,      // dropout_tile: p0 = probability (of 2^31), p1 = scale (float bits)
  TESSEL_SFPU_STATE_MASK_INIT = 13,    // mask_tile_init (init, no DST)
  TESSEL_SFPU_STATE_MASK = 14,        // mask_tile: DST[idst] = 0 where DST[idst + 1] is 0; p0 = idst2_mask, p1 = format
  TESSEL_SFPU_STATE_MASK_POSINF = 15, // mask_posinf_tile: likewise, +inf; p0 = idst2_mask
  TESSEL_SFPU_STATE_OP_COUNT = 16
};
// DST register protocol steps.
enum tessel_dst_step {
  TESSEL_DST_ACQUIRE = 0,        // tile_regs_acquire: MATH takes a DST section, zeroed
  TESSEL_DST_COMMIT = 1,         // tile_regs_commit: MATH hands it to PACK
  TESSEL_DST_WAIT = 2,           // tile_regs_wait: PACK takes the committed section
  TESSEL_DST_RELEASE = 3,        // tile_regs_release: PACK frees it
  TESSEL_DST_ACQUIRE_LEGACY = 4, // acquire_dst: MATH and PACK share one section
  TESSEL_DST_RELEASE_LEGACY = 5, // release_dst
};
// Welford's online mean and M2 (tessel/welford.h; src/sim/compute_welford.cpp).
enum tessel_welford_op {
  TESSEL_WELFORD_INIT = 0,           // welford_init<mode>: a = 1 clears the running state (ClearStats)
  TESSEL_WELFORD_CLEAR = 1,          // welford_clear
  TESSEL_WELFORD_UPDATE = 2,         // welford_update<N>(idst, a = start_idx, lut)
  TESSEL_WELFORD_UPDATE_ROWS = 3,    // welford_update_rows<N>(idst, a = start_idx, b = start_row, c = num_rows, lut)
  TESSEL_WELFORD_SAVE = 4,           // welford_save_state(idst)
  TESSEL_WELFORD_SAVE_GROUP = 5,     // welford_save_state(idst, a = group_id)
  TESSEL_WELFORD_RESTORE = 6,        // welford_restore_state(idst)
  TESSEL_WELFORD_RESTORE_GROUP = 7,  // welford_restore_state(idst, a = group_id)
  TESSEL_WELFORD_TO_ROW = 8,         // welford_finalize_to_row<N>(idst, b = scale_idx, lut)
  TESSEL_WELFORD_TO_FACE = 9,        // welford_finalize_to_face<N>(idst, b = scale_idx, lut)
  TESSEL_WELFORD_TO_FACE_GROUP = 10, // welford_finalize_to_face<N>(idst, a = group_id, b = scale_idx, lut)
  TESSEL_WELFORD_OP_COUNT = 11
};
// FPU binary ops.
enum tessel_binary_op { TESSEL_BINARY_ADD = 0, TESSEL_BINARY_SUB = 1, TESSEL_BINARY_MUL = 2 };
// TESSEL_INIT_ADD/SUB/MUL's c: bit 0 acc_to_dest; this bit: binary_tiles_init<false, ...>
// (configures MATH only, the unpacker must already be set up for eltwise binary).
#define TESSEL_BINARY_INIT_MATH_ONLY 2u

#endif // TESSEL_COMPUTE_ABI_H
