// add.cc (tessel's kernel library): c = a + b over 1024 bfloat16 elements.
//   eltwise_add_bf16_scalar(a, b, c), eltwise_add_bf16_vector(a, b, c)
// The scalar form rounds each fp32 sum to nearest even; the vector form
// rounds by the current rounding mode (the AIE's vector add), so the two
// agree when the mode is conv_even.
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

static constexpr int32_t kAddElems = 1024;

extern "C" {

void eltwise_add_bf16_scalar(bfloat16* a_in, bfloat16* b_in, bfloat16* c_out) {
  for (int32_t i = 0; i < kAddElems; ++i)
    c_out[i] = a_in[i] + b_in[i];
}

void eltwise_add_bf16_vector(bfloat16* a_in, bfloat16* b_in, bfloat16* c_out) {
  constexpr int lanes = 16;
  event0();
  AIE_PREPARE_FOR_PIPELINING
  for (int32_t i = 0; i < kAddElems; i += lanes)
    aie::store_v(c_out + i, aie::add(aie::load_v<lanes>(a_in + i), aie::load_v<lanes>(b_in + i)));
  event1();
}

} // extern "C"
