// SFPU bitwise ops between DST tiles (binary_bitwise_sfpu.h) and the copy of
// one DST tile to another (copy_dest_values.h), with TT-Metalium's names,
// template parameters and argument orders. Only those headers include this
// one. tessel/sfpu.h states the init rule.
//
// DST holds integer tiles as the floats the unpacker made of them: the
// bitwise ops read each operand as the integer it holds and write the
// result as the nearest float, exact for Int32 values in [-2^24, 2^24] and
// unsigned values up to 2^24 (docs/numerics.md).
#ifndef TESSEL_SFPU_BITWISE_H
#define TESSEL_SFPU_BITWISE_H

#include "tessel/sfpu.h"

namespace ckernel {

namespace tessel_sfpu {
template <DataFormat data_format>
constexpr bool is_bitwise_format() {
  return data_format == DataFormat::Int32 || data_format == DataFormat::UInt32 || data_format == DataFormat::UInt16;
}
} // namespace tessel_sfpu

// ---------------------------------------------------------------------------
// DST[odst] = DST[idst0] op DST[idst1] for Int32, UInt32 and UInt16 tiles;
// one init for all three.

ALWI void binary_bitwise_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_BITWISE_AND, TESSEL_SFPU_BINARY_BITWISE_OR,
                           TESSEL_SFPU_BINARY_BITWISE_XOR>("binary_bitwise_tile_init", TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void bitwise_and_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  static_assert(tessel_sfpu::is_bitwise_format<data_format>(),
                "bitwise_and_binary_tile supports Int32, UInt32 and UInt16");
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_BITWISE_AND, idst0, idst1, odst, TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void bitwise_or_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  static_assert(tessel_sfpu::is_bitwise_format<data_format>(),
                "bitwise_or_binary_tile supports Int32, UInt32 and UInt16");
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_BITWISE_OR, idst0, idst1, odst, TESSEL_SITE);
}
template <DataFormat data_format>
ALWI void bitwise_xor_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  static_assert(tessel_sfpu::is_bitwise_format<data_format>(),
                "bitwise_xor_binary_tile supports Int32, UInt32 and UInt16");
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_BITWISE_XOR, idst0, idst1, odst, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// DST[idst_out] = DST[idst_in], every value unchanged (copy_dest_values.h).
// The DATA_FORMAT form and the older one without it copy alike.

ALWI void copy_dest_values_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary_init<TESSEL_SFPU_BINARY_COPY>("copy_dest_values_init", TESSEL_SITE);
}
template <DataFormat DATA_FORMAT>
ALWI void copy_dest_values(uint32_t idst_in, uint32_t idst_out, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_COPY, idst_in, idst_in, idst_out, TESSEL_SITE);
}
ALWI void copy_dest_values(uint32_t idst_in, uint32_t idst_out, TESSEL_SITE_PARAMS) {
  tessel_sfpu::binary(TESSEL_SFPU_BINARY_COPY, idst_in, idst_in, idst_out, TESSEL_SITE);
}

} // namespace ckernel

#endif // TESSEL_SFPU_BITWISE_H
