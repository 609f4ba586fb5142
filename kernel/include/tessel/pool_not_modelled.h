// Compute calls of TT-Metalium's pooling kernels that tessel does not model.
// Each one's result depends on the face geometry of the CB it unpacks (a
// tile's face_r_dim and number of faces, set per CB by the host), which
// tessel's CBs do not carry: every tile is 32x32 in four 16x16 faces.
//   - tilizeA_B_reduce_init, llk_unpack_tilizeA_B_init, unpack_tilizeA_B_block,
//     unpack_tilizeA_B_uninit: the unpacker tilizing a block of row-major
//     sticks into SrcA (filling the rows it does not load with zero or -inf)
//     beside a scaler tile in SrcB;
//   - reduce_tile_math: the math half of reduce_tile over whatever those
//     left in the source registers;
//   - max_reduce_with_indices_init, max_reduce_with_indices: max pool with
//     indices, an SFPU sort of the rows DST holds in the layout the unpacker
//     gave them (DataLayout::ROW_MAJOR: the faces' rows interleaved).
// Including the headers that declare them builds; calling one fails to
// compile, naming it.
#pragma once
#include <stdint.h>

namespace ckernel {

// The layout of the rows in DST that max pool with indices sorts.
enum class DataLayout { TILE = 0, ROW_MAJOR = 1 };

#define TESSEL_POOL_NOT_MODELLED(name, what)                                                                           \
  template <auto... params, typename... Args>                                                                          \
  void name(Args...) {                                                                                                 \
    static_assert(sizeof...(Args) + sizeof...(params) > 1000,                                                          \
                  #name " is not supported by tessel: " what " is not modelled");                                      \
  }
#define TESSEL_TILIZE_AB                                                                                               \
  "the unpacker's tilize of a block of sticks beside a scaler (tilizeA_B), whose result depends "                      \
  "on the CB's face geometry,"
TESSEL_POOL_NOT_MODELLED(tilizeA_B_reduce_init, TESSEL_TILIZE_AB)
TESSEL_POOL_NOT_MODELLED(llk_unpack_tilizeA_B_init, TESSEL_TILIZE_AB)
TESSEL_POOL_NOT_MODELLED(unpack_tilizeA_B_block, TESSEL_TILIZE_AB)
TESSEL_POOL_NOT_MODELLED(unpack_tilizeA_B_uninit, TESSEL_TILIZE_AB)
TESSEL_POOL_NOT_MODELLED(reduce_tile_math, "the math half of reduce_tile (over source registers an unpack call left), "
                                           "used only after the tilizeA_B unpack,")
#define TESSEL_MPWI "max pool with indices (an SFPU sort of rows in the layout the CB's face geometry gave them)"
TESSEL_POOL_NOT_MODELLED(max_reduce_with_indices_init, TESSEL_MPWI)
TESSEL_POOL_NOT_MODELLED(max_reduce_with_indices, TESSEL_MPWI)
#undef TESSEL_MPWI
#undef TESSEL_TILIZE_AB
#undef TESSEL_POOL_NOT_MODELLED

} // namespace ckernel

using ckernel::llk_unpack_tilizeA_B_init;
using ckernel::max_reduce_with_indices;
using ckernel::max_reduce_with_indices_init;
using ckernel::reduce_tile_math;
using ckernel::tilizeA_B_reduce_init;
using ckernel::unpack_tilizeA_B_block;
using ckernel::unpack_tilizeA_B_uninit;
