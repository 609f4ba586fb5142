// SFPU bitwise ops between DST tiles (binary_bitwise_sfpu.h) and the DST
// copy (copy_dest_values.h).
//
// DST holds integer tiles as floats (the unpacker converts Int32, UInt32 and
// UInt16 values), so a bitwise op reads each operand as the integer it
// holds, applies the op to the two's complement integers and stores the
// result as the nearest float. Int32 operands give the Int32 result, UInt32
// and UInt16 operands the unsigned one (an integer of one format is never
// read as the other's, so one rule serves all three). Exact wherever the
// operands are exact: Int32 values in [-2^24, 2^24] and unsigned values up
// to 2^24 give results in the same range. A fraction is dropped toward
// zero, NaN reads as 0 and infinities saturate (none is an integer tile's
// value). The copy moves the float unchanged.
#include <cmath>

#include "sim/sfpu_support.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

using namespace sfpu_detail;

namespace {

int64_t as_integer(float x) {
  if (x != x) return 0;
  if (x >= 0x1p63f) return INT64_MAX;
  if (x < -0x1p63f) return INT64_MIN;
  return int64_t(x); // toward zero
}

template <class F>
void bitwise(const float* a, const float* b, float* out, F f) {
  binary_loop(a, b, out, [f](float x, float y) { return float(f(as_integer(x), as_integer(y))); });
}

} // namespace

bool sfpu_detail::sfpu_bitwise_binary(uint32_t op, const float* a, const float* b, float* out) {
  switch (op) {
  case TESSEL_SFPU_BINARY_BITWISE_AND: bitwise(a, b, out, [](int64_t x, int64_t y) { return x & y; }); return true;
  case TESSEL_SFPU_BINARY_BITWISE_OR: bitwise(a, b, out, [](int64_t x, int64_t y) { return x | y; }); return true;
  case TESSEL_SFPU_BINARY_BITWISE_XOR: bitwise(a, b, out, [](int64_t x, int64_t y) { return x ^ y; }); return true;
  case TESSEL_SFPU_BINARY_COPY: binary_loop(a, b, out, [](float x, float) { return x; }); return true;
  default: return false;
  }
}

} // namespace tessel::sim
