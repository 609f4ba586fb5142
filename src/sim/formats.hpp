// The simulator's per-tile format conversions, used by the compute engine to
// unpack CB tiles into float and pack DST tiles back (src/sim/formats.cpp).
// The host-facing conversions with validation are in include/tessel/tile.hpp.
#pragma once

#include <bit>
#include <cstdint>

#include "tessel/data_format.hpp"
#include "tessel/tile.hpp"

namespace tessel::sim {

// One tile of `format` (is_packable(format) must hold: not checked here) to
// kTileHW floats in tile order, and back. Same rules as pack_tiles/unpack_tiles.
void unpack_tile(DataFormat format, const uint8_t* in, float* out);
void pack_tile(DataFormat format, const float* in, uint8_t* out);

// x rounded to bfloat16 precision, as a float: bf16_to_float(float_to_bf16(x)),
// inline and branch-free so loops over a tile vectorise.
inline float round_to_bf16(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  const uint32_t quiet_nan = (bits & 0xffff0000u) | 0x00400000u;
  const uint32_t signed_zero = bits & 0x80000000u;
  uint32_t out = (bits & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded;
  out = (bits & 0x7f800000u) == 0 ? signed_zero : out;
  return std::bit_cast<float>(out);
}

} // namespace tessel::sim
