// transpose.cc (tessel's kernel library): transposes every S x S block of a
// DIM_n x DIM_m row-major matrix in place (the blocks stay where they are,
// the elements inside each block move): out[r0 + i][c0 + j] = in[r0 + j][c0 + i].
//   transpose_4x4(in, out), transpose_8x8(in, out)
// Elements are BIT_WIDTH (8, 16 or 32; default 16) bits wide; DIM_m and DIM_n
// (defaults 32) must be multiples of the block size.
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

#ifndef DIM_m
#define DIM_m 32
#endif
#ifndef DIM_n
#define DIM_n 32
#endif
#ifndef BIT_WIDTH
#define BIT_WIDTH 16
#endif

#if BIT_WIDTH == 8
using transpose_t = uint8_t;
#elif BIT_WIDTH == 16
using transpose_t = uint16_t;
#elif BIT_WIDTH == 32
using transpose_t = uint32_t;
#else
#error "transpose.cc: BIT_WIDTH must be 8, 16 or 32"
#endif

template <typename T, unsigned S>
static void transpose_blocks(const T* __restrict in, T* __restrict out) {
  static_assert(DIM_m % S == 0 && DIM_n % S == 0, "transpose.cc: DIM_m and DIM_n must be multiples of the block size");
  constexpr unsigned bits = S * S * sizeof(T) * 8;
  event0();
  for (unsigned r0 = 0; r0 < DIM_n; r0 += S)
    for (unsigned c0 = 0; c0 < DIM_m; c0 += S) {
      if constexpr (bits >= 128 && bits <= 1024) { // the block fits one vector register
        aie::vector<T, S * S> block;
        for (unsigned i = 0; i < S; ++i)
          for (unsigned j = 0; j < S; ++j)
            block[i * S + j] = in[(r0 + i) * DIM_m + c0 + j];
        aie::vector<T, S* S> moved = aie::transpose(block, S, S);
        for (unsigned i = 0; i < S; ++i)
          for (unsigned j = 0; j < S; ++j)
            out[(r0 + i) * DIM_m + c0 + j] = moved[i * S + j];
      } else {
        for (unsigned i = 0; i < S; ++i)
          for (unsigned j = 0; j < S; ++j)
            out[(r0 + i) * DIM_m + c0 + j] = in[(r0 + j) * DIM_m + c0 + i];
      }
    }
  event1();
}

extern "C" {

void transpose_4x4(transpose_t* in, transpose_t* out) { transpose_blocks<transpose_t, 4>(in, out); }
void transpose_8x8(transpose_t* in, transpose_t* out) { transpose_blocks<transpose_t, 8>(in, out); }

} // extern "C"
