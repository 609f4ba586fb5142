// TT-Metalium's division helpers for constant divisors. Metalium computes
// them with multiply-and-shift sequences; the results are the exact
// quotient and remainder, which is what these compute.
#pragma once
#include "tessel/kernel_common.h"

inline __attribute__((always_inline)) unsigned int mulsi3(unsigned int a, unsigned int b) { return a * b; }
template <uint32_t d>
inline __attribute__((always_inline)) uint32_t udivsi3_const_divisor(uint32_t n) {
  static_assert(d != 0, "udivsi3_const_divisor: the divisor is 0");
  return n / d;
}
template <uint32_t d>
inline __attribute__((always_inline)) uint32_t umodsi3_const_divisor(uint32_t n) {
  static_assert(d != 0, "umodsi3_const_divisor: the divisor is 0");
  return n % d;
}
