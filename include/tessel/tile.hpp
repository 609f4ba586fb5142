// Tiles and tile data formats: host helpers that lay out a matrix as 32x32
// tiles and convert tiles between float and the byte layouts of the device's
// data formats.
//
// All functions are pure: they read their inputs, return (or fill) fresh
// outputs and keep no state, so they are safe to call from any thread. The
// returned vectors are owned by the caller; the span-output overloads write
// into caller memory that must stay alive for the call only. Every function
// validates its arguments before writing anything and throws
// tessel::ValidationError on misuse. Byte layouts are little-endian, as on
// the device. docs/numerics.md states every rounding rule below with worked
// examples and the known differences from silicon.
//
// Tile layout (tilize / untilize). A tile is 32 x 32 values stored as four
// 16 x 16 faces, one after another, each face row-major:
//
//        col 0 ..... 15  16 ..... 31
//   row 0  +-----------+-----------+      tile[  0 .. 255] = face 0
//          |  face 0   |  face 1   |      tile[256 .. 511] = face 1
//   row 15 |           |           |      tile[512 .. 767] = face 2
//          +-----------+-----------+      tile[768 ..1023] = face 3
//   row 16 |  face 2   |  face 3   |
//          |           |           |      (r, c) -> face (r/16)*2 + c/16,
//   row 31 +-----------+-----------+              at (r%16)*16 + c%16
//
// A rows x cols matrix becomes ceil(rows/32) x ceil(cols/32) tiles in
// row-major tile order; rows and columns beyond the matrix are zero.
//
// Packed tile formats (pack_tiles / unpack_tiles), bytes per tile as
// tessel::tile_size() gives them:
//   Float32    4096  IEEE binary32, bit-exact (NaN payloads, -0, denormals kept)
//   Float16_b  2048  bfloat16, float_to_bf16 below
//   Bfp8_b     1088  [64 B exponents][1024 B sign+magnitude, 1 per value]
//   Bfp4_b      576  [64 B exponents][ 512 B sign+magnitude, 2 per byte]
//   Int32      4096  two's complement int32  } from float: round to nearest,
//   UInt32     4096  uint32                  } ties to even, then saturate to
//   UInt16     2048  uint16                  } the type's range; NaN -> 0
//   UInt8      1024  uint8                   }
//
// Block floating point (Bfp8_b, Bfp4_b). Values are taken in tile order (the
// order tilize produces), in groups of 16 consecutive values = one face row;
// tile byte e (0..63) is the shared exponent of group e (faces 0..3, rows
// 0..15 of each). The shared exponent is the largest biased float exponent in
// the group (0 if every value is zero or denormal). Each value is stored as
// a sign bit and a W-bit magnitude (W = 7 for Bfp8_b, 3 for Bfp4_b) with no
// hidden bit, meaning
//     value = (-1)^sign * magnitude * 2^(shared_exp - 127 - (W - 1)).
// Bfp8_b byte (value i of the tile at 64 + i):  [7] sign  [6:0] magnitude
// Bfp4_b byte (values 2j, 2j+1 at 64 + j):      [3:0] value 2j  [7:4] value 2j+1,
//                                               each nibble [3] sign [2:0] magnitude
// Packing: magnitude = round-to-nearest-even(|x| * 2^(127 + W - 1 - shared_exp)),
// computed exactly (all shifted-out bits count); a carry out of W bits clamps
// to 2^W - 1; a magnitude of 0 is stored without its sign; float denormals
// count as zero. A NaN or infinity in a group makes its shared exponent 255:
// infinity packs as magnitude 2^(W-1), NaN as the quiet pattern 2^(W-1) +
// 2^(W-2) (sign kept), finite values in that group lose almost everything.
// Unpacking follows the silicon unpacker: with shared exponent 255, a
// magnitude >= 2^(W-1) is infinity (or NaN when its low W-1 bits are not 0);
// sign set with magnitude 0 (never packed) reads as -infinity.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tessel/data_format.hpp"

namespace tessel {

inline constexpr uint32_t kFaceHeight = 16;
inline constexpr uint32_t kFaceWidth = 16;
inline constexpr uint32_t kFaceHW = kFaceHeight * kFaceWidth;
// Values sharing one exponent in the Bfp formats (one face row).
inline constexpr uint32_t kBfpGroupSize = 16;
inline constexpr uint32_t kBfpExponentBytes = kTileHW / kBfpGroupSize;

// ---- bfloat16 -------------------------------------------------------------

// Round to nearest, ties to even. Infinities are kept; a NaN stays a NaN
// with its sign and top payload bits, made quiet (bit 6 set). Float
// denormals become zero of the same sign, as the device's FPU and SFPU read
// bf16 denormals as zero; every other float becomes a normal bf16 or an
// infinity (values past the largest bf16 round to infinity).
uint16_t float_to_bf16(float value);
// Exact: the bf16 bits are the high half of the float. bf16 denormal patterns
// (never produced by float_to_bf16) decode to their IEEE value.
float bf16_to_float(uint16_t bits);

// ---- Tile layout ------------------------------------------------------------

// Values in a rows x cols matrix once padded to whole tiles.
uint64_t tilized_size(uint32_t rows, uint32_t cols);

// Row-major rows x cols (row_major.size() == rows * cols) to tiles, padding
// with zeros; returns tilized_size(rows, cols) values.
std::vector<float> tilize(std::span<const float> row_major, uint32_t rows, uint32_t cols);
std::vector<uint32_t> tilize(std::span<const uint32_t> row_major, uint32_t rows, uint32_t cols);
std::vector<int32_t> tilize(std::span<const int32_t> row_major, uint32_t rows, uint32_t cols);
std::vector<uint16_t> tilize(std::span<const uint16_t> row_major, uint32_t rows, uint32_t cols);
std::vector<uint8_t> tilize(std::span<const uint8_t> row_major, uint32_t rows, uint32_t cols);

// The inverse of tilize: tiles.size() == tilized_size(rows, cols); the
// padding is dropped and rows * cols values are returned.
std::vector<float> untilize(std::span<const float> tiles, uint32_t rows, uint32_t cols);
std::vector<uint32_t> untilize(std::span<const uint32_t> tiles, uint32_t rows, uint32_t cols);
std::vector<int32_t> untilize(std::span<const int32_t> tiles, uint32_t rows, uint32_t cols);
std::vector<uint16_t> untilize(std::span<const uint16_t> tiles, uint32_t rows, uint32_t cols);
std::vector<uint8_t> untilize(std::span<const uint8_t> tiles, uint32_t rows, uint32_t cols);

// ---- Packed formats ---------------------------------------------------------

// True for the formats pack_tiles and unpack_tiles accept: Float32,
// Float16_b, Bfp8_b, Bfp4_b, Int32, UInt32, UInt16, UInt8.
bool is_packable(DataFormat format);

// Tilized values (a whole number of tiles) to format's bytes, tile_size(format)
// per tile.
std::vector<uint8_t> pack_tiles(std::span<const float> tilized, DataFormat format);
// The same into caller memory: packed.size() == tilized.size() / kTileHW * tile_size(format).
void pack_tiles(std::span<const float> tilized, DataFormat format, std::span<uint8_t> packed);

// format's bytes (a whole number of tiles) to tilized floats, kTileHW per tile.
std::vector<float> unpack_tiles(std::span<const uint8_t> packed, DataFormat format);
// The same into caller memory: tilized.size() == packed.size() / tile_size(format) * kTileHW.
void unpack_tiles(std::span<const uint8_t> packed, DataFormat format, std::span<float> tilized);

} // namespace tessel
