// Blocked matrix multiply for tessel's kernel library (aie2/mm.cc,
// aie2p/mm.cc): C (m x n) += A (m x k) * B (k x n) on pre-tiled data.
//
// Layout (IRON's): A is stored as (m/r) x (k/s) tiles of r x s elements,
// B as (k/s) x (n/t) tiles of s x t, C as (m/r) x (n/t) tiles of r x t; the
// tiles are in row-major order and each tile's elements are row-major. With
// B_COL_MAJ, B is stored as (n/t) x (k/s) tiles of t x s (each the transpose
// of the s x t tile). Every tile is loaded with aie::load_v: A, B and C need
// 32-byte alignment.
#ifndef TESSEL_AIE_KERNELS_MM_BLOCKED_H
#define TESSEL_AIE_KERNELS_MM_BLOCKED_H

#include <stdint.h>

#include "aie_kernel_utils.h"
#include <aie_api/aie.hpp>

template <typename Tin, typename Tout, unsigned r, unsigned s, unsigned t, unsigned m, unsigned k, unsigned n,
          bool b_row_major>
static void matmul_blocked(const Tin* __restrict a, const Tin* __restrict b, Tout* __restrict c) {
  static_assert(m % r == 0 && k % s == 0 && n % t == 0,
                "mm.cc: DIM_M, DIM_K and DIM_N must be multiples of the tile shape r x s x t");
  using MMUL = aie::mmul<r, s, t, Tin, Tin>;
  constexpr unsigned row_tiles = m / r, inner_tiles = k / s, col_tiles = n / t;
  event0();
  for (unsigned z = 0; z < row_tiles; ++z)
    for (unsigned j = 0; j < col_tiles; ++j) {
      Tout* c_tile = c + (z * col_tiles + j) * MMUL::size_C;
      MMUL acc(aie::load_v<MMUL::size_C>(c_tile));
      AIE_PREPARE_FOR_PIPELINING
      for (unsigned i = 0; i < inner_tiles; ++i) {
        aie::vector<Tin, MMUL::size_A> a_tile = aie::load_v<MMUL::size_A>(a + (z * inner_tiles + i) * MMUL::size_A);
        aie::vector<Tin, MMUL::size_B> b_tile;
        if constexpr (b_row_major)
          b_tile = aie::load_v<MMUL::size_B>(b + (i * col_tiles + j) * MMUL::size_B);
        else
          b_tile = aie::transpose(aie::load_v<MMUL::size_B>(b + (j * inner_tiles + i) * MMUL::size_B), t, s);
        acc.mac(a_tile, b_tile);
      }
      aie::store_v(c_tile, acc.template to_vector<Tout>());
    }
  event1();
}

// The reference form: plain row-major A (m x k), B (k x n), C (m x n).
template <typename Tin, typename Tout, unsigned m, unsigned k, unsigned n>
static void matmul_rowmajor_scalar(const Tin* a, const Tin* b, Tout* c) {
  event0();
  for (unsigned row = 0; row < m; ++row)
    for (unsigned col = 0; col < n; ++col) {
      Tout sum = 0;
      for (unsigned i = 0; i < k; ++i)
        sum += a[row * k + i] * b[i * n + col];
      c[row * n + col] += sum;
    }
  event1();
}

#ifndef DIM_M
#define DIM_M 64
#endif
#ifndef DIM_K
#define DIM_K 64
#endif
#ifndef DIM_N
#define DIM_N 64
#endif
#ifdef B_COL_MAJ
static constexpr bool kMatmulBRowMajor = false;
#else
static constexpr bool kMatmulBRowMajor = true;
#endif

// The C functions of one (input, output) type pair: matmul_<in>_<out>,
// matmul_scalar_<in>_<out>, zero_<out> and zero_scalar_<out>.
#define TESSEL_MATMUL_FUNCTIONS(tin, in_name, tout, out_name, r, s, t)                                                 \
  void matmul_##in_name##_##out_name(tin* a_in, tin* b_in, tout* c_out) {                                              \
    matmul_blocked<tin, tout, r, s, t, DIM_M, DIM_K, DIM_N, kMatmulBRowMajor>(a_in, b_in, c_out);                      \
  }                                                                                                                    \
  void matmul_scalar_##in_name##_##out_name(tin* a_in, tin* b_in, tout* c_out) {                                       \
    matmul_rowmajor_scalar<tin, tout, DIM_M, DIM_K, DIM_N>(a_in, b_in, c_out);                                         \
  }                                                                                                                    \
  void zero_##out_name(tout* c_out) { zero_vectorized<tout, DIM_M, DIM_N>(c_out); }                                    \
  void zero_scalar_##out_name(tout* c_out) { zero_scalar<tout, DIM_M, DIM_N>(c_out); }

#endif
