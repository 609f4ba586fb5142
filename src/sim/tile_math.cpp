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

void transpose_rows(const float* __restrict in, float* __restrict out) {
  for (uint32_t r = 0; r < kDim; ++r)
    for (uint32_t c = 0; c < kDim; ++c)
      out[c * kDim + r] = in[r * kDim + c];
}

namespace {

// Row r of a face-order tile: its first 16 values; the other 16 are 256 later.
inline const float* row_of(const float* t, uint32_t r) { return t + (r >> 4) * 512 + (r & 15) * 16; }
inline float* row_of(float* t, uint32_t r) { return t + (r >> 4) * 512 + (r & 15) * 16; }
// Element k of a row (k < 32).
inline uint32_t col(uint32_t k) { return (k & 15) + (k >> 4) * 256; }

void matmul_portable(const float* __restrict a, const float* __restrict b, float* __restrict c, bool round) {
  for (uint32_t i = 0; i < kDim; ++i) {
    float acc[kDim];
    float* crow = row_of(c, i);
    for (uint32_t j = 0; j < kDim; ++j)
      acc[j] = crow[col(j)];
    const float* arow = row_of(a, i);
    for (uint32_t k = 0; k < kDim; ++k) {
      const float x = arow[col(k)];
      const float* brow = row_of(b, k);
      for (uint32_t j = 0; j < kFace; ++j) {
        acc[j] += x * brow[j];
        acc[kFace + j] += x * brow[256 + j];
      }
    }
    for (uint32_t j = 0; j < kDim; ++j)
      crow[col(j)] = round ? round_to_bf16(acc[j]) : acc[j];
  }
}

#if defined(__x86_64__)
// round_to_bf16 on 8 floats, bit for bit.
__attribute__((target("avx2,fma"))) inline __m256 round_bf16_avx2(__m256 v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb),
                                           _mm256_set1_epi32(int(0xffff0000u)));
  const __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
  const __m256i is_nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
  const __m256i quiet_nan =
      _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(int(0xffff0000u))), _mm256_set1_epi32(0x00400000));
  const __m256i is_small =
      _mm256_cmpeq_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x7f800000)), _mm256_setzero_si256());
  const __m256i signed_zero = _mm256_and_si256(bits, _mm256_set1_epi32(int(0x80000000u)));
  __m256i out = _mm256_blendv_epi8(rounded, quiet_nan, is_nan);
  out = _mm256_blendv_epi8(out, signed_zero, is_small);
  return _mm256_castsi256_ps(out);
}

// Stores 4 vectors (one row) to c's row, rounded when `round`.
__attribute__((target("avx2,fma"), always_inline)) inline void store_row(float* crow, __m256 v0, __m256 v1, __m256 v2,
                                                                         __m256 v3, bool round) {
  if (round) v0 = round_bf16_avx2(v0), v1 = round_bf16_avx2(v1), v2 = round_bf16_avx2(v2), v3 = round_bf16_avx2(v3);
  _mm256_storeu_ps(crow, v0);
  _mm256_storeu_ps(crow + 8, v1);
  _mm256_storeu_ps(crow + 256, v2);
  _mm256_storeu_ps(crow + 264, v3);
}

// Rows i and i+1 of c += a x b: eight accumulators (a row is four 8-float
// vectors), each walking k in order; per k, four loads of b, two broadcasts
// of a and eight fused multiply-adds. (Three rows with b as memory operands,
// twelve accumulators, measured no faster on the hosts here.)
__attribute__((target("avx2,fma"))) void matmul_2rows(const float* __restrict a, const float* __restrict b,
                                                      float* __restrict c, uint32_t i, bool round) {
  float *c0 = row_of(c, i), *c1 = row_of(c, i + 1);
  __m256 r00 = _mm256_loadu_ps(c0), r01 = _mm256_loadu_ps(c0 + 8), r02 = _mm256_loadu_ps(c0 + 256),
         r03 = _mm256_loadu_ps(c0 + 264);
  __m256 r10 = _mm256_loadu_ps(c1), r11 = _mm256_loadu_ps(c1 + 8), r12 = _mm256_loadu_ps(c1 + 256),
         r13 = _mm256_loadu_ps(c1 + 264);
  const float *a0 = row_of(a, i), *a1 = row_of(a, i + 1);
  for (uint32_t k = 0; k < kDim; ++k) {
    const float* brow = row_of(b, k);
    const __m256 x0 = _mm256_broadcast_ss(a0 + col(k)), x1 = _mm256_broadcast_ss(a1 + col(k));
    const __m256 b0 = _mm256_loadu_ps(brow), b1 = _mm256_loadu_ps(brow + 8), b2 = _mm256_loadu_ps(brow + 256),
                 b3 = _mm256_loadu_ps(brow + 264);
    r00 = _mm256_fmadd_ps(x0, b0, r00), r01 = _mm256_fmadd_ps(x0, b1, r01);
    r02 = _mm256_fmadd_ps(x0, b2, r02), r03 = _mm256_fmadd_ps(x0, b3, r03);
    r10 = _mm256_fmadd_ps(x1, b0, r10), r11 = _mm256_fmadd_ps(x1, b1, r11);
    r12 = _mm256_fmadd_ps(x1, b2, r12), r13 = _mm256_fmadd_ps(x1, b3, r13);
  }
  store_row(c0, r00, r01, r02, r03, round);
  store_row(c1, r10, r11, r12, r13, round);
}

__attribute__((target("avx2,fma"))) void matmul_avx2(const float* __restrict a, const float* __restrict b,
                                                     float* __restrict c, bool round) {
  for (uint32_t i = 0; i < kDim; i += 2)
    matmul_2rows(a, b, c, i, round);
}

using MatmulFn = void (*)(const float*, const float*, float*, bool);
MatmulFn pick_matmul() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? matmul_avx2 : matmul_portable;
}
const MatmulFn kMatmul = pick_matmul();
#endif

} // namespace

void matmul_tile_acc(const float* a, const float* b, float* c, bool round) {
#if defined(__x86_64__)
  kMatmul(a, b, c, round);
#else
  matmul_portable(a, b, c, round);
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
