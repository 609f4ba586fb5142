// cast_f32_bf16.cc (tessel's kernel library): out = in rounded to bfloat16,
// to nearest even (as numpy / ml_dtypes round), over n elements (a multiple
// of 16). The core's rounding mode is restored on return.
//   cast_f32_bf16_row(in, out, n)
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

extern "C" {

void cast_f32_bf16_row(float* in, bfloat16* out, int32_t n) {
  constexpr int32_t lanes = 16;
  const aie::rounding_mode saved = aie::get_rounding();
  aie::set_rounding(aie::rounding_mode::conv_even);
  event0();
  AIE_PREPARE_FOR_PIPELINING
  for (int32_t i = 0; i < n; i += lanes) {
    aie::accum<accfloat, lanes> acc(aie::load_v<lanes>(in + i));
    aie::store_v(out + i, acc.to_vector<bfloat16>());
  }
  event1();
  aie::set_rounding(saved);
}

} // extern "C"
