// mm.cc for aie2p (tessel's kernel library): as aie2/mm.cc, with the AIE2P's
// tile shapes r x s x t:
//   i8 -> i8/i16/i32: 8x8x8   i16 -> i16/i32: 4x4x8   bf16 -> bf16/f32: 4x8x8
// (8x8x8 for bf16 with AIE_API_EMULATE_BFLOAT16_MMUL_WITH_BFP16). B_COL_MAJ
// takes B in column-major tiles.
#include "../aie2/zero.cc"

#include "../mm_blocked.h"

#ifdef AIE_API_EMULATE_BFLOAT16_MMUL_WITH_BFP16
#define TESSEL_MM_BF16_R 8
#else
#define TESSEL_MM_BF16_R 4
#endif

extern "C" {
#if defined(i8_i8_ONLY)
TESSEL_MATMUL_FUNCTIONS(int8, i8, int8, i8, 8, 8, 8)
#elif defined(i8_i16_ONLY)
TESSEL_MATMUL_FUNCTIONS(int8, i8, int16, i16, 8, 8, 8)
#elif defined(i8_i32_ONLY)
TESSEL_MATMUL_FUNCTIONS(int8, i8, int32, i32, 8, 8, 8)
#elif defined(i16_i16_ONLY)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int16, i16, 4, 4, 8)
#elif defined(i16_i32_ONLY)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int32, i32, 4, 4, 8)
#elif defined(bf16_bf16_ONLY)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, bfloat16, bf16, TESSEL_MM_BF16_R, 8, 8)
#elif defined(bf16_f32_ONLY)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, float, f32, TESSEL_MM_BF16_R, 8, 8)
#else
TESSEL_MATMUL_FUNCTIONS(int8, i8, int8, i8, 8, 8, 8)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int16, i16, 4, 4, 8)
TESSEL_MATMUL_FUNCTIONS(int16, i16, int32, i32, 4, 4, 8)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, bfloat16, bf16, TESSEL_MM_BF16_R, 8, 8)
TESSEL_MATMUL_FUNCTIONS(bfloat16, bf16, float, f32, TESSEL_MM_BF16_R, 8, 8)
#endif
} // extern "C"

#undef TESSEL_MM_BF16_R
