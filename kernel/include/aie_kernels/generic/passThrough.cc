// passThrough.cc (tessel's kernel library): copies a line or a tile.
//   passThroughLine(in, out, lineWidth)
//   passThroughTile(in, out, tileHeight, tileWidth)
// Elements are BIT_WIDTH (8, 16 or 32; default 32) bits wide: uint8_t,
// int16_t or int32_t. Whole 64-byte vectors are copied with vector loads and
// stores (so in and out need 32-byte alignment), any remainder element by
// element.
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

#ifndef BIT_WIDTH
#define BIT_WIDTH 32
#endif

#if BIT_WIDTH == 8
using pass_through_t = uint8_t;
#elif BIT_WIDTH == 16
using pass_through_t = int16_t;
#elif BIT_WIDTH == 32
using pass_through_t = int32_t;
#else
#error "passThrough.cc: BIT_WIDTH must be 8, 16 or 32"
#endif

template <typename T>
static void pass_through_copy(const T* __restrict in, T* __restrict out, int32_t count) {
  constexpr int32_t lanes = 64 / sizeof(T);
  event0();
  int32_t i = 0;
  AIE_PREPARE_FOR_PIPELINING
  for (; i + lanes <= count; i += lanes)
    aie::store_v(out + i, aie::load_v<lanes>(in + i));
  for (; i < count; ++i)
    out[i] = in[i];
  event1();
}

extern "C" {

void passThroughLine(pass_through_t* in, pass_through_t* out, int32_t lineWidth) {
  pass_through_copy(in, out, lineWidth);
}

void passThroughTile(pass_through_t* in, pass_through_t* out, int32_t tileHeight, int32_t tileWidth) {
  pass_through_copy(in, out, tileHeight * tileWidth);
}

} // extern "C"
