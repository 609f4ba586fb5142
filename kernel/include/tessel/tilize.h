// Layout conversions of the compute kernel API: tilize (row-major CB pages ->
// tiles), untilize and pack untilize (tiles -> row-major CB pages), with
// TT-Metalium's names, template parameters and argument orders
// (compute_kernel_api/tilize.h, untilize.h, pack_untilize.h and their
// api/compute/ spellings). Included by tessel/compute.h.
//
// A row-major CB holds a block of `w` tiles' width as 32 rows of w x 32
// values, one after another, in w pages of one tile's size: the layout a
// reader makes by copying 32 rows of a row-major tensor into w reserved
// pages. tilize_block, untilize_block and pack_untilize_block acquire and
// release DST themselves, once per step, as the LLK does; pack_untilize_dest
// packs the section PACK holds (after tile_regs_wait). The simulator checks
// the inits, the CBs and DST (src/sim/compute_tilize.cpp).
#ifndef TESSEL_TILIZE_H
#define TESSEL_TILIZE_H

#include "tessel/compute.h"

namespace ckernel {

// Tile and face dimensions, as the LLK names them (tiles are always 32 x 32
// of four 16 x 16 faces here).
constexpr uint32_t TILE_R_DIM = 32;
constexpr uint32_t TILE_C_DIM = 32;
constexpr uint32_t FACE_R_DIM = 16;
constexpr uint32_t FACE_C_DIM = 16;

namespace tessel_compute {
// Tiles of another shape (face_r_dim, num_faces) are not modelled.
inline void check_faces(uint32_t face_r_dim, uint32_t num_faces, const char* file, uint32_t line) {
  if (face_r_dim == 16 && num_faces == 4) return;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k,
               "pack untilize with face_r_dim != 16 or num_faces != 4 is not supported by tessel: tiles are 32 x 32 "
               "of four 16 x 16 faces here (pass face_r_dim = 16, num_faces = 4, the defaults)",
               file, line);
}
} // namespace tessel_compute

// ---------------------------------------------------------------------------
// tilize.h

ALWI void tilize_init(uint32_t icb, uint32_t block, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_TILIZE, "tilize_init", icb, block, ocb, TESSEL_SITE);
}
// Points the unpacker's SrcA at new_icb's format (if it differs from
// old_icb's), then tilize_init's unpack and math setup.
ALWI void tilize_init_short_with_dt(uint32_t old_icb, uint32_t new_icb, uint32_t block, uint32_t ocb,
                                    TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "tilize_init_short_with_dt", new_icb, old_icb + 1, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_TILIZE, "tilize_init_short_with_dt", new_icb, block, ocb, TESSEL_SITE);
}
ALWI void tilize_block(uint32_t icb, uint32_t block, uint32_t ocb, uint32_t input_tile_index = 0,
                       uint32_t output_tile_index = 0, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->tilize_block(k, 0, icb, block, ocb, input_tile_index, output_tile_index, TESSEL_SITE);
}
ALWI void tilize_uninit(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_TILIZE_UNINIT, "tilize_uninit", icb, 0, ocb, TESSEL_SITE);
}
ALWI void tilize_uninit_with_dt(uint32_t old_icb, uint32_t new_icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_TILIZE_UNINIT, "tilize_uninit_with_dt", old_icb, 0, ocb, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "tilize_uninit_with_dt", new_icb, old_icb + 1, 0, TESSEL_SITE);
}
// The fast variants compute what the plain ones do; fast_tilize_block takes
// any block width (its init's full_dim only chooses how the LLK splits rows).
ALWI void fast_tilize_init(uint32_t icb, uint32_t full_dim, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_TILIZE, "fast_tilize_init", icb, full_dim, ocb | TESSEL_TILIZE_FAST, TESSEL_SITE);
}
ALWI void fast_tilize_init_with_dt(uint32_t icb, uint32_t full_dim, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "fast_tilize_init_with_dt", icb, 0, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCB, "fast_tilize_init_with_dt", icb, 0, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_TILIZE, "fast_tilize_init_with_dt", icb, full_dim, ocb | TESSEL_TILIZE_FAST,
                       TESSEL_SITE);
}
// The remap (the unpacker's address remapping, configured once per kernel on
// silicon) is not modelled: these are fast_tilize_init and
// fast_tilize_init_with_dt.
ALWI void fast_tilize_init_skip_remap(uint32_t icb, uint32_t full_dim, uint32_t ocb, TESSEL_SITE_PARAMS) {
  fast_tilize_init(icb, full_dim, ocb, TESSEL_SITE);
}
ALWI void fast_tilize_init_with_dt_skip_remap(uint32_t icb, uint32_t full_dim, uint32_t ocb, TESSEL_SITE_PARAMS) {
  fast_tilize_init_with_dt(icb, full_dim, ocb, TESSEL_SITE);
}
// llk_math_reconfig_remap(enable): Blackhole's DST address remap, which its
// pack_untilize_dest needs (Wormhole's call does nothing). tessel's DST has
// no address remap, so nothing changes.
ALWI void llk_math_reconfig_remap(bool remap_enable) { (void)remap_enable; }
ALWI void fast_tilize_block(uint32_t icb, uint32_t block, uint32_t ocb, uint32_t input_tile_index = 0,
                            uint32_t output_tile_index = 0, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->tilize_block(k, 1, icb, block, ocb, input_tile_index, output_tile_index, TESSEL_SITE);
}
ALWI void fast_tilize_uninit(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_TILIZE_UNINIT, "fast_tilize_uninit", icb, 0, ocb | TESSEL_TILIZE_FAST, TESSEL_SITE);
}
// Current Metalium names the block width the init named (full_dim); the
// uninit restores the same state whatever it is.
ALWI void fast_tilize_uninit(uint32_t icb, uint32_t ocb, uint32_t full_dim, TESSEL_SITE_PARAMS) {
  (void)full_dim;
  fast_tilize_uninit(icb, ocb, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// untilize.h

ALWI void untilize_init(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_UNTILIZE, "untilize_init", icb, 0, 0, TESSEL_SITE);
}
// block_ct_dim tiles pass through DST at a time; full_ct_dim must be a
// multiple of it.
template <uint32_t block_ct_dim = 1>
ALWI void untilize_block(uint32_t icb, uint32_t full_ct_dim, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->untilize_block(k, icb, block_ct_dim, full_ct_dim, ocb, TESSEL_SITE);
}
ALWI void untilize_uninit(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_UNTILIZE_UNINIT, "untilize_uninit", icb, 0, 0, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// pack_untilize.h. Rows narrower than a tile (narrow_row, row_num_datums),
// diagonal packing and dense 2-face tiles are not modelled.

#define TESSEL_PACK_UNTILIZE_MODELLED                                                                                  \
  static_assert(!narrow_row && row_num_datums == TILE_C_DIM && !dense,                                                 \
                "pack untilize of narrow rows (narrow_row, row_num_datums) or dense tiles is not supported by tessel")

template <uint32_t block_ct_dim = 8, uint32_t full_ct_dim = block_ct_dim, bool narrow_row = false,
          uint32_t row_num_datums = TILE_C_DIM, bool dense = false>
ALWI void pack_untilize_dest_init(uint32_t ocb, uint32_t face_r_dim = 16, uint32_t num_faces = 4, TESSEL_SITE_PARAMS) {
  TESSEL_PACK_UNTILIZE_MODELLED;
  tessel_compute::check_faces(face_r_dim, num_faces, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_PACK_UNTILIZE, "pack_untilize_dest_init", TESSEL_NO_CB, ocb,
                       (full_ct_dim << 16) | block_ct_dim, TESSEL_SITE);
}
// The packer's half of pack_untilize_dest_init (tt-llk's), which leaves the
// packer's data format as it is: pack_reconfig_data_format(ocb) first if it
// differs.
template <uint32_t block_ct_dim = 8, uint32_t full_ct_dim = block_ct_dim, bool diagonal = false,
          bool narrow_row = false, uint32_t row_num_datums = TILE_C_DIM, bool dense = false>
ALWI void llk_pack_untilize_init(uint32_t ocb, TESSEL_SITE_PARAMS) {
  TESSEL_PACK_UNTILIZE_MODELLED;
  static_assert(!diagonal, "llk_pack_untilize_init with diagonal packing is not supported by tessel");
  tessel_compute::init(TESSEL_INIT_PACK_UNTILIZE, "llk_pack_untilize_init", TESSEL_NO_CB, ocb,
                       TESSEL_PACK_UNTILIZE_KEEP_FORMAT | (full_ct_dim << 16) | block_ct_dim, TESSEL_SITE);
}
template <uint32_t block_ct_dim = 8, uint32_t full_ct_dim = block_ct_dim>
ALWI void pack_untilize_init(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_PACK_UNTILIZE, "pack_untilize_init", icb, ocb, (full_ct_dim << 16) | block_ct_dim,
                       TESSEL_SITE);
}
template <uint32_t block_ct_dim = 8, uint32_t full_ct_dim = block_ct_dim>
ALWI void pack_untilize_block(uint32_t icb, uint32_t block_rt_dim, uint32_t ocb, uint32_t block_c_index = 0,
                              TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->pack_untilize(k, icb, ocb, block_ct_dim, full_ct_dim, block_rt_dim, block_c_index, 0, TESSEL_SITE);
}
template <uint32_t block_ct_dim = 8, uint32_t full_ct_dim = block_ct_dim, bool diagonal = false,
          bool narrow_row = false, uint32_t row_num_datums = TILE_C_DIM, uint32_t tile_dst_ct_offset = 0,
          bool dense = false>
ALWI void pack_untilize_dest(uint32_t ocb, uint32_t block_rt_dim = 1, uint32_t block_c_index = 0,
                             uint32_t face_r_dim = 16, uint32_t num_faces = 4, uint32_t tile_dst_rt_offset = 0,
                             TESSEL_SITE_PARAMS) {
  TESSEL_PACK_UNTILIZE_MODELLED;
  static_assert(!diagonal, "diagonal pack untilize is not supported by tessel");
  tessel_compute::check_faces(face_r_dim, num_faces, TESSEL_SITE);
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->pack_untilize(k, TESSEL_NO_CB, ocb, block_ct_dim, full_ct_dim, block_rt_dim, block_c_index,
                        tile_dst_ct_offset + tile_dst_rt_offset, TESSEL_SITE);
}
ALWI void pack_untilize_uninit(uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_PACK_UNTILIZE_UNINIT, "pack_untilize_uninit", ocb, 0, 0, TESSEL_SITE);
}

#undef TESSEL_PACK_UNTILIZE_MODELLED

// experimental/fast_untilize.h: untilize a row of full_ct_dim tiles in one
// block, what pack_untilize_block<full_ct_dim, full_ct_dim>(icb, 1, ocb)
// computes (Blackhole's faster LLK path, with the same result). Starting at
// another tile of the input or output is not modelled.
template <uint32_t full_ct_dim, bool is_fp32_dest_acc_en = DST_ACCUM_MODE, bool four_tile_chunks = false>
ALWI void fast_untilize_init(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  static_assert(full_ct_dim > 0, "fast_untilize full_ct_dim must be greater than 0");
  tessel_compute::init(TESSEL_INIT_PACK_UNTILIZE, "fast_untilize_init", icb, ocb, (full_ct_dim << 16) | full_ct_dim,
                       TESSEL_SITE);
}
template <uint32_t full_ct_dim, bool is_fp32_dest_acc_en = DST_ACCUM_MODE, bool four_tile_chunks = false>
ALWI void fast_untilize_init_skip_remap(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  static_assert(full_ct_dim > 0, "fast_untilize full_ct_dim must be greater than 0");
  tessel_compute::init(TESSEL_INIT_PACK_UNTILIZE, "fast_untilize_init_skip_remap", icb, ocb,
                       (full_ct_dim << 16) | full_ct_dim, TESSEL_SITE);
}
template <uint32_t full_ct_dim, bool is_fp32_dest_acc_en = DST_ACCUM_MODE, bool four_tile_chunks = false>
ALWI void fast_untilize_block(uint32_t icb, uint32_t ocb, uint32_t input_tile_index = 0, uint32_t output_tile_index = 0,
                              TESSEL_SITE_PARAMS) {
  static_assert(full_ct_dim > 0, "fast_untilize full_ct_dim must be greater than 0");
  tessel_kernel_ctx* k = tessel_ctx();
  if (input_tile_index != 0 || output_tile_index != 0)
    k->api->fail(k,
                 "fast_untilize_block with a tile index other than 0 is not supported by tessel (expected "
                 "input_tile_index = output_tile_index = 0: the row starts at the front of both CBs)",
                 TESSEL_SITE);
  else
    k->api->pack_untilize(k, icb, ocb, full_ct_dim, full_ct_dim, 1, 0, 0, TESSEL_SITE);
}
template <uint32_t full_ct_dim, bool is_fp32_dest_acc_en = DST_ACCUM_MODE, bool four_tile_chunks = false>
ALWI void fast_untilize_uninit(uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_PACK_UNTILIZE_UNINIT, "fast_untilize_uninit", ocb, 0, 0, TESSEL_SITE);
}

} // namespace ckernel

#endif // TESSEL_TILIZE_H
