// Metalium's experimental SFPU function of the custom_sfpi_add example:
// my_add_tile_face(in0, in1, out) adds, on one face, DST tile in0 to tile in1
// into tile out (run per face by _llk_math_eltwise_binary_sfpu_params_, whose
// cursor starts at tile 0; a tile is 32 dst_reg slots, a face 8).
#pragma once

#include "tessel/llk_sfpu.h"

namespace ckernel::sfpu {

inline void my_add_tile_face(uint32_t dst_index_in0, uint32_t dst_index_in1, uint32_t dst_index_out) {
  constexpr int kSlotsPerTile = 32, kSlotsPerFace = 8;
  const int in0 = int(dst_index_in0) * kSlotsPerTile, in1 = int(dst_index_in1) * kSlotsPerTile;
  const int out = int(dst_index_out) * kSlotsPerTile;
  for (int i = 0; i < kSlotsPerFace; ++i)
    sfpi::dst_reg[out + i] = sfpi::vFloat(sfpi::dst_reg[in0 + i]) + sfpi::vFloat(sfpi::dst_reg[in1 + i]);
}

} // namespace ckernel::sfpu
