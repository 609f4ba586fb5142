// SFPU integer arithmetic between DST tiles, with TT-Metalium's names,
// template parameters and argument orders: sub_int_sfpu.h, binary_shift.h,
// div_int32_sfpu.h, div_int32_floor.h, gcd.h, lcm.h and the int32 forms of
// binary_fmod.h and binary_remainder.h. Only those headers include this one.
// tessel/sfpu.h states the init rule.
//
// DST[odst] = DST[idst0] op DST[idst1]. DST holds integer tiles as the floats
// the unpacker made of them: each op reads the integers and writes the
// result as the nearest float, exact within 2^24; subtraction and shifts
// wrap to the format named by data_format (docs/numerics.md).
#ifndef TESSEL_SFPU_INTEGER_H
#define TESSEL_SFPU_INTEGER_H

#include "tessel/sfpu.h"

namespace ckernel {

namespace tessel_sfpu {
// The op of `first` (the Int32 one) for data_format: Int32, UInt32 and UInt16
// follow it in that order (kernel_abi.h).
template <DataFormat data_format>
constexpr uint32_t integer_op(uint32_t first) {
  static_assert(data_format == DataFormat::Int32 || data_format == DataFormat::UInt32 ||
                    data_format == DataFormat::UInt16,
                "tessel: integer SFPU ops support Int32, UInt32 and UInt16");
  return first + (data_format == DataFormat::Int32 ? 0u : data_format == DataFormat::UInt32 ? 1u : 2u);
}
template <uint32_t first>
inline void integer_init(const char* call, const char* file, uint32_t line) {
  binary_init<first, first + 1, first + 2>(call, file, line);
}
} // namespace tessel_sfpu

// ---------------------------------------------------------------------------
// a - b and b - a (sub_int_sfpu.h).

ALWI void sub_int_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::integer_init<TESSEL_SFPU_BINARY_SUB_INT>("sub_int_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void sub_int_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(tessel_sfpu::integer_op<data_format>(TESSEL_SFPU_BINARY_SUB_INT), idst0, idst1, odst,
                      TESSEL_SITE);
}
ALWI void rsub_int_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::integer_init<TESSEL_SFPU_BINARY_RSUB_INT>("rsub_int_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void rsub_int_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(tessel_sfpu::integer_op<data_format>(TESSEL_SFPU_BINARY_RSUB_INT), idst0, idst1, odst,
                      TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Shifts of a by b bits (binary_shift.h), on the format's word: left,
// arithmetic right (the sign fills for Int32), logical right. Amounts
// outside [0, 31] shift every bit out.

ALWI void binary_shift_tile_init(TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  tessel_sfpu::integer_init<TESSEL_SFPU_BINARY_LEFT_SHIFT>("binary_shift_tile_init", TESSEL_SITE);
  for (uint32_t op = TESSEL_SFPU_BINARY_RIGHT_SHIFT; op < TESSEL_SFPU_BINARY_LOGICAL_RIGHT_SHIFT + 3; ++op)
    k->api->compute_init(k, TESSEL_INIT_SFPU_BINARY, "binary_shift_tile_init", op, TESSEL_SFPU_INIT_MORE, 0,
                         TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void binary_left_shift_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(tessel_sfpu::integer_op<data_format>(TESSEL_SFPU_BINARY_LEFT_SHIFT), idst0, idst1, odst,
                      TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void binary_right_shift_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(tessel_sfpu::integer_op<data_format>(TESSEL_SFPU_BINARY_RIGHT_SHIFT), idst0, idst1, odst,
                      TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void binary_logical_right_shift_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(tessel_sfpu::integer_op<data_format>(TESSEL_SFPU_BINARY_LOGICAL_RIGHT_SHIFT), idst0, idst1, odst,
                      TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Division of int32 tiles: the float quotient (div_int32_sfpu.h), the
// integer quotient rounded down or toward zero (div_int32_floor.h; 0 where
// b == 0), and the remainders with the sign of a (fmod, binary_fmod.h) or of
// b (remainder, binary_remainder.h; 0 where b == 0).

#define TESSEL_SFPU_INT32_OP(name, OP)                                                                                 \
  ALWI void name##_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::binary_init<OP>(#name "_tile_init", TESSEL_SITE); }    \
  ALWI void name##_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {                           \
    tessel_sfpu::binary(OP, idst0, idst1, odst, TESSEL_SITE);                                                          \
  }

TESSEL_SFPU_INT32_OP(div_int32, TESSEL_SFPU_BINARY_DIV_INT32)
TESSEL_SFPU_INT32_OP(div_int32_floor, TESSEL_SFPU_BINARY_DIV_INT32_FLOOR)
TESSEL_SFPU_INT32_OP(div_int32_trunc, TESSEL_SFPU_BINARY_DIV_INT32_TRUNC)
TESSEL_SFPU_INT32_OP(fmod_int32, TESSEL_SFPU_BINARY_FMOD_INT32)
TESSEL_SFPU_INT32_OP(remainder_int32, TESSEL_SFPU_BINARY_REMAINDER_INT32)
// gcd(a, b) >= 0 (gcd.h); lcm(a, b) >= 0 (lcm.h).
TESSEL_SFPU_INT32_OP(gcd, TESSEL_SFPU_BINARY_GCD)
TESSEL_SFPU_INT32_OP(lcm, TESSEL_SFPU_BINARY_LCM)

#undef TESSEL_SFPU_INT32_OP

} // namespace ckernel

#endif // TESSEL_SFPU_INTEGER_H
