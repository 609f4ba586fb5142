// TT-Metalium's tile and face dimensions (tt::constants), for kernels that
// include the host header: the same names and values, without the C++
// standard library.
#pragma once

#include <stdint.h>

namespace tt::constants {

inline constexpr uint32_t TILE_HEIGHT = 32;
inline constexpr uint32_t TILE_WIDTH = 32;
inline constexpr uint32_t TILE_HW = TILE_WIDTH * TILE_HEIGHT;
inline constexpr uint32_t FACE_HEIGHT = 16;
inline constexpr uint32_t FACE_WIDTH = 16;
inline constexpr uint32_t FACE_HW = FACE_WIDTH * FACE_HEIGHT;
// Values plus the 64-byte shared-exponent section of a Bfp8_b / Bfp4_b tile.
inline constexpr uint32_t BFLOAT8_B_TILE_HW = TILE_HW + 64;
inline constexpr uint32_t BFLOAT4_B_TILE_HW = TILE_HW / 2 + 64;

} // namespace tt::constants
