// silu.cc (tessel's kernel library): c = SiLU(a) = a * sigmoid(a) over 1024
// bfloat16 elements, computed in fp32 (within 1 fp32 ulp of expf) and rounded
// to bfloat16 to nearest even.
//   silu_bf16(a, c)
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

#include <cmath>

extern "C" {

void silu_bf16(bfloat16* a_in, bfloat16* c_out) {
  constexpr int32_t elems = 1024;
  event0();
  AIE_PREPARE_FOR_PIPELINING
  for (int32_t i = 0; i < elems; ++i) {
    const float x = float(a_in[i]);
    c_out[i] = bfloat16(x / (1.0f + std::exp(-x)));
  }
  event1();
}

} // extern "C"
