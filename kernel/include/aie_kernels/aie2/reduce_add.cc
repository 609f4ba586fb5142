// reduce_add.cc (tessel's kernel library): *out = the sum of n int32 values
// (wrapping modulo 2^32, as the AIE's vector adds do).
//   reduce_add_vector(in, out, n), reduce_add_scalar(in, out, n)
#include <stdint.h>

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

extern "C" {

void reduce_add_scalar(int32_t* a_in, int32_t* c_out, int32_t input_size) {
  event0();
  uint32_t sum = 0;
  for (int32_t i = 0; i < input_size; ++i)
    sum += static_cast<uint32_t>(a_in[i]);
  *c_out = static_cast<int32_t>(sum);
  event1();
}

void reduce_add_vector(int32_t* a_in, int32_t* c_out, int32_t input_size) {
  constexpr int32_t lanes = 16;
  event0();
  aie::vector<int32_t, lanes> partial = aie::zeros<int32_t, lanes>();
  int32_t i = 0;
  AIE_PREPARE_FOR_PIPELINING
  AIE_LOOP_MIN_ITERATION_COUNT(8)
  for (; i + lanes <= input_size; i += lanes)
    partial = aie::add(partial, aie::load_v<lanes>(a_in + i));
  uint32_t sum = static_cast<uint32_t>(aie::reduce_add(partial));
  for (; i < input_size; ++i)
    sum += static_cast<uint32_t>(a_in[i]);
  *c_out = static_cast<int32_t>(sum);
  event1();
}

} // extern "C"
