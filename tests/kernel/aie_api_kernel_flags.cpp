// The AIE API under the kernel JIT's language flags (-fno-exceptions
// -fno-rtti; this file is built with them): a kernel-shaped function using
// the API's main parts compiles and computes.
#include <aie_api/aie.hpp>
#include <aie_kernels/aie_kernel_utils.h>

#include <gtest/gtest.h>

namespace {

void scaled_sum(const int16_t* __restrict in, int32_t* __restrict out, int32_t n) {
  aie::accum<acc64, 16> acc;
  AIE_PREPARE_FOR_PIPELINING
  AIE_LOOP_RANGE(2, )
  for (int32_t i = 0; i < n; i += 16)
    chess_prepare_for_pipelining chess_loop_range(2, ) { acc = aie::mac(acc, aie::load_v<16>(in + i), int16_t(3)); }
  aie::store_v(out, acc.to_vector<int32_t>(1));
}

TEST(AieKernelFlags, AKernelShapedFunctionComputes) {
  alignas(32) int16_t in[64];
  alignas(32) int32_t out[16];
  for (int i = 0; i < 64; ++i)
    in[i] = int16_t(i);
  scaled_sum(in, out, 64);
  for (int lane = 0; lane < 16; ++lane) {
    int64_t want = 0;
    for (int k = 0; k < 4; ++k)
      want += 3 * (16 * k + lane);
    EXPECT_EQ(out[lane], int32_t(want >> 1));
  }
}

} // namespace
