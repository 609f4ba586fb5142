// mul.cc (tessel's kernel library): c = a * b over 1024 bfloat16 elements.
//   eltwise_mul_bf16_scalar(a, b, c), eltwise_mul_bf16_vector(a, b, c)
// Products are exact in fp32; the scalar form rounds them to nearest even,
// the vector form by the current rounding mode (through an accfloat
// accumulator, as on the AIE).
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

static constexpr int32_t kMulElems = 1024;

extern "C" {

void eltwise_mul_bf16_scalar(bfloat16* a_in, bfloat16* b_in, bfloat16* c_out) {
  for (int32_t i = 0; i < kMulElems; ++i)
    c_out[i] = a_in[i] * b_in[i];
}

void eltwise_mul_bf16_vector(bfloat16* a_in, bfloat16* b_in, bfloat16* c_out) {
  constexpr int lanes = 16;
  event0();
  AIE_PREPARE_FOR_PIPELINING
  for (int32_t i = 0; i < kMulElems; i += lanes) {
    aie::accum<accfloat, lanes> product = aie::mul(aie::load_v<lanes>(a_in + i), aie::load_v<lanes>(b_in + i));
    aie::store_v(c_out + i, product.to_vector<bfloat16>());
  }
  event1();
}

} // extern "C"
