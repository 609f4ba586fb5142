// TT-Metalium's kernel-side float32 bit helpers: the infinities, NaN and
// field masks as bit patterns, and float32_greater(a, b): a > b on the
// values the bits encode, by integer compares (a NaN is never greater nor
// less, and +0 equals -0).
#pragma once

#include <stdint.h>

inline constexpr uint32_t NEG_INF_FLOAT32 = 0xFF800000;
inline constexpr uint32_t POS_INF_FLOAT32 = 0x7F800000;
inline constexpr uint32_t NAN_FLOAT32 = 0x7FFFFFFF;
inline constexpr uint32_t FLOAT32_SIGN_MASK = 0x80000000;
inline constexpr uint32_t FLOAT32_EXPONENT_MASK = 0x7F800000;
inline constexpr uint32_t FLOAT32_MANTISSA_MASK = 0x007FFFFF;
inline constexpr uint32_t FLOAT32_MAGNITUDE_MASK = 0x7FFFFFFF;

inline bool float32_greater(uint32_t f32_a, uint32_t f32_b) {
  const uint32_t a = f32_a & FLOAT32_MAGNITUDE_MASK, b = f32_b & FLOAT32_MAGNITUDE_MASK;
  if (a > POS_INF_FLOAT32 || b > POS_INF_FLOAT32) return false; // a NaN
  if (a == 0 && b == 0) return false;                           // +0 == -0
  const bool a_negative = (f32_a & FLOAT32_SIGN_MASK) != 0, b_negative = (f32_b & FLOAT32_SIGN_MASK) != 0;
  if (a_negative != b_negative) return !a_negative;
  // Same sign: magnitudes order as the bits; negatives in reverse.
  return a_negative ? f32_a < f32_b : f32_a > f32_b;
}
