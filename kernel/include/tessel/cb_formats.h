// The per-CB tables Metalium's JIT generates for a kernel
// (chlkc_unpack_data_format.h, chlkc_pack_data_format.h and the tile-dims
// headers), as constant expressions from the program's CBs: index i
// describes CB i on every core the kernel runs on.
//
//   unpack_src_format, pack_dst_format    the CB's format (255: the CB is
//                                         missing, or differs between cores)
//   unpack_dst_format, pack_src_format    the same format (the register
//                                         formats Metalium derives are not
//                                         modelled: docs/deviations.md)
//   unpack_tile_size, pack_tile_size      bytes per tile of that format
//   *_tile_r_dim, *_tile_c_dim            32 (tiles are 32x32)
//   *_tile_face_r_dim, *_tile_num_faces   16, 4
//   *_partial_face, *_narrow_tile         0
//
// The JIT passes the formats (TESSEL_CB_DATA_FORMATS) and tile sizes
// (TESSEL_CB_TILE_SIZES) only to kernels whose code names these tables or
// get_dataformat (src/jit/cache_key.cpp), so other kernels' binaries do not
// depend on the CBs' formats.
#ifndef TESSEL_CB_FORMATS_H
#define TESSEL_CB_FORMATS_H

#include <stdint.h>

#if defined(TESSEL_CB_DATA_FORMATS) && defined(TESSEL_CB_TILE_SIZES)

#define TESSEL_CB_X4(v) v, v, v, v
#define TESSEL_CB_X16(v) TESSEL_CB_X4(v), TESSEL_CB_X4(v), TESSEL_CB_X4(v), TESSEL_CB_X4(v)
#define TESSEL_CB_X64(v) TESSEL_CB_X16(v), TESSEL_CB_X16(v), TESSEL_CB_X16(v), TESSEL_CB_X16(v)

constexpr int32_t unpack_src_format[] = {TESSEL_CB_DATA_FORMATS};
constexpr int32_t unpack_dst_format[] = {TESSEL_CB_DATA_FORMATS};
constexpr unsigned char pack_src_format[] = {TESSEL_CB_DATA_FORMATS};
constexpr unsigned char pack_dst_format[] = {TESSEL_CB_DATA_FORMATS};
constexpr uint16_t unpack_tile_size[] = {TESSEL_CB_TILE_SIZES};
constexpr uint16_t pack_tile_size[] = {TESSEL_CB_TILE_SIZES};
static_assert(sizeof(unpack_src_format) / sizeof(unpack_src_format[0]) == 64 &&
                  sizeof(unpack_tile_size) / sizeof(unpack_tile_size[0]) == 64,
              "the JIT passes a format and a tile size for each of the 64 CB indices");
constexpr uint8_t unpack_tile_r_dim[] = {TESSEL_CB_X64(32)};
constexpr uint8_t unpack_tile_c_dim[] = {TESSEL_CB_X64(32)};
constexpr uint8_t unpack_tile_face_r_dim[] = {TESSEL_CB_X64(16)};
constexpr uint8_t unpack_tile_num_faces[] = {TESSEL_CB_X64(4)};
constexpr uint8_t unpack_partial_face[] = {TESSEL_CB_X64(0)};
constexpr uint8_t unpack_narrow_tile[] = {TESSEL_CB_X64(0)};
constexpr uint8_t pack_tile_r_dim[] = {TESSEL_CB_X64(32)};
constexpr uint8_t pack_tile_c_dim[] = {TESSEL_CB_X64(32)};
constexpr uint8_t pack_tile_face_r_dim[] = {TESSEL_CB_X64(16)};
constexpr uint8_t pack_tile_num_faces[] = {TESSEL_CB_X64(4)};
constexpr uint8_t pack_partial_face[] = {TESSEL_CB_X64(0)};
constexpr uint8_t pack_narrow_tile[] = {TESSEL_CB_X64(0)};

#undef TESSEL_CB_X64
#undef TESSEL_CB_X16
#undef TESSEL_CB_X4

#endif

#endif // TESSEL_CB_FORMATS_H
