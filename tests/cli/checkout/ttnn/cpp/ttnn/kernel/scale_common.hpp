#pragma once
#include <cstdint>

inline uint32_t scale_tiles(uint32_t tiles) { return tiles * SCALE_FACTOR; }
