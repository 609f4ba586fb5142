// The SFPU ops with state or a tile-wide layout (sfpu_state.hpp). Each op
// follows the SFPU program of tt-llk's kernel for it: the same lanes in the
// same order, the SFPU's multiply-add for float math, 32-bit wrapping integer
// adds for the integer sums.
#include "sim/sfpu_state.hpp"

#include <bit>
#include <cmath>

#include "tessel/data_format.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

namespace {

constexpr uint32_t kRowFloats = 16; // a DST row

// An SFPU operand: denormals read as zero.
float operand(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  return (u & 0x7f800000u) == 0 ? std::bit_cast<float>(u & 0x80000000u) : x;
}
// SFPMAD: a * b + c with one rounding; a denormal or -0 result is +0.
float mad(float a, float b, float c) {
  const float r = std::fma(operand(a), operand(b), operand(c));
  const uint32_t u = std::bit_cast<uint32_t>(r);
  return (u & 0x7f800000u) == 0 ? 0.0f : r;
}

// DST float index of lane l of load k of face f (the header's mapping).
uint32_t lane_index(uint32_t face, uint32_t k, uint32_t l) {
  const uint32_t a = 16 * face + 2 * k;
  return ((a & ~3u) + l / 8) * kRowFloats + 2 * (l % 8) + ((a >> 1) & 1u);
}

// Tile element (row r, column c), 0 <= r, c < 32, in DST order.
uint32_t element(uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; }

// The integer a DST float holds (NaN: 0; magnitudes clamped to 2^40, which
// keeps the conversion defined) and back, wrapped to int32.
uint32_t word_of(float x) {
  constexpr float kLimit = 0x1p40f;
  if (x != x) return 0;
  return uint32_t(uint64_t(int64_t(x > kLimit ? kLimit : x < -kLimit ? -kLimit : x)));
}
float of_word(uint32_t w) { return float(int32_t(w)); }

} // namespace

void SfpuPrng::seed(uint32_t value) {
  for (uint32_t l = 0; l < kLanes; ++l) {
    // A 32-bit avalanche mix of the seed and the lane number.
    uint32_t x = value ^ (0x9e3779b9u * (l + 1));
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    lanes[l] = x == 0xffffffffu ? 0u : x; // all ones is the LFSR's fixed point
  }
}

uint32_t SfpuPrng::step(uint32_t l) {
  const uint32_t result = lanes[l];
  const uint32_t taps = uint32_t(std::popcount(result & 0x80200003u));
  lanes[l] = (~taps << 31) | (result >> 1);
  return result;
}

float sfpu_store(float x, bool dst_32bit) {
  if (dst_32bit) return x;
  const uint32_t b = std::bit_cast<uint32_t>(x);
  return std::bit_cast<float>((b & 0x7f800000u) ? b & 0xffff0000u : b & 0x80000000u);
}

void sfpu_rand(SfpuPrng& prng, float* tile, uint32_t from, uint32_t scale) {
  const float lo = std::bit_cast<float>(from), width = std::bit_cast<float>(scale);
  for (uint32_t face = 0; face < 4; ++face)
    for (uint32_t k = 0; k < 8; ++k)
      for (uint32_t l = 0; l < SfpuPrng::kLanes; ++l) {
        // Sign 0, exponent 127: a float in [1, 2); minus 1 is exact.
        const float one_two = std::bit_cast<float>(0x3f800000u | (prng.step(l) & 0x007fffffu));
        tile[lane_index(face, k, l)] = mad(one_two - 1.0f, width, lo);
      }
}

void sfpu_ema(SfpuEma& ema, const float* in, float* out, bool dst_32bit) {
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c) {
      const float decayed = mad(ema.alpha, ema.prev[c], 0.0f);
      ema.prev[c] = mad(ema.beta, in[element(r, c)], decayed);
      out[element(r, c)] = sfpu_store(ema.prev[c], dst_32bit);
    }
}

void sfpu_sum_int_col(float* tile) {
  for (uint32_t q = 0; q < 4; ++q)
    for (uint32_t c = 0; c < 32; ++c) {
      uint32_t sum = 0;
      for (uint32_t r = q; r < 32; r += 4)
        sum += word_of(tile[element(r, c)]);
      tile[element(q, c)] = of_word(sum);
    }
}

void sfpu_sum_int_row(float* tile) {
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 16; c += 2) {
      const uint32_t sum = word_of(tile[element(r, c)]) + word_of(tile[element(r, c + 1)]) +
                           word_of(tile[element(r, c + 16)]) + word_of(tile[element(r, c + 17)]);
      tile[element(r, c)] = of_word(sum);
    }
}

void sfpu_add_int(float* a, const float* b) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    a[i] = of_word(word_of(a[i]) + word_of(b[i]));
}

void sfpu_cumsum(SfpuCumsum& cumsum, float* tile, bool first, bool dst_32bit) {
  if (first)
    for (float& v : cumsum.carry)
      v = 0.0f;
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c) {
      cumsum.carry[c] = mad(1.0f, cumsum.carry[c], tile[element(r, c)]);
      tile[element(r, c)] = sfpu_store(cumsum.carry[c], dst_32bit);
    }
  cumsum.set = true;
}

void sfpu_dropout(SfpuPrng& prng, float* tile, uint32_t probability, uint32_t scale, bool dst_32bit) {
  const float factor = std::bit_cast<float>(scale);
  for (uint32_t face = 0; face < 4; ++face)
    for (uint32_t k = 0; k < 8; ++k)
      for (uint32_t l = 0; l < SfpuPrng::kLanes; ++l) {
        const uint32_t i = lane_index(face, k, l);
        const float scaled = mad(tile[i], factor, 0.0f);
        const uint32_t draw = prng.step(l) & 0x7fffffffu;
        // SFPIADD: probability - draw, the lane kept where it is negative.
        const bool drop = int32_t(probability - draw) >= 0;
        tile[i] = sfpu_store(drop ? 0.0f : scaled, dst_32bit);
      }
}

void sfpu_mask(float* data, const float* mask, bool integer, float value) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    if (integer ? word_of(mask[i]) == 0 : mask[i] == 0.0f) data[i] = value;
}

const char* sfpu_state_name(uint32_t op) {
  switch (op) {
  case TESSEL_SFPU_STATE_RAND_INIT: return "rand_tile_init";
  case TESSEL_SFPU_STATE_RAND: return "rand_tile";
  case TESSEL_SFPU_STATE_EMA_INIT: return "ema_init";
  case TESSEL_SFPU_STATE_EMA_CLEAR: return "ema_clear_previous_output";
  case TESSEL_SFPU_STATE_EMA: return "ema_tile";
  case TESSEL_SFPU_STATE_SUM_INT_INIT: return "sfpu_sum_int_init";
  case TESSEL_SFPU_STATE_SUM_INT_COL: return "sfpu_sum_int_col";
  case TESSEL_SFPU_STATE_SUM_INT_ROW: return "sfpu_sum_int_row";
  case TESSEL_SFPU_STATE_ADD_INT: return "sfpu_add_int";
  case TESSEL_SFPU_STATE_CUMSUM_INIT: return "cumsum_tile_init";
  case TESSEL_SFPU_STATE_CUMSUM: return "cumsum_tile";
  case TESSEL_SFPU_STATE_DROPOUT_INIT: return "dropout_kernel_init";
  case TESSEL_SFPU_STATE_DROPOUT: return "dropout_tile";
  case TESSEL_SFPU_STATE_MASK_INIT: return "mask_tile_init";
  case TESSEL_SFPU_STATE_MASK: return "mask_tile";
  case TESSEL_SFPU_STATE_MASK_POSINF: return "mask_posinf_tile";
  default: return "?";
  }
}

} // namespace tessel::sim
