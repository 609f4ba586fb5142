// <lut_based_ops.h> on tessel: the lookup-table functions IRON's bf16 kernels
// call. The AIE reads e^x and tanh from tables; tessel computes them in fp32
// (expf, tanhf: within 1 ulp of fp32), so results are closer than the AIE's.
#ifndef TESSEL_LUT_BASED_OPS_H
#define TESSEL_LUT_BASED_OPS_H

#include "aie_api/aie.hpp"

#include <cmath>

// e^x of 16 bfloat16 lanes, in fp32 accumulator lanes.
inline v16accfloat getExpBf16(const v16bfloat16& x) {
  v16accfloat r;
  for (unsigned i = 0; i < 16; ++i)
    r.lanes_[i] = std::exp(float(x.elems_[i]));
  return r;
}

// tanh(x) of 16 bfloat16 lanes, rounded to bfloat16 by the current mode.
inline v16bfloat16 getTanhBf16(const v16bfloat16& x) {
  v16bfloat16 r;
  for (unsigned i = 0; i < 16; ++i)
    r.elems_[i] = aie::detail::round_to_bf16(std::tanh(float(x.elems_[i])), aie::get_rounding());
  return r;
}

#endif
