// SFPU integer arithmetic between DST tiles (sub_int_sfpu.h, binary_shift.h,
// div_int32_sfpu.h, div_int32_floor.h, binary_fmod.h and binary_remainder.h's
// int32 forms, gcd.h, lcm.h): the binary ops of kernel_abi.h from
// TESSEL_SFPU_BINARY_FMOD_INT32 on.
//
// DST holds integer tiles as floats, so each operand is read as the integer
// it holds (sfpu_bitwise.cpp's rule: a fraction dropped toward zero, NaN as
// 0; magnitudes are clamped to 2^40) and the result is written as the nearest float: exact while operands
// and results stay within 2^24. The ops whose result can leave the format's
// range (subtraction, shifts) have one op per format (Int32, UInt32, UInt16)
// and wrap to it as silicon's integer units do; the others compute on the
// integers themselves. Integer division by zero, which Metalium leaves
// undefined, gives 0; div_int32 gives the float quotient (IEEE: +-inf, NaN
// for 0 / 0).
#include <cstdlib>
#include <numeric>

#include "sim/sfpu_support.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

using namespace sfpu_detail;

namespace {

// Integer tiles hold values below 2^32 in magnitude; larger values (and
// infinities) are clamped to +-2^40, which keeps every op below defined.
int64_t as_integer(float x) {
  constexpr float kLimit = 0x1p40f;
  if (x != x) return 0;
  return int64_t(x > kLimit ? kLimit : x < -kLimit ? -kLimit : x);
}

// The integer v in format `f` (0 Int32, 1 UInt32, 2 UInt16), as a float.
float wrap(int64_t v, uint32_t f) {
  const uint32_t word = uint32_t(uint64_t(v));
  return f == 0 ? float(int32_t(word)) : f == 1 ? float(word) : float(word & 0xffffu);
}

template <class F>
void integers(const float* a, const float* b, float* out, F f) {
  binary_loop(a, b, out, [f](float x, float y) { return f(as_integer(x), as_integer(y)); });
}

// Shifts on the format's word: amounts outside [0, 31] shift everything out.
float shift_left(int64_t x, int64_t s, uint32_t f) {
  const uint32_t word = uint32_t(uint64_t(x));
  return wrap(s < 0 || s > 31 ? 0 : int64_t(word << s), f);
}
float shift_right(int64_t x, int64_t s, uint32_t f) {
  const uint32_t word = uint32_t(uint64_t(x)) & (f == 2 ? 0xffffu : 0xffffffffu);
  if (f == 0) return float(int32_t(word) >> (s < 0 || s > 31 ? 31 : s)); // arithmetic: the sign fills
  return wrap(s < 0 || s > 31 ? 0 : int64_t(word >> s), f);
}
float shift_right_logical(int64_t x, int64_t s, uint32_t f) {
  const uint32_t word = uint32_t(uint64_t(x)) & (f == 2 ? 0xffffu : 0xffffffffu);
  return wrap(s < 0 || s > 31 ? 0 : int64_t(word >> s), f);
}

int64_t floor_div(int64_t x, int64_t y) {
  const int64_t q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

} // namespace

bool sfpu_detail::sfpu_integer_binary(uint32_t op, const float* a, const float* b, float* out) {
  if (op >= TESSEL_SFPU_BINARY_SUB_INT && op < TESSEL_SFPU_BINARY_LOGICAL_RIGHT_SHIFT + 3) {
    const uint32_t f = (op - TESSEL_SFPU_BINARY_SUB_INT) % 3; // Int32, UInt32, UInt16
    switch (op - f) {
    case TESSEL_SFPU_BINARY_SUB_INT: integers(a, b, out, [f](int64_t x, int64_t y) { return wrap(x - y, f); }); break;
    case TESSEL_SFPU_BINARY_RSUB_INT: integers(a, b, out, [f](int64_t x, int64_t y) { return wrap(y - x, f); }); break;
    case TESSEL_SFPU_BINARY_LEFT_SHIFT:
      integers(a, b, out, [f](int64_t x, int64_t y) { return shift_left(x, y, f); });
      break;
    case TESSEL_SFPU_BINARY_RIGHT_SHIFT:
      integers(a, b, out, [f](int64_t x, int64_t y) { return shift_right(x, y, f); });
      break;
    default: integers(a, b, out, [f](int64_t x, int64_t y) { return shift_right_logical(x, y, f); }); break;
    }
    return true;
  }
  switch (op) {
  case TESSEL_SFPU_BINARY_FMOD_INT32:
    integers(a, b, out, [](int64_t x, int64_t y) { return y == 0 ? 0.0f : float(x % y); });
    return true;
  case TESSEL_SFPU_BINARY_REMAINDER_INT32:
    integers(a, b, out, [](int64_t x, int64_t y) {
      if (y == 0) return 0.0f;
      const int64_t r = x % y;
      return float(r != 0 && (r < 0) != (y < 0) ? r + y : r);
    });
    return true;
  case TESSEL_SFPU_BINARY_DIV_INT32:
    integers(a, b, out, [](int64_t x, int64_t y) { return float(x) / float(y); });
    return true;
  case TESSEL_SFPU_BINARY_DIV_INT32_FLOOR:
    integers(a, b, out, [](int64_t x, int64_t y) { return y == 0 ? 0.0f : wrap(floor_div(x, y), 0); });
    return true;
  case TESSEL_SFPU_BINARY_DIV_INT32_TRUNC:
    integers(a, b, out, [](int64_t x, int64_t y) { return y == 0 ? 0.0f : wrap(x / y, 0); });
    return true;
  case TESSEL_SFPU_BINARY_GCD:
    integers(a, b, out, [](int64_t x, int64_t y) { return wrap(std::gcd(x, y), 0); });
    return true;
  case TESSEL_SFPU_BINARY_LCM:
    integers(a, b, out, [](int64_t x, int64_t y) {
      const int64_t g = std::gcd(x, y);
      return g == 0 ? 0.0f : wrap(int64_t(__int128(std::llabs(x) / g) * std::llabs(y)), 0);
    });
    return true;
  default: return false;
  }
}

} // namespace tessel::sim
