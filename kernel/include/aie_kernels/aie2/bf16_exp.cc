// bf16_exp.cc (tessel's kernel library): c = e^a over 1024 bfloat16 elements,
// computed in fp32 and rounded to bfloat16 by the current rounding mode.
//   exp_bf16_1024(a, c)
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

extern "C" {

void exp_bf16_1024(bfloat16* a_in, bfloat16* c_out) {
  constexpr int32_t lanes = 16, elems = 1024;
  event0();
  AIE_PREPARE_FOR_PIPELINING
  for (int32_t i = 0; i < elems; i += lanes)
    aie::store_v(c_out + i, aie::exp(aie::load_v<lanes>(a_in + i)));
  event1();
}

} // extern "C"
