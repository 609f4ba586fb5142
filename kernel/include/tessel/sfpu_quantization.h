// quantization.h: per-tensor affine quantization (quant_tile, requant_tile,
// dequant_tile and their int8 / uint8 forms, each init taking the zero
// point). Silicon rounds the scaled values with its stochastic-rounding unit
// in a mode Metalium does not document, so tessel cannot compute what
// silicon computes: the calls are declared, and a kernel that calls one does
// not build (one that only includes the header, as ttnn's binary kernels
// do, builds).
#ifndef TESSEL_SFPU_QUANTIZATION_H
#define TESSEL_SFPU_QUANTIZATION_H

#include "tessel/sfpu.h"

namespace ckernel {

namespace tessel_sfpu {
template <auto...>
inline constexpr bool quantization_not_modelled = false;
} // namespace tessel_sfpu

#define TESSEL_QUANT_NOT_MODELLED(name)                                                                                \
  static_assert(tessel_sfpu::quantization_not_modelled<N>,                                                             \
                "tessel: " #name " (quantization.h) is not modelled: silicon's rounding of the quantized values is "   \
                "not documented")

template <int N = 0>
ALWI void quant_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(quant_tile);
}

template <int N = 0>
ALWI void quant_int8_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(quant_int8_tile);
}

template <int N = 0>
ALWI void quant_uint8_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(quant_uint8_tile);
}

template <int N = 0>
ALWI void requant_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_tile);
}

template <int N = 0>
ALWI void requant_int8_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_tile);
}

template <int N = 0>
ALWI void requant_int8_in_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_in_tile);
}

template <int N = 0>
ALWI void requant_uint8_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_uint8_tile);
}

template <int N = 0>
ALWI void requant_int8_in_uint8_out_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_in_uint8_out_tile);
}

template <int N = 0>
ALWI void requant_int8_in_int8_out_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_in_int8_out_tile);
}

template <int N = 0>
ALWI void dequant_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(dequant_tile);
}

template <int N = 0>
ALWI void dequant_int8_tile(uint32_t, uint32_t, uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(dequant_int8_tile);
}

template <int N = 0>
ALWI void quant_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(quant_tile_init);
}

template <int N = 0>
ALWI void quant_uint8_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(quant_uint8_tile_init);
}

template <int N = 0>
ALWI void quant_int8_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(quant_int8_tile_init);
}

template <int N = 0>
ALWI void requant_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_tile_init);
}

template <int N = 0>
ALWI void requant_uint8_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_uint8_tile_init);
}

template <int N = 0>
ALWI void requant_int8_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_tile_init);
}

template <int N = 0>
ALWI void requant_int8_in_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_in_tile_init);
}

template <int N = 0>
ALWI void requant_int8_in_uint8_out_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_in_uint8_out_tile_init);
}

template <int N = 0>
ALWI void requant_int8_in_int8_out_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(requant_int8_in_int8_out_tile_init);
}

template <int N = 0>
ALWI void dequant_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(dequant_tile_init);
}

template <int N = 0>
ALWI void dequant_int8_tile_init(const uint32_t) {
  TESSEL_QUANT_NOT_MODELLED(dequant_int8_tile_init);
}

#undef TESSEL_QUANT_NOT_MODELLED

} // namespace ckernel

#endif // TESSEL_SFPU_QUANTIZATION_H
