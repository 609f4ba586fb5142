// TT-Metalium's tile and face dimensions (tt::constants).
#pragma once

#include <cstdint>

#include "tessel/data_format.hpp"
#include "tessel/tile.hpp"

namespace tt::constants {

inline constexpr uint32_t TILE_HEIGHT = tessel::kTileHeight;
inline constexpr uint32_t TILE_WIDTH = tessel::kTileWidth;
inline constexpr uint32_t TILE_HW = tessel::kTileHW;
inline constexpr uint32_t FACE_HEIGHT = tessel::kFaceHeight;
inline constexpr uint32_t FACE_WIDTH = tessel::kFaceWidth;
inline constexpr uint32_t FACE_HW = tessel::kFaceHW;
// Values plus the 64-byte shared-exponent section of a Bfp8_b tile.
inline constexpr uint32_t BFLOAT8_B_TILE_HW = TILE_HW + tessel::kBfpExponentBytes;

} // namespace tt::constants
