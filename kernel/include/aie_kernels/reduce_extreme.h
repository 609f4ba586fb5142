// The largest or smallest of n elements, by vectors then by element: shared
// by reduce_max.cc and reduce_min.cc of tessel's kernel library.
#ifndef TESSEL_AIE_KERNELS_REDUCE_EXTREME_H
#define TESSEL_AIE_KERNELS_REDUCE_EXTREME_H

#include <stdint.h>

#include "aie_kernel_utils.h"
#include <aie_api/aie.hpp>

template <bool Largest, typename T>
static inline T pick_extreme(T a, T b) {
  if constexpr (Largest)
    return b > a ? b : a;
  else
    return b < a ? b : a;
}

template <bool Largest, typename T>
static void reduce_extreme_scalar(const T* in, T* out, int32_t n) {
  event0();
  T best = Largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  for (int32_t i = 0; i < n; ++i)
    best = pick_extreme<Largest>(best, in[i]);
  *out = best;
  event1();
}

template <bool Largest, typename T>
static void reduce_extreme_vector(const T* __restrict in, T* __restrict out, int32_t n) {
  constexpr int32_t lanes = 64 / sizeof(T);
  event0();
  const T start = Largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  aie::vector<T, lanes> best = aie::broadcast<T, lanes>(start);
  int32_t i = 0;
  AIE_PREPARE_FOR_PIPELINING
  for (; i + lanes <= n; i += lanes) {
    if constexpr (Largest)
      best = aie::max(best, aie::load_v<lanes>(in + i));
    else
      best = aie::min(best, aie::load_v<lanes>(in + i));
  }
  T result = Largest ? aie::reduce_max(best) : aie::reduce_min(best);
  for (; i < n; ++i)
    result = pick_extreme<Largest>(result, in[i]);
  *out = result;
  event1();
}

#endif
