// bfloat16 from float as the AIE's and Tensix's converters round it: to
// nearest, ties to even; a NaN stays a (quiet) NaN. And back, exactly. For
// the kernel-side front ends that compute in float and store bfloat16
// (tessel/iron_values.h, aie_api's bfloat16, tessel/ttl_dsl.h).
#ifndef TESSEL_BF16_ROUND_H
#define TESSEL_BF16_ROUND_H

#include <stdint.h>

namespace tessel_bf16 {

// The bfloat16 nearest the float whose bits are `u`.
constexpr uint16_t from_float_bits(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u); // NaN stays a (quiet) NaN
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

constexpr uint16_t from_float(float f) { return from_float_bits(__builtin_bit_cast(uint32_t, f)); }

constexpr float to_float(uint16_t bits) { return __builtin_bit_cast(float, uint32_t(bits) << 16); }

} // namespace tessel_bf16

#endif // TESSEL_BF16_ROUND_H
