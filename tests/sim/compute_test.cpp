// The compute engine (src/sim/compute.cpp): exact results of copy/add/sub/mul
// in Float16_b and Float32 CBs, DST rounding, acc_to_dest, pack_tile filling
// consecutive reserved pages, and every misuse message with its call site,
// after which the device still works. Harness: compute_harness.hpp.
#include "compute_harness.hpp"

namespace tessel::test {
namespace {

TEST_F(ComputeTest, ExactResultsInBf16AndFloat32) {
  const std::vector<float> a = ramp(0.25f, 3.0f), b = ramp(0.5f, -1.0f);
  struct OpCase {
    uint32_t init, op;
    float (*f)(float, float);
  };
  const OpCase ops[] = {{kAddInit, kAdd, [](float x, float y) { return x + y; }},
                        {kSubInit, kSub, [](float x, float y) { return x - y; }},
                        {kMulInit, kMul, [](float x, float y) { return x * y; }},
                        {kCopyInit, kCopy, [](float x, float) { return x; }}};
  for (DataFormat fmt : {DataFormat::Float16_b, DataFormat::Float32})
    for (bool fp32 : {false, true})
      for (const OpCase& o : ops) {
        Case c;
        c.in_format = c.out_format = fmt;
        c.fp32 = fp32;
        c.a = a;
        c.b = b;
        c.steps = one_tile(o.init, o.op, o.op != kCopy);
        const std::vector<float> out = run(c);
        ASSERT_EQ(out.size(), kTileHW);
        for (uint32_t i = 0; i < kTileHW; ++i)
          ASSERT_EQ(out[i], o.f(a[i], b[i]))
              << "format " << to_string(fmt) << " fp32_dest_acc_en " << fp32 << " op " << o.op << " at " << i;
      }
}

// 1 + 2^-10 is a Float32 value bf16 cannot hold: 16-bit DST rounds it (to
// 1, ties to even... it is below half an ULP), fp32_dest_acc_en keeps it.
TEST_F(ComputeTest, DstRoundsToBf16UnlessFp32) {
  for (bool fp32 : {false, true}) {
    Case c;
    c.in_format = c.out_format = DataFormat::Float32;
    c.fp32 = fp32;
    c.a.assign(kTileHW, 1.0f);
    c.b.assign(kTileHW, 0x1p-10f);
    c.a[1] = 1.0f, c.b[1] = 3 * 0x1p-9f; // 1 + 3*2^-9 = 1.00586: bf16 neighbours 1.0039, 1.0078 -> 1.0078 (nearer)
    c.a[2] = 1.0f, c.b[2] = 0x1p-8f;     // 1 + 2^-8: a tie between 1 and 1.0078125 -> 1 (even)
    c.steps = one_tile(kAddInit, kAdd);
    const std::vector<float> out = run(c);
    EXPECT_EQ(out[0], fp32 ? 1.0f + 0x1p-10f : 1.0f);
    EXPECT_EQ(out[1], fp32 ? 1.0f + 3 * 0x1p-9f : 1.0f + 0x1p-7f);
    EXPECT_EQ(out[2], fp32 ? 1.0f + 0x1p-8f : 1.0f);
  }
}

// bf16 inputs whose product needs more than 8 bits: (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14.
// 16-bit DST rounds it to 1 + 2^-6; fp32_dest_acc_en with a Float32 output keeps it.
TEST_F(ComputeTest, Bf16ProductRoundsInDst) {
  for (bool fp32 : {false, true}) {
    Case c;
    c.in_format = DataFormat::Float16_b;
    c.out_format = DataFormat::Float32;
    c.fp32 = fp32;
    c.a.assign(kTileHW, 1.0f + 0x1p-7f);
    c.b = c.a;
    c.steps = one_tile(kMulInit, kMul);
    const std::vector<float> out = run(c);
    EXPECT_EQ(out[0], fp32 ? 1.0f + 0x1p-6f + 0x1p-14f : 1.0f + 0x1p-6f);
    EXPECT_EQ(out[1023], out[0]);
  }
}

// acc_to_dest: DST += A op B; without it the op overwrites DST.
TEST_F(ComputeTest, AccToDestAccumulates) {
  Case c;
  c.a = ramp(0.5f, 1.0f);
  c.b = ramp(0.25f, 2.0f);
  c.in_tiles = 2;
  Steps& s = c.steps;
  s.op(kHwStartup3, kIn0, kIn1, kOut).op(kCbWait, kIn0, 2).op(kCbWait, kIn1, 2).op(kAcquire);
  s.op(kCopyInit, kIn0).op(kCopy, kIn0, 1, 0);                 // DST = A[1]
  s.op(kMulInit, kIn0, kIn1, 1).op(kMul, kIn0, kIn1, 0, 0, 0); // DST += A[0] * B[0]
  s.op(kAddInit, kIn0, kIn1, 1).op(kAdd, kIn0, kIn1, 0, 1, 0); // DST += A[0] + B[1]
  s.op(kSubInit, kIn0, kIn1, 0).op(kSub, kIn0, kIn1, 1, 1, 1); // DST[1] = A[1] - B[1] (overwrites)
  s.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 2).op(kPack, 0, kOut).op(kPack, 1, kOut).op(kCbPush, kOut, 2);
  s.op(kRelease);
  c.out_pages = c.out_tiles = 2;
  const std::vector<float> out = run(c);
  ASSERT_EQ(out.size(), 2 * kTileHW);
  // The second input tiles are zero (the test pads the given values with zeros).
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a0 = c.a[i], b0 = c.b[i];
    ASSERT_EQ(out[i], 0.0f + a0 * b0 + (a0 + 0.0f)) << i;
    ASSERT_EQ(out[kTileHW + i], 0.0f) << i;
  }
}

// Consecutive pack_tile calls fill consecutive reserved pages; a push restarts at the new write pointer.
TEST_F(ComputeTest, PackFillsConsecutiveReservedPages) {
  Case c;
  c.a = ramp(1.0f, 0.0f);
  c.b = ramp(0.0f, 2.0f); // all 2
  c.out_pages = c.out_tiles = 4;
  Steps& s = c.steps;
  s.op(kBinaryCommon, kIn0, kIn1, kOut).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire);
  s.op(kAddInit, kIn0, kIn1).op(kAdd, kIn0, kIn1, 0, 0, 0);
  s.op(kMulInit, kIn0, kIn1).op(kMul, kIn0, kIn1, 0, 0, 1);
  s.op(kSubInit, kIn0, kIn1).op(kSub, kIn0, kIn1, 0, 0, 2);
  s.op(kCommit).op(kWaitDst);
  s.op(kCbReserve, kOut, 3).op(kPack, 2, kOut).op(kPack, 0, kOut).op(kPack, 1, kOut).op(kCbPush, kOut, 3);
  s.op(kCbReserve, kOut, 1).op(kPack, 1, kOut).op(kCbPush, kOut, 1).op(kRelease);
  const std::vector<float> out = run(c);
  ASSERT_EQ(out.size(), 4 * kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a = c.a[i];
    ASSERT_EQ(out[i], a - 2) << i;
    ASSERT_EQ(out[kTileHW + i], a + 2) << i;
    ASSERT_EQ(out[2 * kTileHW + i], a * 2) << i;
    ASSERT_EQ(out[3 * kTileHW + i], a * 2) << i;
  }
}

// acquire_dst/release_dst, the MATH((...)) / PACK((...)) wrappers, full-sync with 16 tiles.
TEST_F(ComputeTest, LegacyAcquireAndFullSync) {
  Case c;
  c.a = ramp(1.0f, 0.0f);
  c.b = ramp(1.0f, 1.0f);
  c.full_sync = true;
  Steps& s = c.steps;
  s.op(kHwStartup3, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  s.op(kAcquireDst).op(kAdd, kIn0, kIn1, 0, 0, 15).op(kCbReserve, kOut, 1).op(kPack, 15, kOut);
  s.op(kCbPush, kOut, 1).op(kReleaseDst);
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out[i], c.a[i] + c.b[i]) << i;
  Case m = c;
  m.steps = Steps();
  m.steps.op(kHwStartup2, kIn0, 0, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  m.steps.op(kAcquireDst).op(kCbReserve, kOut, 1).op(kMathAddPack, kIn0, kIn1, 0, 0, 3).op(kCbPush, kOut, 1);
  m.steps.op(kReleaseDst);
  const std::vector<float> out2 = run(m);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out2[i], c.a[i] + c.b[i]) << i;
}

// Acquire gives zeroed tiles, also after a section was used.
TEST_F(ComputeTest, AcquireZeroesDst) {
  Case c;
  c.a = ramp(1.0f, 5.0f);
  c.b = ramp(1.0f, 5.0f);
  c.out_pages = c.out_tiles = 2;
  Steps& s = c.steps;
  s.op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1, 1).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  for (int round = 0; round < 2; ++round) {
    for (int half = 0; half < 2; ++half) { // both half-sync sections get used twice
      s.op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, 0).op(kCommit).op(kWaitDst);
      if (round == 1 && half == 1) s.op(kCbReserve, kOut, 2).op(kPack, 0, kOut).op(kPack, 1, kOut).op(kCbPush, kOut, 2);
      s.op(kRelease);
    }
  }
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    ASSERT_EQ(out[i], c.a[i] + c.b[i]) << i; // accumulated once onto a zeroed tile
    ASSERT_EQ(out[kTileHW + i], 0.0f) << i;
  }
}

// ---------------------------------------------------------------------------
// Misuse

TEST_F(ComputeTest, MissingInitsAreReported) {
  Case c;
  c.a = c.b = ramp(1.0f, 0.0f);
  // add_tiles with no init at all.
  c.steps = Steps().op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, 0);
  EXPECT_EQ(fails(c), at("add_tiles") +
                          "add_tiles(cb0=0, cb1=1, itile0=0, itile1=0, idst=0): binary ops need "
                          "binary_op_init_common (or compute_kernel_hw_startup) first (no op init was called in this "
                          "kernel)");
  // binary_op_init_common, but the last op init was copy_tile_init.
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kCopyInit, kIn0).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  c.steps.op(kAcquire).op(kMul, kIn0, kIn1, 0, 0, 0);
  EXPECT_EQ(fails(c), at("mul_tiles") +
                          "mul_tiles(cb0=0, cb1=1, itile0=0, itile1=0, idst=0): the FPU is not configured for "
                          "mul_tiles: call mul_tiles_init(cb0, cb1) first (the last op init was copy_tile_init at " +
                          std::string(kComputeName) + ":" + std::to_string(compute_line("copy_tile_init")) + ")");
  // copy_tile after add_tiles_init.
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1);
  c.steps.op(kAcquire).op(kCopy, kIn0, 0, 0);
  EXPECT_EQ(fails(c), at("copy_tile") +
                          "copy_tile(cb=0, itile=0, idst=0): the unpacker is not configured for copy_tile: call "
                          "copy_tile_init(cb) (or unary_op_init_common / init_sfpu) first (the last op init was "
                          "add_tiles_init at " +
                          std::string(kComputeName) + ":" + std::to_string(compute_line("add_tiles_init")) + ")");
  // copy_tile_init alone configures the unpacker, not the packer.
  c.steps = Steps().op(kCopyInitShort, kIn0).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 0, 0).op(kCommit);
  c.steps.op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") +
                          "pack_tile(idst=0, cb=16): the packer is not configured: call compute_kernel_hw_startup, "
                          "binary_op_init_common, unary_op_init_common or init_sfpu first");
  // Each accepted spelling of the copy init works.
  for (uint32_t init : {kCopyInit, kCopyInitShort, kCopyInitNew, kInitSfpu, kUnaryCommon}) {
    Case ok = c;
    ok.steps = Steps().op(kHwStartup2, kIn0, 0, kOut).op(init, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire);
    ok.steps.op(kCopy, kIn0, 0, 0).op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
    ok.steps.op(kCbPush, kOut, 1).op(kRelease);
    const std::vector<float> out = run(ok);
    EXPECT_EQ(out[5], ok.a[5]) << "init " << init;
  }
}

TEST_F(ComputeTest, DstIndexBeyondCapacity) {
  struct Mode {
    bool full_sync, fp32;
    uint32_t capacity;
    const char* text;
  };
  const Mode modes[] = {{false, false, 8, "half-sync with 16-bit DST"},
                        {false, true, 4, "half-sync with fp32_dest_acc_en"},
                        {true, false, 16, "full-sync with 16-bit DST"},
                        {true, true, 8, "full-sync with fp32_dest_acc_en"}};
  for (const Mode& m : modes) {
    Case c;
    c.full_sync = m.full_sync;
    c.fp32 = m.fp32;
    c.a = c.b = ramp(1.0f, 0.0f);
    // The last index works ...
    c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1);
    c.steps.op(kCbWait, kIn1, 1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, m.capacity - 1).op(kCommit).op(kWaitDst);
    c.steps.op(kCbReserve, kOut, 1).op(kPack, m.capacity - 1, kOut).op(kCbPush, kOut, 1).op(kRelease);
    EXPECT_EQ(run(c)[7], c.a[7] + c.b[7]) << m.text;
    // ... one more fails.
    c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1);
    c.steps.op(kCbWait, kIn1, 1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, m.capacity);
    const std::string cap = std::to_string(m.capacity);
    EXPECT_EQ(fails(c), at("add_tiles") + "add_tiles(cb0=0, cb1=1, itile0=0, itile1=0, idst=" + cap + "): DST index " +
                            cap + " is out of range: one acquire holds " + cap + " tiles in " + m.text +
                            " mode (indices 0.." + std::to_string(m.capacity - 1) +
                            "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)");
    // pack_tile checks the index too.
    c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 0, 0);
    c.steps.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, m.capacity + 3, kOut);
    const std::string bad = std::to_string(m.capacity + 3);
    EXPECT_EQ(fails(c), at("pack_tile") + "pack_tile(idst=" + bad + ", cb=16): DST index " + bad +
                            " is out of range: one acquire holds " + cap + " tiles in " + m.text +
                            " mode (indices 0.." + std::to_string(m.capacity - 1) +
                            "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)");
  }
}

TEST_F(ComputeTest, PackBeyondReservationAndTileBeyondWait) {
  Case c;
  c.a = c.b = ramp(1.0f, 0.0f);
  c.in_tiles = 2;
  c.out_pages = 2;
  c.out_tiles = 0;
  Steps base = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 2).op(kAcquire).op(kCopy, kIn0, 1, 0);
  base.op(kCommit).op(kWaitDst);
  // Packing beyond the reservation into free pages runs on silicon: a
  // warning, an error under TESSEL_STRICT=1.
  const std::string strict = " (a warning, made an error by TESSEL_STRICT=1)";
  setenv("TESSEL_STRICT", "1", 1);
  c.steps = base;
  c.steps.op(kCbReserve, kOut, 1).op(kPack, 0, kOut).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") +
                          "pack_tile(idst=0, cb=16): this packs page 1 (counting from 0) since the last "
                          "cb_push_back, but only 1 page is reserved with cb_reserve_back; the CB has "
                          "room for it, so silicon packs it, but nothing waited for that room: reserve "
                          "it with cb_reserve_back first" +
                          strict);
  c.steps = base;
  c.steps.op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") +
                          "pack_tile(idst=0, cb=16): this packs page 0 (counting from 0) since the last "
                          "cb_push_back, but only 0 pages are reserved with cb_reserve_back; the CB has "
                          "room for it, so silicon packs it, but nothing waited for that room: reserve "
                          "it with cb_reserve_back first" +
                          strict);
  unsetenv("TESSEL_STRICT");
  // Without TESSEL_STRICT the kernel runs: pack and push without reserving, once per call site on stderr.
  c.out_tiles = 1;
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 2).op(kAcquire).op(kCopy, kIn0, 0, 0);
  c.steps.op(kCommit).op(kWaitDst).op(kPack, 0, kOut).op(kCbPush, kOut, 1).op(kRelease);
  testing::internal::CaptureStderr();
  const std::vector<float> out = run(c);
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, std::vector<float>(c.a.begin(), c.a.begin() + kTileHW)) << "the packed tile is tile 0";
  EXPECT_NE(warnings.find("tessel: warning: " + at("pack_tile") + "pack_tile(idst=0, cb=16): this packs page 0"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("cb_push_back(cb=16, pages=1): pushes more pages than are reserved (0); the CB has room for "
                          "them, so silicon runs this, but nothing waited for that room"),
            std::string::npos)
      << warnings;
  c.out_tiles = 0;
  // Over a page the consumer can still read it is an error: nothing pops the pushed page of this 2-page CB.
  c.steps = base;
  c.steps.op(kCbReserve, kOut, 2).op(kPack, 0, kOut).op(kPack, 0, kOut).op(kCbPush, kOut, 2).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") + "pack_tile(idst=0, cb=16): this packs page 0 (counting from 0) since the last "
                                        "cb_push_back, but only 0 pages are reserved with cb_reserve_back, and the "
                                        "CB has 0 free of 2: this would overwrite a page the consumer can still "
                                        "read; wait for room with cb_reserve_back first");
  // Tile index beyond the waited pages.
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 1, 0);
  EXPECT_EQ(fails(c), at("copy_tile") + "copy_tile(cb=0, itile=1, idst=0): tile 1 of CB 0 is beyond the 1 page "
                                        "waited for with cb_wait_front (tile indices 0..0)");
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kSubInit, kIn0, kIn1).op(kCbWait, kIn0, 2);
  c.steps.op(kAcquire).op(kSub, kIn0, kIn1, 1, 0, 0);
  EXPECT_EQ(fails(c), at("sub_tiles") + "sub_tiles(cb0=0, cb1=1, itile0=1, itile1=0, idst=0): no pages of CB 1 "
                                        "are waited for: call cb_wait_front(1, n) first");
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 2);
  c.steps.op(kCbWait, kIn1, 2).op(kAcquire).op(kAdd, kIn0, kIn1, 1, 2, 0);
  EXPECT_EQ(fails(c), at("add_tiles") + "add_tiles(cb0=0, cb1=1, itile0=1, itile1=2, idst=0): tile 2 of CB 1 is "
                                        "beyond the 2 pages waited for with cb_wait_front (tile indices 0..1)");
  // An unconfigured CB.
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kAcquire).op(kCopy, 5, 0, 0);
  EXPECT_EQ(fails(c), at("copy_tile") + "copy_tile(cb=5): CB 5 is not configured on this core by the program");
}

// A CB format the compute engine does not convert.
TEST_F(ComputeTest, UnsupportedFormat) {
  Case c;
  c.in_format = DataFormat::Float16_b;
  c.out_format = DataFormat::Float16;
  c.a = c.b = ramp(1.0f, 0.0f);
  c.out_tiles = 0;
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 0, 0);
  c.steps.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") + "pack_tile(idst=0, cb=16): CB 16 holds Float16, which the compute engine "
                                        "does not convert; expected Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, "
                                        "UInt32, UInt16 or UInt8");
}

TEST_F(ComputeTest, DstProtocolViolations) {
  Case c;
  c.a = c.b = ramp(1.0f, 0.0f);
  c.out_tiles = 0;
  const Steps init = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1);
  auto with = [&](Steps s) {
    Steps all = init;
    all.words.insert(all.words.end(), s.words.begin(), s.words.end());
    c.steps = all;
    return fails(c);
  };
  const std::string acquire_site = std::string(kComputeName) + ":" + std::to_string(compute_line("acquire"));
  EXPECT_EQ(with(Steps().op(kCopy, kIn0, 0, 0)),
            at("copy_tile") + "copy_tile(cb=0, itile=0, idst=0): MATH does not hold DST: call tile_regs_acquire "
                              "(or acquire_dst) before writing DST");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kCopy, kIn0, 0, 0)),
            at("copy_tile") + "copy_tile(cb=0, itile=0, idst=0): MATH does not hold DST: call tile_regs_acquire "
                              "(or acquire_dst) before writing DST (the last section was already handed to PACK "
                              "with tile_regs_commit)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kAcquire)), at("acquire") +
                                                         "tile_regs_acquire: MATH already holds DST (acquired at " +
                                                         acquire_site + "); call tile_regs_commit first");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCopy, kIn0, 0, 0).op(kCbReserve, kOut, 1).op(kPack, 0, kOut)),
            at("pack_tile") + "pack_tile(idst=0, cb=16): PACK does not hold DST: call tile_regs_wait (after "
                              "tile_regs_commit) first (MATH still holds it: tile_regs_commit hands it over)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kCbReserve, kOut, 1).op(kPack, 0, kOut)),
            at("pack_tile") + "pack_tile(idst=0, cb=16): PACK does not hold DST: call tile_regs_wait (after "
                              "tile_regs_commit) first");
  EXPECT_EQ(with(Steps().op(kCommit)),
            at("commit") + "tile_regs_commit: MATH does not hold DST: call tile_regs_acquire first");
  EXPECT_EQ(with(Steps().op(kWaitDst)), at("wait") + "tile_regs_wait: no DST section has been committed: call "
                                                     "tile_regs_commit first (waiting would never return)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kWaitDst).op(kWaitDst)),
            at("wait") + "tile_regs_wait: PACK already holds DST: call tile_regs_release first");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kRelease)),
            at("release") + "tile_regs_release: PACK does not hold DST: call tile_regs_wait first");
  // Half-sync has two sections: a third acquire before any release would wait forever.
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kAcquire).op(kCommit).op(kAcquire)),
            at("acquire") + "tile_regs_acquire: every DST section (2 in half-sync with 16-bit DST mode) is "
                            "committed and not yet released by PACK: call tile_regs_wait and tile_regs_release "
                            "first (on the device this acquire would wait forever)");
  EXPECT_EQ(with(Steps().op(kReleaseDst)), at("release_dst") + "release_dst: DST was not acquired with acquire_dst");
  // Mixing the protocols (Metalium's release_dst is MATH's and PACK's section-done): silicon loses step.
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCopy, kIn0, 0, 0).op(kCommit).op(kWaitDst).op(kReleaseDst)),
            at("release_dst") + "release_dst: DST was not acquired with acquire_dst (it is held through "
                                "tile_regs_*: use tile_regs_commit/wait/release); after tile_regs_commit, release_dst "
                                "would end MATH's DST section a second time: MATH and PACK would lose step (in "
                                "half-sync MATH moves to the other half of DST while PACK stays, and PACK can read a "
                                "section before MATH has written it)");
  EXPECT_EQ(with(Steps().op(kAcquireDst).op(kCommit)),
            at("commit") + "tile_regs_commit: MATH does not hold DST through tile_regs_acquire (it used "
                           "acquire_dst: end with release_dst)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCopy, kIn0, 0, 0).op(kCommit).op(kWaitDst)),
            at("acquire") + "kernel ended holding DST (last acquired here): every tile_regs_acquire needs its "
                            "tile_regs_commit, tile_regs_wait and tile_regs_release before the kernel returns");
  EXPECT_EQ(with(Steps().op(kAcquireDst)), at("acquire_dst") + "kernel ended holding DST (acquired here with "
                                                               "acquire_dst): call release_dst before returning");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kAcquireDst)),
            at("acquire_dst") + "acquire_dst: a DST section is still committed to PACK: call tile_regs_wait and "
                                "tile_regs_release first");
}

// Two acquires in flight in half-sync use separate sections: PACK sees the first one's tiles.
TEST_F(ComputeTest, HalfSyncDoubleBuffers) {
  Case c;
  c.a = ramp(1.0f, 0.0f);
  c.b = ramp(1.0f, 7.0f);
  c.out_pages = c.out_tiles = 2;
  Steps& s = c.steps;
  s.op(kBinaryCommon, kIn0, kIn1, kOut).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  s.op(kAddInit, kIn0, kIn1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, 0).op(kCommit);
  s.op(kMulInit, kIn0, kIn1).op(kAcquire).op(kMul, kIn0, kIn1, 0, 0, 0).op(kCommit);
  s.op(kCbReserve, kOut, 2);
  s.op(kWaitDst).op(kPack, 0, kOut).op(kRelease);
  s.op(kWaitDst).op(kPack, 0, kOut).op(kRelease).op(kCbPush, kOut, 2);
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    ASSERT_EQ(out[i], c.a[i] + c.b[i]) << i;
    ASSERT_EQ(out[kTileHW + i], c.a[i] * c.b[i]) << i;
  }
}

} // namespace
} // namespace tessel::test
