// scale.cc (tessel's kernel library): out = in * factor, element-wise.
//   vector_scalar_mul_int16_vector / _scalar (int16 in and out)
//   vector_scalar_mul_int32_vector / _scalar (int32 in and out)
//   vector_scalar_mul_vector / _scalar: int16 or int32 by BIT_WIDTH (default 16)
//   vector_scalar_mul_aie / _aie_scalar: int32
// All take (in, out, factor[1] as int32, N). The product is exact in the
// accumulator and kept modulo 2^width on the way out (the AIE's default
// rounding and saturation, shift 0). The vector forms need N a multiple of 32.
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

template <typename T>
static void scale_by_element(const T* in, T* out, int32_t factor, int32_t n) {
  event0();
  for (int32_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(static_cast<uint32_t>(in[i]) * static_cast<uint32_t>(factor));
  event1();
}

template <typename T>
static void scale_by_vector(const T* __restrict in, T* __restrict out, int32_t factor, int32_t n) {
  constexpr int lanes = 32;
  using Acc = std::conditional_t<sizeof(T) == 4, acc64, acc32>;
  const T f = static_cast<T>(factor);
  event0();
  AIE_PREPARE_FOR_PIPELINING
  AIE_LOOP_MIN_ITERATION_COUNT(16)
  for (int32_t i = 0; i < n; i += lanes) {
    aie::accum<Acc, lanes> product = aie::mul(aie::load_v<lanes>(in + i), f);
    aie::store_v(out + i, product.template to_vector<T>(0));
  }
  event1();
}

#ifndef BIT_WIDTH
#define BIT_WIDTH 16
#endif
#if BIT_WIDTH == 32
using scale_t = int32_t;
#else
using scale_t = int16_t;
#endif

extern "C" {

void vector_scalar_mul_int16_scalar(int16_t* a_in, int16_t* c_out, int32_t* factor, int32_t N) {
  scale_by_element(a_in, c_out, *factor, N);
}
void vector_scalar_mul_int16_vector(int16_t* a_in, int16_t* c_out, int32_t* factor, int32_t N) {
  scale_by_vector(a_in, c_out, *factor, N);
}
void vector_scalar_mul_int32_scalar(int32_t* a_in, int32_t* c_out, int32_t* factor, int32_t N) {
  scale_by_element(a_in, c_out, *factor, N);
}
void vector_scalar_mul_int32_vector(int32_t* a_in, int32_t* c_out, int32_t* factor, int32_t N) {
  scale_by_vector(a_in, c_out, *factor, N);
}
void vector_scalar_mul_scalar(scale_t* a_in, scale_t* c_out, int32_t* factor, int32_t N) {
  scale_by_element(a_in, c_out, *factor, N);
}
void vector_scalar_mul_vector(scale_t* a_in, scale_t* c_out, int32_t* factor, int32_t N) {
  scale_by_vector(a_in, c_out, *factor, N);
}
void vector_scalar_mul_aie(int32_t* a_in, int32_t* c_out, int32_t* factor, int32_t N) {
  scale_by_vector(a_in, c_out, *factor, N);
}
void vector_scalar_mul_aie_scalar(int32_t* a_in, int32_t* c_out, int32_t* factor, int32_t N) {
  scale_by_element(a_in, c_out, *factor, N);
}

} // extern "C"
