// relu.cc (tessel's kernel library): c = max(a, 0) over 1024 bfloat16
// elements (exact; -0 and NaN pass through as max(x, +0) gives them).
//   bf16_relu(a, c)
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

extern "C" {

void bf16_relu(bfloat16* a_in, bfloat16* c_out) {
  constexpr int32_t lanes = 32, elems = 1024;
  const aie::vector<bfloat16, lanes> zero = aie::zeros<bfloat16, lanes>();
  event0();
  AIE_PREPARE_FOR_PIPELINING
  for (int32_t i = 0; i < elems; i += lanes)
    aie::store_v(c_out + i, aie::max(aie::load_v<lanes>(a_in + i), zero));
  event1();
}

} // extern "C"
