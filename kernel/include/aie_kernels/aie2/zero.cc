// zero.cc (tessel's kernel library): templates that clear an M x N block,
// for kernels that include it ("zero.cc"), as mm.cc and mv.cc do.
//   zero_scalar<T, M, N>(c), zero_vectorized<T, M, N>(c)
// The vector form stores 256-bit vectors: M * N must be a multiple of
// 32 bytes' worth of T and c aligned to 32 bytes.
#ifndef TESSEL_AIE_KERNELS_ZERO_CC
#define TESSEL_AIE_KERNELS_ZERO_CC

#include <stdint.h>

#include <aie_api/aie.hpp>

template <typename T, int M, int N>
void zero_scalar(T* __restrict c) {
  for (int i = 0; i < M * N; ++i)
    c[i] = T(0);
}

template <typename T, int M, int N, int Unused = 0>
void zero_vectorized(T* __restrict c) {
  constexpr int lanes = 32 / sizeof(T);
  static_assert((M * N) % lanes == 0, "zero_vectorized: M * N must fill whole 256-bit vectors");
  const aie::vector<T, lanes> zeros = aie::zeros<T, lanes>();
  for (int i = 0; i < M * N; i += lanes)
    aie::store_v(c + i, zeros);
}

#endif
