// aie_api/aie.hpp on tessel: a portable, header-only implementation of the
// subset of AMD's AI Engine API that IRON's kernel library uses, so AIE
// kernels compile unchanged with the host compiler and run in tessel's
// simulator (docs/iron.md, "The AIE API on tessel").
//
//   types      aie::vector<T, N>, aie::mask<N>, aie::accum<acc32|acc64|accfloat, N>,
//              bfloat16, int8..uint32, v16int32-style register types
//   memory     load_v, store_v, load_unaligned_v, store_unaligned_v, begin_vector
//   arithmetic add sub mul mac msc neg abs max min, bit_and/or/xor/not,
//              pack/unpack (8 <-> 16 <-> 32-bit integers, also as members), vector_cast,
//              native_vector_length_v, accumulator concat and sub of a vector,
//              clamp, mac_square, scalar max/min/select/to_float/to_fixed,
//              upshift/downshift, lt le gt ge eq neq, select, reduce_add/min/max,
//              broadcast zeros concat, accumulate, mmul, aie::operators,
//              sliding_mul_ops (and _x/_y/_xy), sliding_mul, sliding_mac
//   lanes      shuffle_up/down(_fill/_rotate/_replicate), filter_even/odd,
//              interleave_zip/unzip, transpose, reverse
//   math       to_float to_fixed exp exp2 tanh inv invsqrt sqrt
//   modes      set_rounding/get_rounding, set_saturation/get_saturation
//
// Numerics are bit-accurate for integers (rounding and saturation modes,
// wrap-around) and within stated bounds for floating point; each detail
// header says which. Misuse the AIE compiler refuses is a static_assert; an
// unaligned load_v/store_v stops the kernel with a report (memory.hpp).
//
// Compile cost: nothing is instantiated until a kernel uses it. Including
// this header costs about 150 ms of g++ -O2 time (measured with g++ 12 on a
// kernel that includes it and uses nothing, against one that does not).
#ifndef TESSEL_AIE_API_AIE_HPP
#define TESSEL_AIE_API_AIE_HPP

#include <cassert>  // the AIE API checks its preconditions with assert; kernels use it through it too

#include "aie_api/detail/base.hpp"
#include "aie_api/detail/elementwise.hpp"
#include "aie_api/detail/intrinsics.hpp"
#include "aie_api/detail/math.hpp"
#include "aie_api/detail/memory.hpp"
#include "aie_api/detail/multiply.hpp"
#include "aie_api/detail/shuffle.hpp"
#include "aie_api/detail/sliding_mul.hpp"
#include "aie_api/detail/vector.hpp"

#endif
