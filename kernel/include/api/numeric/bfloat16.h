// TT-Metalium's kernel-side bfloat16 bit helpers: the infinities, NaN and
// the field masks (sign, exponent, mantissa, magnitude) as bit patterns, bfloat16_greater(a, b) (a > b on the values
// the bits encode, by integer compares; +0 and -0 order as their bits do,
// -0 < +0, and NaNs order as the numbers their bits would otherwise be), and
// the conversions: bf16_to_fp32 (exact), fp32_to_bf16 (round to nearest,
// ties to even, as the packer rounds) and fp32_to_bf16_truncate.
#pragma once

#include <stdint.h>

inline constexpr uint16_t NEG_INF_BFLOAT16 = 0xFF80;
inline constexpr uint16_t POS_INF_BFLOAT16 = 0x7F80;
inline constexpr uint16_t NAN_BFLOAT16 = 0x7FFF;
inline constexpr uint16_t BFLOAT16_SIGN_MASK = 0x8000;
inline constexpr uint16_t BFLOAT16_EXPONENT_MASK = 0x7F80;
inline constexpr uint16_t BFLOAT16_MANTISSA_MASK = 0x007F;
inline constexpr uint16_t BFLOAT16_MAGNITUDE_MASK = 0x7FFF;

inline bool bfloat16_greater(uint16_t bf16_a, uint16_t bf16_b) {
  const bool a_negative = (bf16_a & BFLOAT16_SIGN_MASK) != 0, b_negative = (bf16_b & BFLOAT16_SIGN_MASK) != 0;
  if (a_negative != b_negative) return !a_negative;
  // Same sign: magnitudes order as the bits; negatives in reverse.
  return a_negative ? bf16_a < bf16_b : bf16_a > bf16_b;
}

inline float bf16_to_fp32(uint16_t bf16) {
  const uint32_t bits = uint32_t(bf16) << 16;
  float value;
  __builtin_memcpy(&value, &bits, sizeof value);
  return value;
}
inline uint16_t fp32_to_bf16(float x) {
  uint32_t bits;
  __builtin_memcpy(&bits, &x, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}
inline uint16_t fp32_to_bf16_truncate(float x) {
  uint32_t bits;
  __builtin_memcpy(&bits, &x, sizeof bits);
  return uint16_t(bits >> 16);
}
