// Misuses of the tilize, untilize and pack-untilize calls: each an error (or,
// where silicon runs it, a warning) with the exact message naming the call.
#include "tilize_harness.hpp"

namespace tessel::test {
namespace {

// A suite of its own (gtest ties a suite to one fixture class, and the
// harness's fixture is per translation unit).
class TilizeChecksTest : public TilizeTest {};


Case tilize_case(uint32_t w, uint32_t pushed) {
  Case c;
  c.in = bytes_of(values(size_t(pushed) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
  c.out_pages = std::max(w, 1u);
  c.out_drained = 0;
  c.steps.op(kHwStartup, kIn, kIn, kOut);
  return c;
}

TEST_F(TilizeChecksTest, TilizeMisuse) {
  Case c = tilize_case(2, 2);
  c.steps.op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): the "
                          "unpacker is not configured for tilize_block: call tilize_init(icb, block, ocb) first (no op "
                          "init was called in this kernel)");

  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 4, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): tilize_init "
                          "at " +
                          at("tilize_init").substr(0, at("tilize_init").find(": core")) +
                          " set the unpacker up for blocks of 4 tiles (rows 128 values apart); this block of 2 would "
                          "be tilized from the wrong rows: call tilize_init(icb, 2, ocb) first");

  // A block wider than the pages waited for (here: than the whole CB).
  c = tilize_case(4, 2);
  c.steps.op(kTilizeInit, kIn, 4, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 4).op(kTilize, kIn, 4, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=4, ocb=16, input_tile_index=0, output_tile_index=0): reads 32 "
                          "rows of the block, 4 pages of CB 0 from its front, but only 2 pages are waited for with "
                          "cb_wait_front");

  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 2, kOut).op(kCbReserve, kOut, 2).op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): no pages of "
                          "CB 0 are waited for: call cb_wait_front(0, 2) first");

  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 2, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kAcquire);
  c.steps.op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): it "
                          "acquires and releases DST itself for each step, but DST is held (last acquired at " +
                          at("acquire").substr(0, at("acquire").find(": core")) +
                          "): call it before tile_regs_acquire or after tile_regs_release");

  c = tilize_case(1, 1);
  c.in_format = DataFormat::Bfp8_b;
  c.in.assign(tile_size(DataFormat::Bfp8_b), 0);
  c.steps = Steps().op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, 1, kOut).op(kCbWait, kIn, 1);
  c.steps.op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=1, ocb=16, input_tile_index=0, output_tile_index=0): CB 0 holds "
                          "Bfp8_b, a block-float format, which holds tiles only; the row-major side of a tilize or "
                          "untilize holds Float32, Float16_b, Int32, UInt32, UInt16 or UInt8 values");

  c = tilize_case(1, 1);
  c.steps.op(kFastInit, kIn, 1, kOut).op(kCbWait, kIn, 1).op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=1, ocb=16, input_tile_index=0, output_tile_index=0): the "
                          "unpacker is not configured for tilize_block: call tilize_init(icb, block, ocb) first (the "
                          "last op init was fast_tilize_init at " +
                          at("fast_init").substr(0, at("fast_init").find(": core")) + ")");

  // Pages beyond the reservation that the CB has free: silicon writes them, a
  // warning (strict: an error).
  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 2, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 1).op(kTilize, kIn, 2, kOut);
  setenv("TESSEL_STRICT", "1", 1);
  const std::string strict = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(strict, at("tilize_block") +
                        "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): writes pages "
                        "0..1 of CB 16 (counting from its write pointer), but only 1 page is reserved with "
                        "cb_reserve_back; the CB has room for them, so silicon writes them, but nothing waited for "
                        "that room: reserve them with cb_reserve_back first (a warning, made an error by "
                        "TESSEL_STRICT=1)");

  c = tilize_case(1, 1);
  c.steps.op(kTilizeUninit, kIn, 0, kOut);
  EXPECT_EQ(fails(c), at("tilize_uninit") +
                          "tilize_uninit: no tilize_init (or tilize_init_short_with_dt) is in effect (the unpacker is "
                          "not in tilize or untilize mode)");
}

// Another op's init while the unpacker is still in tilize mode: silicon runs
// it, but the unpacker keeps tilizing. A warning (an error under TESSEL_STRICT=1).
TEST_F(TilizeChecksTest, InitWithoutTilizeUninitWarns) {
  Case c = tilize_case(1, 1);
  c.steps.op(kTilizeInit, kIn, 1, kOut).op(kCopyInit, kIn);
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(message, at("copy_tile_init") +
                         "copy_tile_init: the unpacker is still in tilize mode (set by tilize_init "
                         "at " +
                         at("tilize_init").substr(0, at("tilize_init").find(": core")) +
                         "), which this init does not undo on silicon: call tilize_uninit(icb, ocb) first (a "
                         "warning, made an error by TESSEL_STRICT=1)");
  // With tilize_uninit in between there is nothing to say.
  c = tilize_case(1, 1);
  c.steps.op(kTilizeInit, kIn, 1, kOut).op(kTilizeUninit, kIn, 0, kOut).op(kCopyInit, kIn);
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_NO_THROW(run(c));
  unsetenv("TESSEL_STRICT");
}

TEST_F(TilizeChecksTest, UntilizeMisuse) {
  auto untilize_case = [](uint32_t full) {
    Case c;
    c.in = pack_tiles(values(size_t(full) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
    c.out_pages = full;
    c.out_drained = 0;
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kUntilizeInit, kIn);
    return c;
  };
  Case c = untilize_case(2);
  c.steps.op(kCbReserve, kOut, 2).op(kUntilize, kIn, 1, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=2, ocb=16): no pages of CB 0 are waited for: call "
                          "cb_wait_front(0, 2) first");

  c = untilize_case(2);
  c.steps.op(kCbWait, kIn, 1).op(kCbReserve, kOut, 2).op(kUntilize, kIn, 1, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=2, ocb=16): reads full_ct_dim tiles, 2 pages of CB 0 "
                          "from its front, but only 1 page is waited for with cb_wait_front");

  c = untilize_case(2);
  c.steps.op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kUntilize, kIn, 3, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<3>(icb=0, full_ct_dim=2, ocb=16): full_ct_dim must be a multiple of "
                          "block_ct_dim (the unpacker unpacks 2 tiles, the math thread copies them 3 at a time)");

  // 8 tiles at a time, but a 32-bit DST holds 4 per acquire.
  c = untilize_case(8);
  c.fp32 = true;
  c.steps.op(kCbWait, kIn, 8).op(kCbReserve, kOut, 8).op(kUntilize, kIn, 8, 8, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<8>(icb=0, full_ct_dim=8, ocb=16): a block of block_ct_dim tiles needs 8 DST "
                          "tiles, but one acquire holds 4 in half-sync with fp32_dest_acc_en mode (half-sync 8, "
                          "full-sync 16, halved by fp32_dest_acc_en)");

  c = untilize_case(1);
  c.out_format = DataFormat::Bfp8_b;
  c.steps.op(kCbWait, kIn, 1).op(kCbReserve, kOut, 1).op(kUntilize, kIn, 1, 1, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=1, ocb=16): CB 16 holds Bfp8_b, a block-float format, "
                          "which holds tiles only; the row-major side of a tilize or untilize holds Float32, "
                          "Float16_b, Int32, UInt32, UInt16 or UInt8 values");

  // Two pages out, one reserved and no room beyond: an error (the CB is full).
  c = untilize_case(2);
  c.out_pages = 1;
  c.steps.op(kCbWait, kIn, 2).op(kCbReserve, kOut, 1).op(kUntilize, kIn, 1, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=2, ocb=16): writes pages 0..1 of CB 16 (counting from "
                          "its write pointer), but only 1 page is reserved with cb_reserve_back, and page 1 lies past "
                          "the CB's end: reserve the pages with cb_reserve_back (after pushing the pages before them)");
}

TEST_F(TilizeChecksTest, PackUntilizeMisuse) {
  auto pack_case = [](uint32_t tiles) {
    Case c;
    c.in = pack_tiles(values(size_t(tiles) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
    c.out_pages = tiles;
    c.out_drained = 0;
    c.steps.op(kHwStartup, kIn, kIn, kOut);
    return c;
  };
  Case c = pack_case(4);
  c.steps.op(kPackUntilizeInit, kIn, 0x402, kOut).op(kCbWait, kIn, 4).op(kCbReserve, kOut, 4);
  c.steps.op(kPackUntilize, kIn, 0x404, kOut, 1, 0);
  EXPECT_EQ(fails(c), at("pack_untilize_block") +
                          "pack_untilize_block<4, 4>(icb=0, block_rt_dim=1, ocb=16, block_c_index=0): the packer was "
                          "set up for blocks of 2 tiles in rows of 4 by pack_untilize_init<2, 4> at " +
                          at("pack_untilize_init").substr(0, at("pack_untilize_init").find(": core")) +
                          "; the template arguments must match: call pack_untilize_init<4, 4>(icb, ocb) first");

  c = pack_case(4);
  c.steps.op(kCbWait, kIn, 4).op(kCbReserve, kOut, 4).op(kPackUntilize, kIn, 0x404, kOut, 1, 0);
  EXPECT_EQ(fails(c), at("pack_untilize_block") +
                          "pack_untilize_block<4, 4>(icb=0, block_rt_dim=1, ocb=16, block_c_index=0): the packer is "
                          "not configured for untilize: call pack_untilize_init<4, 4>(icb, ocb) first");

  c = pack_case(4);
  c.steps.op(kPackUntilizeInit, kIn, 0x402, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 4);
  c.steps.op(kPackUntilize, kIn, 0x402, kOut, 1, 2);
  EXPECT_EQ(fails(c), at("pack_untilize_block") +
                          "pack_untilize_block<2, 4>(icb=0, block_rt_dim=1, ocb=16, block_c_index=2): block 2 of 2 "
                          "tiles reaches column tile 6, past the row's full_ct_dim = 4 tiles");

  c = pack_case(4);
  c.steps.op(kCopyInit, kIn).op(kPackUntilizeDestInit, 0, 0x404, kOut).op(kCbWait, kIn, 4).op(kAcquire);
  c.steps.op(kCopy, kIn, 0, 0).op(kCbReserve, kOut, 4).op(kPackUntilizeDest, 0, 0x404, kOut, 1, 0);
  EXPECT_EQ(fails(c), at("pack_untilize_dest") +
                          "pack_untilize_dest<4, 4>(ocb=16, block_rt_dim=1, block_c_index=0): PACK does not hold DST: "
                          "call tile_regs_wait (after tile_regs_commit) first (MATH still holds it: tile_regs_commit "
                          "hands it over)");

  // Two row blocks from one pack_untilize_block: silicon repeats the first.
  c = pack_case(2);
  c.steps.op(kPackUntilizeInit, kIn, 0x202, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2);
  c.steps.op(kPackUntilize, kIn, 0x202, kOut, 2, 0);
  setenv("TESSEL_STRICT", "1", 1);
  std::string strict = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(strict, at("pack_untilize_block") +
                        "pack_untilize_block<2, 2>(icb=0, block_rt_dim=2, ocb=16, block_c_index=0): each of the 2 row "
                        "blocks unpacks tiles 0..1 of CB 0 and packs them to the same rows of CB 16 "
                        "(pack_untilize_block does not step through the CBs): call it with block_rt_dim = 1 once per "
                        "row block, popping and pushing in between (a warning, made an error by TESSEL_STRICT=1)");

  c = pack_case(1);
  c.steps.op(kPackUntilizeDestFaces, 8, 2, kOut);
  EXPECT_EQ(fails(c), at("pack_untilize_dest_faces") +
                          "pack untilize with face_r_dim != 16 or num_faces != 4 is not supported by tessel: tiles "
                          "are 32 x 32 of four 16 x 16 faces here (pass face_r_dim = 16, num_faces = 4, the defaults)");

  // pack_tile while the packer still untilizes: a warning (strict: an error).
  c = pack_case(1);
  c.steps.op(kCopyInit, kIn).op(kPackUntilizeDestInit, 0, 0x101, kOut).op(kCbWait, kIn, 1).op(kAcquire);
  c.steps.op(kCopy, kIn, 0, 0).op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(message, at("pack_tile") +
                         "pack_tile(idst=0, cb=16): the packer is still in untilize mode (set by "
                         "pack_untilize_dest_init at " +
                         at("pack_untilize_dest_init").substr(0, at("pack_untilize_dest_init").find(": core")) +
                         "), so silicon would not write a tile: call pack_untilize_uninit(ocb) first (a warning, made "
                         "an error by TESSEL_STRICT=1)");
}

} // namespace
} // namespace tessel::test
