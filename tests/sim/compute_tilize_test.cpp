// Tilize, untilize and pack untilize (src/sim/compute_tilize.cpp) against the
// host's tilize/untilize (tessel/tile.hpp): every format a row-major CB holds,
// several block widths, block-float tilized sides, the tile indices and
// column blocks, timing. One script-driven compute kernel (tilize_harness.hpp)
// runs every case between the compute tests' reader (CB 0) and writer (CB 16);
// the misuses are in compute_tilize_checks_test.cpp.
#include "tilize_harness.hpp"

namespace tessel::test {
namespace {

// A block of `w` tiles' width: 32 rows of w x 32 values in w pages, tilized
// into w tiles, exactly as the host tilizes them.
TEST_F(TilizeTest, TilizeMatchesHostTilizeInEveryFormat) {
  for (DataFormat f : kRowMajorFormats)
    for (uint32_t w : {1u, 2u, 3u, 4u}) {
      const std::vector<float> rows = values(size_t(w) * kTileHW, f);
      Case c;
      c.in_format = c.out_format = f;
      c.fp32 = f != DataFormat::Float16_b;
      c.unpack_to_dest = f == DataFormat::Float32;
      c.in = bytes_of(rows, f);
      c.out_pages = c.out_drained = w;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, w, kOut).op(kCbWait, kIn, w);
      c.steps.op(kCbReserve, kOut, w).op(kTilize, kIn, w, kOut).op(kCbPush, kOut, w).op(kCbPop, kIn, w);
      EXPECT_EQ(run(c), pack_tiles(tilize(rows, 32, w * 32), f)) << to_string(f) << " block " << w;
    }
}

// Tilize into another format: Float16_b rows into Bfp8_b and Float32 tiles,
// and the fast variant, which computes the same.
TEST_F(TilizeTest, TilizeIntoOtherFormatsAndFast) {
  const uint32_t w = 2;
  const std::vector<float> rows = values(size_t(w) * kTileHW, DataFormat::Float16_b);
  for (DataFormat out : {DataFormat::Bfp8_b, DataFormat::Bfp4_b, DataFormat::Float32})
    for (bool fast : {false, true}) {
      Case c;
      c.out_format = out;
      c.in = bytes_of(rows, DataFormat::Float16_b);
      c.out_pages = c.out_drained = w;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(fast ? kFastInit : kTilizeInit, kIn, w, kOut).op(kCbWait, kIn, w);
      c.steps.op(kCbReserve, kOut, w).op(fast ? kFastTilize : kTilize, kIn, w, kOut).op(kCbPush, kOut, w);
      EXPECT_EQ(run(c), pack_tiles(tilize(rows, 32, w * 32), out)) << to_string(out) << " fast " << fast;
    }
}

// input_tile_index: (i / block) blocks down, (i % block) tiles across;
// output_tile_index: the page of the reservation the first tile goes to.
TEST_F(TilizeTest, TileIndicesPickTheBlockAndThePage) {
  const uint32_t w = 2;
  const std::vector<float> rows = values(size_t(2 * w) * kTileHW, DataFormat::Float16_b); // 64 rows
  Case c;
  c.in = bytes_of(rows, DataFormat::Float16_b);
  c.out_pages = c.out_drained = 2 * w;
  c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, w, kOut).op(kCbWait, kIn, 2 * w);
  c.steps.op(kCbReserve, kOut, 2 * w).op(kTilize, kIn, w, kOut, w, 0).op(kTilize, kIn, w, kOut, 0, w);
  c.steps.op(kCbPush, kOut, 2 * w);
  const std::vector<float> tiles = tilize(rows, 64, w * 32); // tile rows: tiles 0,1 then 2,3
  std::vector<float> want(tiles.begin() + 2 * kTileHW, tiles.end());
  want.insert(want.end(), tiles.begin(), tiles.begin() + 2 * kTileHW);
  EXPECT_EQ(run(c), pack_tiles(want, DataFormat::Float16_b));
}

// Float32 through a 16-bit DST rounds to bfloat16 (as copy_tile does);
// unpacked to a 32-bit DST it keeps every bit.
TEST_F(TilizeTest, Float32RoundsInA16BitDst) {
  std::vector<float> rows(kTileHW, 1.0f + 0x1p-10f);
  rows[5] = 1.0f + 3 * 0x1p-9f; // nearer 1 + 2^-7 than 1 + 2^-8
  for (bool fp32 : {false, true}) {
    Case c;
    c.in_format = c.out_format = DataFormat::Float32;
    c.fp32 = c.unpack_to_dest = fp32;
    c.in = bytes_of(rows, DataFormat::Float32);
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, 1, kOut).op(kCbWait, kIn, 1);
    c.steps.op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut).op(kCbPush, kOut, 1);
    const std::vector<float> out = unpack_tiles(run(c), DataFormat::Float32);
    EXPECT_EQ(out[0], fp32 ? 1.0f + 0x1p-10f : 1.0f);
    EXPECT_EQ(out[5], fp32 ? 1.0f + 3 * 0x1p-9f : 1.0f + 0x1p-7f); // row 0, column 5: tile position 5
  }
}

// tilize_init_short_with_dt points SrcA at the new input CB's format; plain
// tilize_init does not.
TEST_F(TilizeTest, TilizeInitWithDtReconfiguresSrcA) {
  const std::vector<float> rows = values(kTileHW, DataFormat::Float16_b);
  Case c;
  c.in_format = DataFormat::Float32;
  c.in = bytes_of(rows, DataFormat::Float32);
  Steps head = Steps().op(kHwStartup, kOut, kOut, kOut).op(kCbWait, kIn, 1).op(kCbReserve, kOut, 1);
  c.out_drained = 0;
  c.steps = head;
  c.steps.op(kTilizeInit, kIn, 1, kOut).op(kTilize, kIn, 1, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=1, ocb=16, input_tile_index=0, output_tile_index=0): CB 0 holds "
                          "Float32, but the unpacker's SrcA is configured for Float16_b (by compute_kernel_hw_startup "
                          "at " +
                          at("hw_startup").substr(0, at("hw_startup").find(": core")) +
                          "): call reconfig_data_format_srca(0) (or the init's _with_dt form) first");
  c.out_drained = 1;
  c.steps = head;
  c.steps.op(kTilizeInitDt, kOut, kIn, 1, kOut).op(kTilize, kIn, 1, kOut).op(kCbPush, kOut, 1);
  EXPECT_EQ(run(c), pack_tiles(tilize(rows, 32, 32), DataFormat::Float16_b));
}

// Int32 values beyond float's 24 bits move bit for bit with a 32-bit DST.
TEST_F(TilizeTest, Int32MovesExactlyWithFp32Dest) {
  std::vector<int32_t> rows(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i)
    rows[i] = int32_t(0x7654321u * (i + 1)) | 1;
  Case c;
  c.in_format = c.out_format = DataFormat::Int32;
  c.fp32 = true;
  c.in.resize(rows.size() * 4);
  std::memcpy(c.in.data(), rows.data(), c.in.size());
  c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, 1, kOut).op(kCbWait, kIn, 1);
  c.steps.op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut).op(kCbPush, kOut, 1);
  const std::vector<int32_t> want = tilize(std::span<const int32_t>(rows), 32, 32);
  std::vector<uint8_t> bytes(want.size() * 4);
  std::memcpy(bytes.data(), want.data(), bytes.size());
  EXPECT_EQ(run(c), bytes);
}

// Tiles of width `full` back to 32 rows: untilize_block<b> for b dividing full.
TEST_F(TilizeTest, UntilizeMatchesHostUntilizeInEveryFormat) {
  for (DataFormat f : kRowMajorFormats)
    for (auto [b, full] : {std::pair{1u, 1u}, {1u, 3u}, {2u, 2u}, {1u, 4u}}) {
      const std::vector<float> rows = values(size_t(full) * kTileHW, f);
      Case c;
      c.in_format = c.out_format = f;
      c.fp32 = f != DataFormat::Float16_b;
      c.unpack_to_dest = f == DataFormat::Float32;
      c.in = pack_tiles(tilize(rows, 32, full * 32), f);
      c.out_pages = c.out_drained = full;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(kUntilizeInit, kIn).op(kCbWait, kIn, full);
      c.steps.op(kCbReserve, kOut, full).op(kUntilize, kIn, b, full, kOut).op(kCbPush, kOut, full);
      c.steps.op(kUntilizeUninit, kIn);
      EXPECT_EQ(run(c), bytes_of(rows, f)) << to_string(f) << " b " << b << " full " << full;
    }
}

// Block-float tiles untilize to the values they hold.
TEST_F(TilizeTest, UntilizeBlockFloatTiles) {
  const uint32_t full = 2;
  for (DataFormat in : {DataFormat::Bfp8_b, DataFormat::Bfp4_b}) {
    const std::vector<float> rows = values(size_t(full) * kTileHW, DataFormat::Float16_b);
    const std::vector<uint8_t> tiles = pack_tiles(tilize(rows, 32, full * 32), in);
    const std::vector<float> held = untilize(unpack_tiles(tiles, in), 32, full * 32);
    Case c;
    c.in_format = in;
    c.in = tiles;
    c.out_pages = c.out_drained = full;
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kUntilizeInit, kIn).op(kCbWait, kIn, full);
    c.steps.op(kCbReserve, kOut, full).op(kUntilize, kIn, 1, full, kOut).op(kCbPush, kOut, full);
    EXPECT_EQ(run(c), bytes_of(held, DataFormat::Float16_b)) << to_string(in);
  }
}

// pack_untilize_block<b, f>: each column block of b tiles lands at its
// columns of rows f tiles wide; the blocks together make the whole rows.
TEST_F(TilizeTest, PackUntilizeBlocksFillTheirColumns) {
  for (DataFormat f : kRowMajorFormats)
    for (auto [b, full] : {std::pair{1u, 1u}, {3u, 3u}, {1u, 4u}, {2u, 4u}, {4u, 8u}}) {
      const std::vector<float> rows = values(size_t(full) * kTileHW, f);
      Case c;
      c.in_format = c.out_format = f;
      c.fp32 = f != DataFormat::Float16_b;
      c.unpack_to_dest = f == DataFormat::Float32;
      c.in = pack_tiles(tilize(rows, 32, full * 32), f);
      c.out_pages = c.out_drained = full;
      const uint32_t bf = (full << 8) | b;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(kPackUntilizeInit, kIn, bf, kOut).op(kCbReserve, kOut, full);
      for (uint32_t block = 0; block < full / b; ++block)
        c.steps.op(kCbWait, kIn, b).op(kPackUntilize, kIn, bf, kOut, 1, block).op(kCbPop, kIn, b);
      c.steps.op(kCbPush, kOut, full).op(kPackUntilizeUninit, kOut);
      EXPECT_EQ(run(c), bytes_of(rows, f)) << to_string(f) << " b " << b << " full " << full;
    }
}

// Tiles of `rows` (64 rows, two tiles wide) copied into DST and packed by
// pack_untilize_dest in two row blocks of 2 tiles, into `out`; the packer set
// up by `init` (kPackUntilizeDestInit or kLlkPackUntilizeInit) after a
// hardware startup whose output CB is `startup_out`.
Case pack_untilize_dest_case(const std::vector<float>& rows, DataFormat out, uint32_t init, uint32_t startup_out) {
  const uint32_t full = 2, rt = 2;
  Case c;
  c.out_format = out;
  c.in = pack_tiles(tilize(rows, 64, full * 32), DataFormat::Float16_b);
  c.out_pages = c.out_drained = full * rt;
  const uint32_t bf = (full << 8) | full;
  c.steps.op(kHwStartup, kIn, kIn, startup_out).op(kCopyInit, kIn).op(init, 0, bf, kOut);
  c.steps.op(kCbWait, kIn, full * rt).op(kAcquire);
  for (uint32_t t = 0; t < full * rt; ++t)
    c.steps.op(kCopy, kIn, t, t);
  c.steps.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, full * rt).op(kPackUntilizeDest, 0, bf, kOut, rt, 0);
  c.steps.op(kRelease).op(kCbPush, kOut, full * rt).op(kPackUntilizeUninit, kOut);
  return c;
}

// pack_untilize_dest: tiles copied into DST, two row blocks of 2 tiles each.
TEST_F(TilizeTest, PackUntilizeDestPacksDstRows) {
  const std::vector<float> rows = values(size_t(4) * kTileHW, DataFormat::Float16_b); // 64 rows
  for (DataFormat out : {DataFormat::Float16_b, DataFormat::Float32})
    EXPECT_EQ(run(pack_untilize_dest_case(rows, out, kPackUntilizeDestInit, kOut)), bytes_of(rows, out))
        << to_string(out);
}

// llk_pack_untilize_init: the packer's half of pack_untilize_dest_init, which
// keeps the packer's format: the same rows when the formats agree, and the
// format check when they do not.
TEST_F(TilizeTest, LlkPackUntilizeInitPacksDstRowsInThePackersFormat) {
  const std::vector<float> rows = values(size_t(4) * kTileHW, DataFormat::Float16_b);
  for (DataFormat out : {DataFormat::Float16_b, DataFormat::Float32}) {
    const Case c = pack_untilize_dest_case(rows, out, kLlkPackUntilizeInit, kIn);
    if (out == DataFormat::Float16_b) {
      EXPECT_EQ(run(c), bytes_of(rows, out));
    } else {
      const std::string message = fails(c);
      EXPECT_NE(message.find("CB 16 holds Float32, but the packer is configured for Float16_b"), std::string::npos)
          << message;
    }
  }
}

// Timing: per tile, its bytes in (128 B/cycle), a copy (8 cycles) and its
// bytes out (128 B/cycle): 16 + 8 + 16 for Float16_b.
TEST_F(TilizeTest, EachTileCostsItsUnpackCopyAndPack) {
  auto timed = [&](uint32_t code, uint32_t w) {
    Case c;
    c.in = bytes_of(values(size_t(w) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
    c.out_pages = c.out_drained = w;
    const uint32_t bf = (w << 8) | w;
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kCbWait, kIn, w).op(kCbReserve, kOut, w);
    if (code == kTilize) c.steps.op(kTilizeInit, kIn, w, kOut).op(kTilize, kIn, w, kOut);
    if (code == kUntilize) c.steps.op(kUntilizeInit, kIn).op(kUntilize, kIn, 1, w, kOut);
    if (code == kPackUntilize) c.steps.op(kPackUntilizeInit, kIn, bf, kOut).op(kPackUntilize, kIn, bf, kOut, 1, 0);
    c.steps.op(kCbPush, kOut, w);
    return busy_cycles(c);
  };
  for (uint32_t code : {kTilize, kUntilize, kPackUntilize})
    EXPECT_EQ(timed(code, 4) - timed(code, 1), 3u * (16 + 8 + 16)) << "op " << code;
}

} // namespace
} // namespace tessel::test
