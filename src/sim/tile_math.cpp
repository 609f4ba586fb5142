// Tile math (tile_math.hpp). The matmul inner kernel keeps a 2x32 block of
// the result in eight 8-float registers while it walks k, so each step is four
// loads of b, two broadcasts of a and eight fused multiply-adds.
#include "sim/tile_math.hpp"

#include "sim/formats.hpp"
#include "sim/simd.hpp"

#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

namespace {
template <bool kRound>
TESSEL_TILE_LOOP void from_rows_loop(const float* __restrict rows, float* __restrict tile) {
  for (uint32_t f = 0; f < 4; ++f)
    for (uint32_t r = 0; r < kFace; ++r) {
      const float* in = rows + ((f / 2) * kFace + r) * kDim + (f % 2) * kFace;
      float* out = tile + (f * kFace + r) * kFace;
      for (uint32_t c = 0; c < kFace; ++c)
        out[c] = kRound ? round_to_bf16(in[c]) : in[c];
    }
}
} // namespace

void from_rows_round(const float* rows, float* tile, bool round) {
  round ? from_rows_loop<true>(rows, tile) : from_rows_loop<false>(rows, tile);
}

void transpose_rows(const float* __restrict in, float* __restrict out) {
  for (uint32_t r = 0; r < kDim; ++r)
    for (uint32_t c = 0; c < kDim; ++c)
      out[c * kDim + r] = in[r * kDim + c];
}

namespace {

void matmul_portable(const float* __restrict a, const float* __restrict b, float* __restrict c) {
  for (uint32_t i = 0; i < kDim; ++i) {
    float acc[kDim];
    std::memcpy(acc, c + i * kDim, sizeof acc);
    for (uint32_t k = 0; k < kDim; ++k) {
      const float x = a[i * kDim + k];
      const float* brow = b + k * kDim;
      for (uint32_t j = 0; j < kDim; ++j)
        acc[j] += x * brow[j];
    }
    std::memcpy(c + i * kDim, acc, sizeof acc);
  }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void matmul_avx2(const float* __restrict a, const float* __restrict b,
                                                     float* __restrict c) {
  for (uint32_t i = 0; i < kDim; i += 2) {
    float* c0 = c + i * kDim;
    float* c1 = c0 + kDim;
    __m256 r00 = _mm256_loadu_ps(c0), r01 = _mm256_loadu_ps(c0 + 8), r02 = _mm256_loadu_ps(c0 + 16),
           r03 = _mm256_loadu_ps(c0 + 24);
    __m256 r10 = _mm256_loadu_ps(c1), r11 = _mm256_loadu_ps(c1 + 8), r12 = _mm256_loadu_ps(c1 + 16),
           r13 = _mm256_loadu_ps(c1 + 24);
    const float* a0 = a + i * kDim;
    const float* a1 = a0 + kDim;
    for (uint32_t k = 0; k < kDim; ++k) {
      const float* brow = b + k * kDim;
      const __m256 b0 = _mm256_loadu_ps(brow), b1 = _mm256_loadu_ps(brow + 8), b2 = _mm256_loadu_ps(brow + 16),
                   b3 = _mm256_loadu_ps(brow + 24);
      const __m256 x0 = _mm256_broadcast_ss(a0 + k), x1 = _mm256_broadcast_ss(a1 + k);
      r00 = _mm256_fmadd_ps(x0, b0, r00);
      r01 = _mm256_fmadd_ps(x0, b1, r01);
      r02 = _mm256_fmadd_ps(x0, b2, r02);
      r03 = _mm256_fmadd_ps(x0, b3, r03);
      r10 = _mm256_fmadd_ps(x1, b0, r10);
      r11 = _mm256_fmadd_ps(x1, b1, r11);
      r12 = _mm256_fmadd_ps(x1, b2, r12);
      r13 = _mm256_fmadd_ps(x1, b3, r13);
    }
    _mm256_storeu_ps(c0, r00);
    _mm256_storeu_ps(c0 + 8, r01);
    _mm256_storeu_ps(c0 + 16, r02);
    _mm256_storeu_ps(c0 + 24, r03);
    _mm256_storeu_ps(c1, r10);
    _mm256_storeu_ps(c1 + 8, r11);
    _mm256_storeu_ps(c1 + 16, r12);
    _mm256_storeu_ps(c1 + 24, r13);
  }
}

using MatmulFn = void (*)(const float*, const float*, float*);
MatmulFn pick_matmul() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? matmul_avx2 : matmul_portable;
}
const MatmulFn kMatmul = pick_matmul();
#endif

} // namespace

void matmul_rows_acc(const float* a, const float* b, float* c) {
#if defined(__x86_64__)
  kMatmul(a, b, c);
#else
  matmul_portable(a, b, c);
#endif
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
