// What the SFPU math files share (sfpu.cpp and its family files
// sfpu_compare.cpp, sfpu_functions.cpp, sfpu_special.cpp, sfpu_bitwise.cpp,
// sfpu_integer.cpp): float bit helpers, the branch-free
// select, the tile loops, and each family's entry point. Internal to
// src/sim; the public face is sfpu.hpp.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

#include "sim/sfpu.hpp"
#include "tessel/data_format.hpp"

namespace tessel::sim::sfpu_detail {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMinNormal = 0x1p-126f;

inline uint32_t bits_of(float x) { return std::bit_cast<uint32_t>(x); }
inline float from_bits(uint32_t b) { return std::bit_cast<float>(b); }
inline float abs_f(float x) { return from_bits(bits_of(x) & 0x7fffffffu); }
inline float copysign_f(float magnitude, float sign) {
  return from_bits((bits_of(magnitude) & 0x7fffffffu) | (bits_of(sign) & 0x80000000u));
}

// c ? a : b as a bit blend: both sides are computed, no branch. Written
// instead of ?: so that GCC, which will not speculate a float operation that
// may trap, still turns each tile loop into SIMD code.
inline float sel(bool c, float a, float b) {
  const uint32_t m = 0u - uint32_t(c);
  return from_bits((bits_of(a) & m) | (bits_of(b) & ~m));
}
// 1.0 where c holds, else 0.0: the SFPU's comparison results.
inline float one_if(bool c) { return sel(c, 1.0f, 0.0f); }

// tile[i] = f(tile[i]). Callers pass lambdas (one instantiation each, so f
// is inlined); with a branch-free f the loop vectorises.
template <class F>
inline void each(float* __restrict tile, F f) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    tile[i] = f(tile[i]);
}

// out[i] = f(a[i], b[i]); out may alias a or b.
template <class F>
void binary_loop(const float* a, const float* b, float* out, F f) {
  // A local result keeps the loop free of aliasing (out may be a or b).
  alignas(64) float r[kTileHW];
  for (uint32_t i = 0; i < kTileHW; ++i)
    r[i] = f(a[i], b[i]);
  std::memcpy(out, r, sizeof r);
}

// Nearest integer, ties to even: adding and removing 2^23 with x's sign
// rounds in the FPU's default mode; |x| >= 2^23 is already integral (inf and
// NaN pass through).
inline float round_even(float x) {
  const float big = copysign_f(8388608.0f, x);
  const float r = (x + big) - big;
  return sel(abs_f(x) < 8388608.0f, copysign_f(r, x), x);
}

// The families: each applies its ops and returns false for an op that is
// not its own.
bool sfpu_compare_unary(uint32_t op, float* tile, const SfpuParams& params);        // sfpu_compare.cpp
bool sfpu_function_unary(uint32_t op, float* tile, const SfpuParams& params);       // sfpu_functions.cpp
bool sfpu_compare_binary(uint32_t op, const float* a, const float* b, float* out);  // sfpu_compare.cpp
bool sfpu_function_binary(uint32_t op, const float* a, const float* b, float* out); // sfpu_functions.cpp
bool sfpu_special_unary(uint32_t op, float* tile, const SfpuParams& params);        // sfpu_special.cpp
bool sfpu_special_binary(uint32_t op, const float* a, const float* b, float* out);  // sfpu_special.cpp
bool sfpu_special_ternary(uint32_t op, const float* a, const float* b, const float* c, float* out,
                          uint32_t p0);                                            // sfpu_special.cpp
bool sfpu_bitwise_binary(uint32_t op, const float* a, const float* b, float* out); // sfpu_bitwise.cpp
bool sfpu_integer_binary(uint32_t op, const float* a, const float* b, float* out); // sfpu_integer.cpp
bool sfpu_misc_unary(uint32_t op, float* tile, const SfpuParams& params);          // sfpu_misc.cpp
bool sfpu_misc_binary(uint32_t op, const float* a, const float* b, float* out);    // sfpu_misc.cpp
bool sfpu_misc_ternary(uint32_t op, const float* a, const float* b, const float* c, float* out,
                       uint32_t p0); // sfpu_misc.cpp

} // namespace tessel::sim::sfpu_detail
