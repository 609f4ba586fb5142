// TT-Metalium's kernel-side int32 helpers: the extreme values under
// Metalium's names and int32_greater(a, b), a > b for two's-complement
// values.
#pragma once

#include <stdint.h>

inline constexpr int32_t NEG_INF_INT32 = int32_t(0x80000000u);
inline constexpr int32_t POS_INF_INT32 = 0x7FFFFFFF;
inline constexpr uint32_t INT32_SIGN_MASK = 0x80000000u;

inline bool int32_greater(int32_t int32_a, int32_t int32_b) { return int32_a > int32_b; }
