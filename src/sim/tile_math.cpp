// Tile math (tile_math.hpp).
#include "sim/tile_math.hpp"

#include <bit>
#include <cstring>

namespace tessel::sim {

namespace {
constexpr uint32_t kFace = 16;
constexpr uint32_t kDim = 32;
} // namespace

void to_rows(const float* tile, float* rows) {
  for (uint32_t f = 0; f < 4; ++f)
    for (uint32_t r = 0; r < kFace; ++r)
      std::memcpy(rows + ((f / 2) * kFace + r) * kDim + (f % 2) * kFace, tile + (f * kFace + r) * kFace,
                  kFace * sizeof(float));
}

void from_rows(const float* rows, float* tile) {
  for (uint32_t f = 0; f < 4; ++f)
    for (uint32_t r = 0; r < kFace; ++r)
      std::memcpy(tile + (f * kFace + r) * kFace, rows + ((f / 2) * kFace + r) * kDim + (f % 2) * kFace,
                  kFace * sizeof(float));
}

void transpose_rows(const float* __restrict in, float* __restrict out) {
  for (uint32_t r = 0; r < kDim; ++r)
    for (uint32_t c = 0; c < kDim; ++c)
      out[c * kDim + r] = in[r * kDim + c];
}

void transpose_tile(const float* __restrict in, float* __restrict out) {
  // Face (fr, fc) of out is face (fc, fr) of in, transposed.
  for (uint32_t f = 0; f < 4; ++f) {
    const float* src = in + ((f % 2) * 2 + f / 2) * kFace * kFace;
    float* dst = out + f * kFace * kFace;
    for (uint32_t r = 0; r < kFace; ++r)
      for (uint32_t c = 0; c < kFace; ++c)
        dst[r * kFace + c] = src[c * kFace + r];
  }
}

void keep_mantissa_bits(float* tile, uint32_t bits) {
  const uint32_t mask = ~((1u << (23 - bits)) - 1u);
  for (uint32_t i = 0; i < kTileHW; ++i)
    tile[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(tile[i]) & mask);
}

void prepare_srca(uint32_t fidelity, float* a, float* a2) {
  if (fidelity == 0) keep_mantissa_bits(a, kSrcAHiBits); // LoFi: hi(A)
  if (fidelity == 3) {                                   // HiFi3: A x hi(B) + hi(A) x lo(B)
    std::memcpy(a2, a, kTileHW * sizeof(float));
    keep_mantissa_bits(a2, kSrcAHiBits);
  }
  // HiFi2 and HiFi4 use all of A.
}

void prepare_srcb(uint32_t fidelity, float* b, float* b2) {
  if (fidelity == 3)
    for (uint32_t i = 0; i < kTileHW; ++i) {
      const float hi = keep_mantissa_bits(b[i], kSrcBHiBits);
      b2[i] = b[i] - hi; // exact: the bits below hi(B)
      b[i] = hi;
    }
  else if (fidelity < 3)
    keep_mantissa_bits(b, kSrcBHiBits); // LoFi and HiFi2 use hi(B) only
}

} // namespace tessel::sim
