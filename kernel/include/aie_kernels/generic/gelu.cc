// gelu.cc (tessel's kernel library): c = GELU(a) over 1024 bfloat16 elements,
// the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed in
// fp32 (within 1 fp32 ulp of tanh) and rounded to bfloat16 to nearest even.
//   gelu_bf16(a, c)
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

#include <cmath>

extern "C" {

void gelu_bf16(bfloat16* a_in, bfloat16* c_out) {
  constexpr int32_t elems = 1024;
  constexpr float k = 0.7978845608028654f; // sqrt(2 / pi)
  event0();
  AIE_PREPARE_FOR_PIPELINING
  for (int32_t i = 0; i < elems; ++i) {
    const float x = float(a_in[i]);
    c_out[i] = bfloat16(0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x))));
  }
  event1();
}

} // extern "C"
