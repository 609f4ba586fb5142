// The values of an IRON worker body written in Python (tessel.iron's
// values.py): element loads and stores on acquired objects and Buffers, and
// the arithmetic of MLIR's arith dialect on them, which is what IRON lowers
// such a body to.
//
// Integer arithmetic wraps at the element's width (arith.addi and friends
// are modular); what arith leaves undefined (a division by zero, the
// smallest value divided by -1, a shift by the width or more) stops the
// kernel with a report naming the Python line. bfloat16 values are computed
// in float and rounded to bfloat16 (to nearest, ties to even) after every
// operation, as the lowering extends, computes and truncates each one.
// Every load and store checks its index against the object's element count.
#ifndef TESSEL_IRON_VALUES_H
#define TESSEL_IRON_VALUES_H

#include "tessel/bf16_round.h"
#include "tessel/kernel_common.h"

namespace iron {

// An element type tag for bfloat16: stored as 16 bits, computed as float.
struct bf16 {};

template <class T>
inline constexpr bool is_bf16 = false;
template <>
inline constexpr bool is_bf16<bf16> = true;

template <class T>
struct elem {
  using storage = T;
  using value = T;
};
template <>
struct elem<bf16> {
  using storage = uint16_t;
  using value = float;
};

// A float rounded to bfloat16 precision (a bfloat16 operation's result).
inline float rbf(float f) { return tessel_bf16::to_float(tessel_bf16::from_float(f)); }

// Stops the kernel with `message`, reported at file:line.
[[noreturn]] inline void fail(const char* message, const char* file, uint32_t line) {
  tessel_kernel_ctx* ctx = tessel_ctx();
  ctx->api->fail(ctx, message, file, line);
  __builtin_unreachable();
}

[[noreturn]] inline void index_fail(const char* what, int64_t index, uint32_t count, const char* file, uint32_t line) {
  char message[192];
  __builtin_snprintf(message, sizeof message, "%s: index %lld is outside its %u elements (expected 0 to %u)", what,
                     (long long)index, count, count ? count - 1 : 0);
  fail(message, file, line);
}

// One dimension of a multi-dimensional index: i, checked against the dimension's n.
inline int64_t dim(int64_t i, uint32_t n, const char* what, uint32_t axis, const char* file, uint32_t line) {
  if (uint64_t(i) >= n) {
    char message[192];
    __builtin_snprintf(message, sizeof message, "%s: index %lld of dimension %u is outside 0 to %u", what,
                       (long long)i, axis, n ? n - 1 : 0);
    fail(message, file, line);
  }
  return i;
}

// Element `index` of an array of `count` T. A Buffer the host writes while
// the kernel runs (a runtime parameter) is read with Volatile.
template <class T, bool Volatile = false>
inline typename elem<T>::value load(const void* base, int64_t index, uint32_t count, const char* what,
                                    TESSEL_SITE_PARAMS) {
  if (uint64_t(index) >= count) index_fail(what, index, count, TESSEL_SITE);
  using S = typename elem<T>::storage;
  const S s = Volatile ? static_cast<const volatile S*>(base)[index] : static_cast<const S*>(base)[index];
  if constexpr (is_bf16<T>)
    return tessel_bf16::to_float(s);
  else
    return s;
}

template <class T>
inline void store(void* base, int64_t index, uint32_t count, typename elem<T>::value v, const char* what,
                  TESSEL_SITE_PARAMS) {
  if (uint64_t(index) >= count) index_fail(what, index, count, TESSEL_SITE);
  if constexpr (is_bf16<T>)
    static_cast<uint16_t*>(base)[index] = tessel_bf16::from_float(v);
  else
    static_cast<T*>(base)[index] = v;
}

// The integer element types: their unsigned counterpart (at least int's
// width, so that arithmetic on it does not promote back to int) and least value.
template <class T>
struct int_info {
  static constexpr bool integral = false;
};
#define TESSEL_IRON_INT(T, U, MIN)                                                                                     \
  template <>                                                                                                          \
  struct int_info<T> {                                                                                                 \
    static constexpr bool integral = true;                                                                             \
    static constexpr bool is_signed = T(-1) < T(0);                                                                    \
    static constexpr T least = MIN;                                                                                    \
    using unsigned_type = U;                                                                                           \
  };
TESSEL_IRON_INT(int8_t, uint32_t, -128)
TESSEL_IRON_INT(uint8_t, uint32_t, 0)
TESSEL_IRON_INT(int16_t, uint32_t, -32768)
TESSEL_IRON_INT(uint16_t, uint32_t, 0)
TESSEL_IRON_INT(int32_t, uint32_t, int32_t(-2147483647 - 1))
TESSEL_IRON_INT(uint32_t, uint32_t, 0)
TESSEL_IRON_INT(int64_t, uint64_t, int64_t(-9223372036854775807LL - 1))
TESSEL_IRON_INT(uint64_t, uint64_t, 0)
TESSEL_IRON_INT(bool, uint32_t, false)
#undef TESSEL_IRON_INT

template <class T>
inline constexpr bool is_int = int_info<T>::integral;

// Integer arithmetic wraps at T's width (no undefined overflow).
template <class T>
using wide = typename int_info<T>::unsigned_type;

template <class T>
inline T add(T a, T b) {
  if constexpr (is_int<T>)
    return T(wide<T>(a) + wide<T>(b));
  else
    return a + b;
}
template <class T>
inline T sub(T a, T b) {
  if constexpr (is_int<T>)
    return T(wide<T>(a) - wide<T>(b));
  else
    return a - b;
}
template <class T>
inline T mul(T a, T b) {
  if constexpr (is_int<T>)
    return T(wide<T>(a) * wide<T>(b));
  else
    return a * b;
}
template <class T>
inline T neg(T a) {
  if constexpr (is_int<T>)
    return T(wide<T>(0) - wide<T>(a));
  else
    return -a;
}

template <class T>
inline void check_divisor(T a, T b, const char* file, uint32_t line) {
  if constexpr (is_int<T>) {
    if (b == 0)
      fail("integer division by zero (undefined in MLIR's arith dialect, which IRON lowers to)", file, line);
    if constexpr (int_info<T>::is_signed)
      if (b == T(-1) && a == int_info<T>::least)
        fail("integer division overflows: the smallest value divided by -1 (undefined in MLIR's arith "
                   "dialect)",
                   file, line);
  }
}

// a / b: integers truncate toward zero (arith.divsi / divui).
template <class T>
inline T div(T a, T b, TESSEL_SITE_PARAMS) {
  check_divisor(a, b, TESSEL_SITE);
  return T(a / b);
}

// a // b: integers round toward negative infinity (arith.floordivsi); floats floor the quotient.
template <class T>
inline T floordiv(T a, T b, TESSEL_SITE_PARAMS) {
  check_divisor(a, b, TESSEL_SITE);
  if constexpr (is_int<T>) {
    T q = T(a / b);
    if constexpr (int_info<T>::is_signed)
      if ((a % b != 0) && ((a < 0) != (b < 0))) q = T(q - 1);
    return q;
  } else {
    return __builtin_floor(a / b);
  }
}

// a % b: the remainder with the dividend's sign (arith.remsi / remui / remf).
template <class T>
inline T rem(T a, T b, TESSEL_SITE_PARAMS) {
  check_divisor(a, b, TESSEL_SITE);
  if constexpr (is_int<T>)
    return T(a % b);
  else
    return __builtin_fmod(a, b);
}

template <class T>
inline void check_shift(T b, const char* file, uint32_t line) {
  if (b < 0 || uint64_t(b) >= 8 * sizeof(T))
    fail("shift by a negative amount or by the type's width or more (poison in MLIR's arith dialect)", file,
               line);
}

template <class T>
inline T shl(T a, T b, TESSEL_SITE_PARAMS) {
  check_shift(b, TESSEL_SITE);
  return T(wide<T>(a) << b);
}

// >>: arithmetic for signed types (arith.shrsi), logical for unsigned (shrui).
template <class T>
inline T shr(T a, T b, TESSEL_SITE_PARAMS) {
  check_shift(b, TESSEL_SITE);
  return T(a >> b);
}

template <class T>
inline T minimum(T a, T b) {
  return b < a ? b : a;
}
template <class T>
inline T maximum(T a, T b) {
  return a < b ? b : a;
}

} // namespace iron

#endif
