// SFPU float functions of two DST tiles, with TT-Metalium's names, template
// parameters and argument orders: atan2.h, xlogy.h, the float forms of
// binary_fmod.h and binary_remainder.h, and isclose.h (not modelled: see
// below). Only those headers include this one. tessel/sfpu.h states the init
// rule.
//
// DST[odst] = f(DST[idst0], DST[idst1]), computed exactly (correctly rounded
// float, or exact) whatever the approximation mode says; docs/numerics.md.
#ifndef TESSEL_SFPU_BINARY_MATH_H
#define TESSEL_SFPU_BINARY_MATH_H

#include "tessel/sfpu.h"

namespace ckernel {

namespace tessel_sfpu {
// false, but only when a template that names it is used: for calls tessel
// refuses at build time without failing kernels that merely include them.
template <auto...>
inline constexpr bool not_modelled = false;
} // namespace tessel_sfpu

#define TESSEL_SFPU_BINARY_FN(name, OP)                                                                                \
  ALWI void name##_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::binary_init<OP>(#name "_tile_init", TESSEL_SITE); }    \
  ALWI void name##_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {                           \
    tessel_sfpu::binary(OP, idst0, idst1, odst, TESSEL_SITE);                                                          \
  }

// atan2(a, b): the angle of the point (b, a) (atan2.h).
TESSEL_SFPU_BINARY_FN(atan2_binary, TESSEL_SFPU_BINARY_ATAN2)
// fmod(a, b), the sign of a (binary_fmod.h); a - b floor(a / b), the sign of
// b (binary_remainder.h).
TESSEL_SFPU_BINARY_FN(fmod_binary, TESSEL_SFPU_BINARY_FMOD)
TESSEL_SFPU_BINARY_FN(remainder_binary, TESSEL_SFPU_BINARY_REMAINDER)

#undef TESSEL_SFPU_BINARY_FN

// a ln(b), 0 where a == 0 (and b is not NaN) (xlogy.h).
ALWI void xlogy_binary_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_XLOGY>("xlogy_binary_tile_init", TESSEL_SITE);
}
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void xlogy_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_XLOGY, idst0, idst1, odst, TESSEL_SITE);
}

// isclose.h: |a - b| <= atol + rtol |b| with rtol and atol from the
// ISCLOSE_RTOL_VAL / ISCLOSE_ATOL_VAL defines. Not modelled yet: a kernel
// that calls it does not build (one that only includes the header does).
template <int = 0>
ALWI void isclose_binary_tile_init() {
  static_assert(tessel_sfpu::not_modelled<0>, "tessel: isclose_binary_tile (isclose.h) is not modelled yet");
}
template <bool EQUAL_NAN>
ALWI void isclose_binary_tile(uint32_t, uint32_t, uint32_t) {
  static_assert(tessel_sfpu::not_modelled<EQUAL_NAN>, "tessel: isclose_binary_tile (isclose.h) is not modelled yet");
}

} // namespace ckernel

#endif // TESSEL_SFPU_BINARY_MATH_H
