// TT-Metalium's kernel-side bfloat16 bit helpers: the infinities, NaN and
// sign mask as bit patterns, and bfloat16_greater(a, b) (a > b on the values
// the bits encode, by integer compares; +0 and -0 order as their bits do,
// -0 < +0, and NaNs order as the numbers their bits would otherwise be).
#pragma once

#include <stdint.h>

inline constexpr uint16_t NEG_INF_BFLOAT16 = 0xFF80;
inline constexpr uint16_t POS_INF_BFLOAT16 = 0x7F80;
inline constexpr uint16_t NAN_BFLOAT16 = 0x7FFF;
inline constexpr uint16_t BFLOAT16_SIGN_MASK = 0x8000;

inline bool bfloat16_greater(uint16_t bf16_a, uint16_t bf16_b) {
  const bool a_negative = (bf16_a & BFLOAT16_SIGN_MASK) != 0, b_negative = (bf16_b & BFLOAT16_SIGN_MASK) != 0;
  if (a_negative != b_negative) return !a_negative;
  // Same sign: magnitudes order as the bits; negatives in reverse.
  return a_negative ? bf16_a < bf16_b : bf16_a > bf16_b;
}
