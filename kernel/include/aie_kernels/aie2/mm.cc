// mm.cc for aie2 (tessel's kernel library): C += A * B on DIM_M x DIM_K by
// DIM_K x DIM_N blocks (defaults 64), tiled as mm_blocked.h describes, with
// the AIE-ML's tile shapes r x s x t:
//   i8 -> i8/i16/i32: 4x8x8   i16 -> i16/i32: 4x4x4   bf16 -> bf16/f32: 4x8x4
// Functions per pair: matmul_<in>_<out>, matmul_scalar_<in>_<out> (plain
// row-major), zero_<out>, zero_scalar_<out>. -D<in>_<out>_ONLY (e.g.
// -Dbf16_f32_ONLY) builds one pair; without it i8_i8, i16_i16, i16_i32,
// bf16_bf16 and bf16_f32 are built. Integer results keep the accumulator's
// low bits (shift 0, the current rounding and saturation modes); bf16
// products accumulate exactly in fp32 and round to bf16 by the current
// rounding mode.
#include "zero.cc"

#include "../mm_blocked.h"

extern "C" {
#if defined(i8_i8_ONLY)
TESSEL_MATMUL_FUNCTIONS(int8, i8, int8, i8, 4, 8, 8)
#elif defined(i8_i16_ONLY)
TESSEL_MATMUL_FUNCTIONS(int8, i8, int16, i16, 4, 8, 8)
#elif defined(i8_i32_ONLY)
TESSEL_MATMUL_FUNCTIONS(int8, i8, int32, i32, 4, 8, 8)
#elif defined(i16_i16_ONLY)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int16, i16, 4, 4, 4)
#elif defined(i16_i32_ONLY)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int32, i32, 4, 4, 4)
#elif defined(bf16_bf16_ONLY)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, bfloat16, bf16, 4, 8, 4)
#elif defined(bf16_f32_ONLY)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, float, f32, 4, 8, 4)
#else
TESSEL_MATMUL_FUNCTIONS(int8, i8, int8, i8, 4, 8, 8)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int16, i16, 4, 4, 4)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int32, i32, 4, 4, 4)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, bfloat16, bf16, 4, 8, 4)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, float, f32, 4, 8, 4)
#endif
} // extern "C"
