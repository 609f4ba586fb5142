// The matmul block kernel (matmul_kernel.hpp).
//
// Blocking. A row of a face-order tile is two runs of 16 floats, 256 apart,
// and rows 0..15 (16..31) sit in faces 0-1 (2-3), 16 floats apart. So a
// "panel" (16 columns of C and B: half h of every row) and a "strip" (rows
// of one face-row block) need no reordering:
//   A strip row r, k < 16:  a + r * 16 + k       k >= 16: + 256
//   B panel row k < 16:     b + k * 16           k >= 16: + 512
//   C strip row r:          c + r * 16 (16 floats)
// The AVX2 kernel keeps a strip of 6 (or 4) rows x one panel of C in 12 (8)
// registers for all of k: per k, two loads of B, six broadcasts of A and
// twelve fused multiply-adds, which keeps both FMA pipes of current x86
// cores busy (a 16-row block is strips of 6, 6 and 4 rows). Each panel of B
// (2 KiB) stays in L1 while every strip of A passes over it; C is loaded and
// stored once per call. The AVX-512 kernels (further down) hold whole rows.
#include "sim/matmul_kernel.hpp"

#include <cmath>
#include <utility>

#include "sim/formats.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessel::sim {

namespace {

constexpr uint32_t kFace = 16;

// ---- Portable: the same operations, one element at a time ----

inline uint32_t at(uint32_t r, uint32_t c) { return ((r >> 4) * 2 + (c >> 4)) * 256 + (r & 15) * kFace + (c & 15); }

void tile_pass_portable(const float* a, const float* b, uint32_t i, uint32_t j, float& acc) {
  for (uint32_t k = 0; k < 32; ++k)
    acc = std::fma(a[at(i, k)], b[at(k, j)], acc);
}

void block_portable(const MatmulBlock& m) {
  for (uint32_t r = 0; r < m.rt; ++r)
    for (uint32_t j = 0; j < m.ct; ++j) {
      float* c = m.c[r * m.ct + j];
      for (uint32_t i = 0; i < 32; ++i)
        for (uint32_t col = 0; col < 32; ++col) {
          float acc = c[at(i, col)];
          tile_pass_portable(m.a[r], m.b[j], i, col, acc);
          if (m.two_pass) tile_pass_portable(m.a2[r], m.b2[j], i, col, acc);
          c[at(i, col)] = m.round ? round_to_bf16(acc) : acc;
        }
    }
}

#if defined(__x86_64__)

#define TESSEL_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

// round_to_bf16 on 8 floats, bit for bit.
TESSEL_AVX2 __m256 round_bf16_avx2(__m256 v) {
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

// One k step over every row R of the strip: row R's two accumulators are
// lo[R] and hi[R]. The rows are a parameter pack, so every index is a
// constant and the accumulators stay in registers.
template <int kRows, int... R>
TESSEL_AVX2 void step(__m256 (&lo)[kRows], __m256 (&hi)[kRows], const float* a, const float* b,
                      std::integer_sequence<int, R...>) {
  const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
  __m256 x;
  ((x = _mm256_broadcast_ss(a + R * kFace), lo[R] = _mm256_fmadd_ps(x, b0, lo[R]),
    hi[R] = _mm256_fmadd_ps(x, b1, hi[R])),
   ...);
}

// lo/hi += this strip of A x this panel of B, k = 0..31 in order.
template <int kRows>
TESSEL_AVX2 void strip_pass(__m256 (&lo)[kRows], __m256 (&hi)[kRows], const float* a, const float* b) {
  for (int k = 0; k < int(kFace); ++k)
    step<kRows>(lo, hi, a + k, b + k * kFace, std::make_integer_sequence<int, kRows>());
  for (int k = 0; k < int(kFace); ++k)
    step<kRows>(lo, hi, a + 256 + k, b + 512 + k * kFace, std::make_integer_sequence<int, kRows>());
}

// round_to_bf16 for lanes that are neither NaN nor below the smallest normal
// (exponent field 0): round half to even on the 16 dropped bits.
TESSEL_AVX2 __m256 round_bf16_normal(__m256 v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  return _mm256_castsi256_ps(_mm256_and_si256(_mm256_add_epi32(bits, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))),
                                              _mm256_set1_epi32(int(0xffff0000u))));
}

// All ones in the lanes round_bf16_normal does not cover: NaN, or |v| < 2^-126.
TESSEL_AVX2 __m256 special_lanes(__m256 v) {
  const __m256 magnitude = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
  return _mm256_cmp_ps(magnitude, _mm256_set1_ps(0x1p-126f), _CMP_NGE_UQ);
}

// Stores the strip's rows, rounded to bfloat16 when kRound: with the short
// rounding when no lane needs round_bf16_avx2's cases for NaN and zero
// exponents (one test for the whole strip), with the full one otherwise.
template <bool kRound, int kRows, int... R>
TESSEL_AVX2 void store_rows(float* c, const __m256 (&lo)[kRows], const __m256 (&hi)[kRows],
                            std::integer_sequence<int, R...>) {
  if constexpr (!kRound) {
    ((_mm256_storeu_ps(c + R * kFace, lo[R]), _mm256_storeu_ps(c + R * kFace + 8, hi[R])), ...);
  } else {
    __m256 special = _mm256_setzero_ps();
    ((special = _mm256_or_ps(special, _mm256_or_ps(special_lanes(lo[R]), special_lanes(hi[R])))), ...);
    if (__builtin_expect(_mm256_movemask_ps(special) == 0, 1))
      ((_mm256_storeu_ps(c + R * kFace, round_bf16_normal(lo[R])),
        _mm256_storeu_ps(c + R * kFace + 8, round_bf16_normal(hi[R]))),
       ...);
    else
      ((_mm256_storeu_ps(c + R * kFace, round_bf16_avx2(lo[R])),
        _mm256_storeu_ps(c + R * kFace + 8, round_bf16_avx2(hi[R]))),
       ...);
  }
}

// The strip of kRows rows at c (rows R, 16 floats apart) += A x B (+ A2 x B2).
template <int kRows, bool kTwo, bool kRound, int... R>
TESSEL_AVX2 void strip_rows(const float* a, const float* b, const float* a2, const float* b2, float* c,
                            std::integer_sequence<int, R...> rows) {
  __m256 lo[kRows] = {_mm256_loadu_ps(c + R * kFace)...};
  __m256 hi[kRows] = {_mm256_loadu_ps(c + R * kFace + 8)...};
  strip_pass<kRows>(lo, hi, a, b);
  if constexpr (kTwo) strip_pass<kRows>(lo, hi, a2, b2);
  store_rows<kRound>(c, lo, hi, rows);
}

template <int kRows, bool kTwo, bool kRound>
__attribute__((target("avx2,fma"))) void strip(const float* a, const float* b, const float* a2, const float* b2,
                                               float* c) {
  strip_rows<kRows, kTwo, kRound>(a, b, a2, b2, c, std::make_integer_sequence<int, kRows>());
}

// Walks MatmulBlock's prefetch regions, a few lines at a time.
class Prefetcher {
public:
  explicit Prefetcher(const MatmulBlock& m, uint32_t steps) : m_(m) {
    uint32_t lines = 0;
    for (uint32_t i = 0; i < m.prefetch_count; ++i)
      lines += m.prefetch_lines[i];
    per_step_ = (lines + steps - 1) / steps;
  }
  void step() {
    for (uint32_t n = 0; n < per_step_ && region_ < m_.prefetch_count; ++n) {
      __builtin_prefetch(m_.prefetch[region_] + 64 * line_, 0, 2);
      if (++line_ == m_.prefetch_lines[region_]) line_ = 0, ++region_;
    }
  }

private:
  const MatmulBlock& m_;
  uint32_t per_step_ = 0, region_ = 0, line_ = 0;
};

template <bool kTwo, bool kRound>
__attribute__((target("avx2,fma"))) void block_avx2(const MatmulBlock& m) {
  Prefetcher prefetcher(m, m.ct * 2 * m.rt * 2);
  for (uint32_t j = 0; j < m.ct; ++j)
    for (uint32_t h = 0; h < 2; ++h) {
      const float* b = m.b[j] + h * 256;
      const float* b2 = kTwo ? m.b2[j] + h * 256 : nullptr;
      for (uint32_t r = 0; r < m.rt; ++r)
        for (uint32_t block = 0; block < 2; ++block) { // face-row block: rows 0..15, 16..31
          const uint32_t off = block * 512;
          const float* a = m.a[r] + off;
          const float* a2 = kTwo ? m.a2[r] + off : nullptr;
          float* c = m.c[r * m.ct + j] + off + h * 256;
          prefetcher.step();
          strip<6, kTwo, kRound>(a, b, a2, b2, c);
          strip<6, kTwo, kRound>(a + 6 * kFace, b, kTwo ? a2 + 6 * kFace : nullptr, b2, c + 6 * kFace);
          strip<4, kTwo, kRound>(a + 12 * kFace, b, kTwo ? a2 + 12 * kFace : nullptr, b2, c + 12 * kFace);
        }
    }
}

// ---- AVX-512: a strip is whole rows (both panels) ----
//
// A zmm register holds a panel's row, so a strip of R rows keeps all 32
// columns in 2R registers: per k, two loads of B (faces 0-1 or 2-3), R
// broadcasts of A and 2R fused multiply-adds. Rows 0..31 go in strips of
// 12, 12 and 8 (24, 24 and 16 accumulators of the 32 registers); a strip
// may cross from the first face-row block into the second, so every row's
// offset is a constant of its index.

#define TESSEL_AVX512 __attribute__((target("avx512f"), always_inline)) inline

// Row `row` (0..31) of a tile in face order: its first 16 columns; the other
// 16 are 256 floats further.
constexpr int row_at(int row) { return (row >> 4) * 512 + (row & 15) * int(kFace); }

// What round half to even adds before the low 16 bits are dropped: 0x7fff,
// or 0x8000 when bit 16 is set. (A mask and a blend: GCC 12's shifts by an
// immediate trip -Wmaybe-uninitialized inside its own header.)
TESSEL_AVX512 __m512i half_ulp_avx512(__m512i bits) {
  return _mm512_mask_blend_epi32(_mm512_test_epi32_mask(bits, _mm512_set1_epi32(0x10000)), _mm512_set1_epi32(0x7fff),
                                 _mm512_set1_epi32(0x8000));
}

// round_to_bf16 for lanes that are neither NaN nor below the smallest normal.
TESSEL_AVX512 __m512 round_bf16_normal_avx512(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  return _mm512_castsi512_ps(
      _mm512_and_si512(_mm512_add_epi32(bits, half_ulp_avx512(bits)), _mm512_set1_epi32(int(0xffff0000u))));
}

// round_to_bf16 on 16 floats, bit for bit: the normal rounding, then NaN
// (quieted, truncated) and zero exponents (signed zero) put right.
TESSEL_AVX512 __m512 round_bf16_avx512(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __mmask16 is_nan =
      _mm512_cmpgt_epi32_mask(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  const __mmask16 is_small = _mm512_testn_epi32_mask(bits, _mm512_set1_epi32(0x7f800000));
  const __m512i quiet_nan =
      _mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi32(int(0xffff0000u))), _mm512_set1_epi32(0x00400000));
  __m512i out = _mm512_mask_mov_epi32(_mm512_castps_si512(round_bf16_normal_avx512(v)), is_nan, quiet_nan);
  out = _mm512_mask_mov_epi32(out, is_small, _mm512_and_si512(bits, _mm512_set1_epi32(int(0x80000000u))));
  return _mm512_castsi512_ps(out);
}

// round_to_bf16 on 16 floats by the host's own conversion (AVX512_BF16's
// VCVTNEPS2BF16), then back to float: its rules are round_to_bf16's exactly
// (round half to even; NaN quieted and truncated; a zero exponent field to a
// signed zero; never MXCSR's), in two instructions where the arithmetic
// takes seven. Written as assembly: GCC's intrinsic needs the avx512bf16
// target on every function it is inlined into, which would let the compiler
// use AVX512_BF16 and AVX512BW anywhere in the AVX-512F kernel.
TESSEL_AVX512 __m512 round_bf16_native_avx512(__m512 v) {
  __m256i bf16;
  asm("vcvtneps2bf16 %1, %0" : "=v"(bf16) : "v"(v));
  // (Masked forms with every lane on: GCC 12's unmasked ones trip
  // -Wmaybe-uninitialized inside its own header, as noted above.)
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, bf16), 16));
}

// The lanes round_bf16_normal_avx512 does not cover: NaN, or |v| < 2^-126.
TESSEL_AVX512 __mmask16 special_lanes_avx512(__m512 v) {
  const __m512 magnitude = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff)));
  return _mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(0x1p-126f), _CMP_NGE_UQ);
}

// One k step over the strip's rows kFirst + R: a is A + k's column, b B's row k.
template <int kFirst, int kRows, int... R>
TESSEL_AVX512 void step512(__m512 (&lo)[kRows], __m512 (&hi)[kRows], const float* a, const float* b,
                           std::integer_sequence<int, R...>) {
  const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 256);
  __m512 x;
  ((x = _mm512_set1_ps(a[row_at(kFirst + R)]), lo[R] = _mm512_fmadd_ps(x, b0, lo[R]),
    hi[R] = _mm512_fmadd_ps(x, b1, hi[R])),
   ...);
}

template <int kFirst, int kRows>
TESSEL_AVX512 void strip_pass512(__m512 (&lo)[kRows], __m512 (&hi)[kRows], const float* a, const float* b) {
  for (int k = 0; k < int(kFace); ++k)
    step512<kFirst, kRows>(lo, hi, a + k, b + k * kFace, std::make_integer_sequence<int, kRows>());
  for (int k = 0; k < int(kFace); ++k)
    step512<kFirst, kRows>(lo, hi, a + 256 + k, b + 512 + k * kFace, std::make_integer_sequence<int, kRows>());
}

// How the AVX-512 kernels store a strip's rows: as they are, rounded by
// arithmetic, or rounded by the host's bfloat16 conversion.
enum class Store { Plain, Round, RoundNative };

template <Store kStore, int kFirst, int kRows, int... R>
TESSEL_AVX512 void store_rows512(float* c, const __m512 (&lo)[kRows], const __m512 (&hi)[kRows],
                                 std::integer_sequence<int, R...>) {
  if constexpr (kStore == Store::Plain) {
    ((_mm512_storeu_ps(c + row_at(kFirst + R), lo[R]), _mm512_storeu_ps(c + row_at(kFirst + R) + 256, hi[R])), ...);
  } else if constexpr (kStore == Store::RoundNative) {
    ((_mm512_storeu_ps(c + row_at(kFirst + R), round_bf16_native_avx512(lo[R])),
      _mm512_storeu_ps(c + row_at(kFirst + R) + 256, round_bf16_native_avx512(hi[R]))),
     ...);
  } else {
    __mmask16 special = 0;
    ((special = __mmask16(special | special_lanes_avx512(lo[R]) | special_lanes_avx512(hi[R]))), ...);
    if (__builtin_expect(special == 0, 1))
      ((_mm512_storeu_ps(c + row_at(kFirst + R), round_bf16_normal_avx512(lo[R])),
        _mm512_storeu_ps(c + row_at(kFirst + R) + 256, round_bf16_normal_avx512(hi[R]))),
       ...);
    else
      ((_mm512_storeu_ps(c + row_at(kFirst + R), round_bf16_avx512(lo[R])),
        _mm512_storeu_ps(c + row_at(kFirst + R) + 256, round_bf16_avx512(hi[R]))),
       ...);
  }
}

// Rows kFirst .. kFirst + kRows - 1 of the tile at c += A x B (+ A2 x B2).
template <int kFirst, int kRows, bool kTwo, Store kStore, int... R>
TESSEL_AVX512 void rows512(const float* a, const float* b, const float* a2, const float* b2, float* c,
                           std::integer_sequence<int, R...> rows) {
  __m512 lo[kRows] = {_mm512_loadu_ps(c + row_at(kFirst + R))...};
  __m512 hi[kRows] = {_mm512_loadu_ps(c + row_at(kFirst + R) + 256)...};
  strip_pass512<kFirst, kRows>(lo, hi, a, b);
  if constexpr (kTwo) strip_pass512<kFirst, kRows>(lo, hi, a2, b2);
  store_rows512<kStore, kFirst, kRows>(c, lo, hi, rows);
}

template <int kFirst, int kRows, bool kTwo, Store kStore>
__attribute__((target("avx512f"))) void strip512(const float* a, const float* b, const float* a2, const float* b2,
                                                 float* c) {
  rows512<kFirst, kRows, kTwo, kStore>(a, b, a2, b2, c, std::make_integer_sequence<int, kRows>());
}

template <bool kTwo, Store kStore>
__attribute__((target("avx512f"))) void block_avx512(const MatmulBlock& m) {
  Prefetcher prefetcher(m, m.ct * m.rt * 3);
  for (uint32_t j = 0; j < m.ct; ++j)
    for (uint32_t r = 0; r < m.rt; ++r) {
      const float *a = m.a[r], *b = m.b[j];
      const float *a2 = kTwo ? m.a2[r] : nullptr, *b2 = kTwo ? m.b2[j] : nullptr;
      float* c = m.c[r * m.ct + j];
      prefetcher.step();
      strip512<0, 12, kTwo, kStore>(a, b, a2, b2, c);
      prefetcher.step();
      strip512<12, 12, kTwo, kStore>(a, b, a2, b2, c);
      prefetcher.step();
      strip512<24, 8, kTwo, kStore>(a, b, a2, b2, c);
    }
}

#endif

template <bool kTwo, bool kRound>
void run_kernel(MatmulKernel kernel, const MatmulBlock& m) {
  switch (kernel) {
#if defined(__x86_64__)
  case MatmulKernel::Avx512Bf16: block_avx512<kTwo, kRound ? Store::RoundNative : Store::Plain>(m); return;
  case MatmulKernel::Avx512: block_avx512<kTwo, kRound ? Store::Round : Store::Plain>(m); return;
  case MatmulKernel::Avx2: block_avx2<kTwo, kRound>(m); return;
#endif
  default: block_portable(m); return;
  }
}

bool available(MatmulKernel kernel) {
#if defined(__x86_64__)
  __builtin_cpu_init();
#endif
  switch (kernel) {
  case MatmulKernel::Portable: return true;
#if defined(__x86_64__)
  case MatmulKernel::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case MatmulKernel::Avx512: return __builtin_cpu_supports("avx512f");
  case MatmulKernel::Avx512Bf16: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#endif
  default: return false;
  }
}

MatmulKernel best_kernel() {
  for (MatmulKernel kernel : {MatmulKernel::Avx512Bf16, MatmulKernel::Avx512, MatmulKernel::Avx2})
    if (available(kernel)) return kernel;
  return MatmulKernel::Portable;
}
const MatmulKernel kHostKernel = best_kernel();

} // namespace

bool matmul_kernel_available(MatmulKernel kernel) { return available(kernel); }

MatmulKernel matmul_host_kernel() { return kHostKernel; }

const char* matmul_kernel_name(MatmulKernel kernel) {
  switch (kernel) {
  case MatmulKernel::Portable: return "portable";
  case MatmulKernel::Avx2: return "avx2";
  case MatmulKernel::Avx512: return "avx512";
  case MatmulKernel::Avx512Bf16: return "avx512bf16";
  }
  return "?";
}

void matmul_block_acc(MatmulKernel kernel, const MatmulBlock& m) {
  if (m.two_pass)
    m.round ? run_kernel<true, true>(kernel, m) : run_kernel<true, false>(kernel, m);
  else
    m.round ? run_kernel<false, true>(kernel, m) : run_kernel<false, false>(kernel, m);
}

void matmul_block_acc(const MatmulBlock& m) { matmul_block_acc(kHostKernel, m); }

} // namespace tessel::sim
