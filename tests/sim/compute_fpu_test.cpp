// The compute engine's FPU ops beyond element-wise add/sub/mul: matmul_tiles
// and matmul_block (with transpose and every MathFidelity), reduce_tile for
// every pool and dim, transpose_wh_tile, the broadcast forms,
// copy_block_matmul_partials, out-of-order pack_tile, data-format
// configuration and reconfiguration, and their misuse messages.
//
// Results are checked against float64 references computed here from the
// unpacked inputs; the bound of each check is stated where it is made.
#include "compute_harness.hpp"

namespace tessel::test {
namespace {

class ComputeFpuTest : public ComputeTest {};

std::string line_of(const std::string& marker) {
  return std::string(kComputeName) + ":" + std::to_string(compute_line(marker));
}

// bf16 values with up to 8 significant bits in [-2, 2), from a fixed LCG.
std::vector<float> random_tiles(uint32_t tiles, uint64_t seed) {
  std::vector<float> v(size_t(tiles) * kTileHW);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = bf16_to_float(float_to_bf16(float(double(state >> 40) / double(1ull << 24) * 4.0 - 2.0)));
  }
  return v;
}

// Element (r, c) of tile t in tile order (four 16x16 faces).
size_t at(uint32_t t, uint32_t r, uint32_t c) {
  return size_t(t) * kTileHW + ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16;
}

// Steps that end a DST section: commit, wait, reserve n pages, pack idst 0..n-1, push, release.
Steps& pack_all(Steps& s, uint32_t n) {
  s.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, n);
  for (uint32_t i = 0; i < n; ++i)
    s.op(kPack, i, kOut);
  return s.op(kCbPush, kOut, n).op(kRelease);
}

// The tile product sum_k a[t0](r, k) * b[t1](k, c) (b transposed if asked) in float64.
double dot(const std::vector<float>& a, uint32_t t0, const std::vector<float>& b, uint32_t t1, uint32_t r, uint32_t c,
           bool transpose, double* magnitude) {
  double sum = 0, mag = 0;
  for (uint32_t k = 0; k < 32; ++k) {
    const double x = a[at(t0, r, k)], y = transpose ? b[at(t1, c, k)] : b[at(t1, k, c)];
    sum += x * y;
    mag += std::fabs(x * y);
  }
  *magnitude += mag;
  return sum;
}

// Bound for a bf16 matmul result: half a bf16 ULP of the result, plus float
// accumulation error (2^-20 of the magnitude sum) and one bf16 rounding per
// accumulation step into 16-bit DST (steps x 2^-8 of the magnitude sum).
double bf16_bound(double ref, double magnitude, uint32_t steps) {
  return std::ldexp(std::fabs(ref), -8) + magnitude * (std::ldexp(1.0, -20) + (steps - 1) * std::ldexp(1.0, -8));
}

TEST_F(ComputeFpuTest, MatmulTilesAccumulatesOverKAgainstFloat64) {
  for (bool transpose : {false, true}) {
    Case c;
    c.in_tiles = 3;
    c.a = random_tiles(3, 1);
    c.b = random_tiles(3, 2);
    c.steps = Steps().op(kMmInit, kIn0, kIn1, kOut, transpose).op(kCbWait, kIn0, 3).op(kCbWait, kIn1, 3).op(kAcquire);
    for (uint32_t k = 0; k < 3; ++k)
      c.steps.op(transpose ? kMatmulT : kMatmul, kIn0, kIn1, k, k, 0);
    pack_all(c.steps, 1);
    const std::vector<float> out = run(c);
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t col = 0; col < 32; ++col) {
        double ref = 0, mag = 0;
        for (uint32_t k = 0; k < 3; ++k)
          ref += dot(c.a, k, c.b, k, r, col, transpose, &mag);
        ASSERT_NEAR(out[at(0, r, col)], ref, bf16_bound(ref, mag, 3))
            << "transpose " << transpose << " at (" << r << ", " << col << ")";
      }
  }
}

TEST_F(ComputeFpuTest, MatmulBlockComputesEveryOutputTile) {
  // A is 2x2 tiles (rt x kt), B is 2x2 tiles (kt x ct), row-major tile order.
  // One matmul_block per k: in0 tile index k (rows step by kt), in1 index k * ct.
  Case c;
  c.in_tiles = 4;
  c.out_pages = c.out_tiles = 4;
  c.a = random_tiles(4, 3);
  c.b = random_tiles(4, 4);
  c.steps = Steps().op(kMmBlockInit, kIn0, kIn1, kOut, 0).op(kCbWait, kIn0, 4).op(kCbWait, kIn1, 4).op(kAcquire);
  for (uint32_t k = 0; k < 2; ++k)
    c.steps.op(kMatmulBlock, (kIn0 << 8) | kIn1, k, k * 2, 0, (2 << 16) | (2 << 8) | 2);
  pack_all(c.steps, 4);
  const std::vector<float> out = run(c);
  for (uint32_t rt = 0; rt < 2; ++rt)
    for (uint32_t ct = 0; ct < 2; ++ct)
      for (uint32_t r = 0; r < 32; r += 5)
        for (uint32_t col = 0; col < 32; col += 3) {
          double ref = 0, mag = 0;
          for (uint32_t k = 0; k < 2; ++k)
            ref += dot(c.a, rt * 2 + k, c.b, k * 2 + ct, r, col, false, &mag);
          ASSERT_NEAR(out[at(rt * 2 + ct, r, col)], ref, bf16_bound(ref, mag, 2))
              << "output tile (" << rt << ", " << ct << ") at (" << r << ", " << col << ")";
        }
}

// x with `bits` explicit mantissa bits kept.
float keep(float x, int bits) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & ~((1u << (23 - bits)) - 1u)); }

// With one nonzero element per operand, a matmul or mul result is a single
// product, computed here from the multiplier model of docs/numerics.md: SrcA
// keeps 4 explicit mantissa bits per pass, SrcB 6; matmul puts in1 on SrcA.
TEST_F(ComputeFpuTest, MathFidelitySelectsMultiplierPasses) {
  const float x = 1.9921875f, y = 1.9921875f; // 0x3fff in bf16: every mantissa bit set
  const float b_lo = y - keep(y, 6);
  struct Expect {
    MathFidelity fidelity;
    double product; // srcA = y... symmetric inputs, so in0/in1 roles coincide numerically
  };
  const double lofi = double(keep(x, 4)) * keep(y, 6);
  const double hifi2 = double(x) * keep(y, 6);
  const double hifi3 = hifi2 + double(keep(x, 4)) * b_lo;
  const double hifi4 = double(x) * y;
  const Expect expects[] = {{MathFidelity::LoFi, lofi},
                            {MathFidelity::HiFi2, hifi2},
                            {MathFidelity::HiFi3, hifi3},
                            {MathFidelity::HiFi4, hifi4}};
  ASSERT_LT(lofi, hifi2);
  ASSERT_LT(hifi2, hifi3);
  ASSERT_LT(hifi3, hifi4);
  for (const Expect& e : expects)
    for (bool matmul : {true, false}) {
      Case c;
      c.fp32 = true;
      c.out_format = DataFormat::Float32;
      c.fidelity = e.fidelity;
      c.a.assign(kTileHW, 0.0f);
      c.b.assign(kTileHW, 0.0f);
      c.a[0] = x;
      c.b[0] = y;
      c.steps = Steps();
      if (matmul)
        c.steps.op(kMmInit, kIn0, kIn1, kOut, 0);
      else
        c.steps.op(kHwStartup3, kIn0, kIn1, kOut).op(kMulInit, kIn0, kIn1, 0);
      c.steps.op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire).op(matmul ? kMatmul : kMul, kIn0, kIn1, 0, 0, 0);
      pack_all(c.steps, 1);
      const std::vector<float> out = run(c);
      EXPECT_EQ(double(out[0]), e.product) << "fidelity " << int(e.fidelity) << (matmul ? " matmul" : " mul");
    }
}

TEST_F(ComputeFpuTest, ReduceEveryPoolAndDim) {
  // Two input tiles reduced into one DST tile: SUM/AVG add, MAX maxes. The
  // inputs are negative so MAX cannot come from DST's zeroes.
  std::vector<float> x = random_tiles(2, 5);
  for (float& v : x)
    v = bf16_to_float(float_to_bf16(-std::fabs(v) - 0.25f));
  for (uint32_t pool : {0u, 1u, 2u})
    for (uint32_t dim : {0u, 1u, 2u}) {
      const float scaler = pool == 1 ? 1.0f / 64 : pool == 0 ? 0.5f : 1.0f;
      Case c;
      c.in_tiles = 2;
      c.a = x;
      c.b.assign(2 * kTileHW, scaler);
      const uint32_t pool_dim = (pool << 4) | dim;
      c.steps = Steps().op(kHwStartup3, kIn0, kIn1, kOut).op(kReduceInit, kIn0, kIn1, kOut, pool_dim);
      c.steps.op(kCbWait, kIn0, 2).op(kCbWait, kIn1, 2).op(kAcquire);
      for (uint32_t t = 0; t < 2; ++t)
        c.steps.op(kReduce, kIn0, kIn1, t, 0, pool_dim << 8);
      pack_all(c.steps, 1);
      c.steps.op(kReduceUninit);
      const std::vector<float> out = run(c);
      const bool max = pool == 2;
      for (uint32_t r = 0; r < 32; ++r)
        for (uint32_t col = 0; col < 32; ++col) {
          const bool live = dim == 0 ? col == 0 : dim == 1 ? r == 0 : r == 0 && col == 0;
          double ref = max ? -1e300 : 0, mag = 0;
          if (live)
            for (uint32_t t = 0; t < 2; ++t)
              for (uint32_t i = 0; i < 32; ++i)
                for (uint32_t j = 0; j < 32; ++j) {
                  const bool in = dim == 0 ? i == r : dim == 1 ? j == col : true;
                  if (!in) continue;
                  const double v = double(x[at(t, i, j)]) * scaler;
                  ref = max ? std::max(ref, v) : ref + v;
                  mag += std::fabs(v);
                }
          if (!live) ref = 0;
          // SUM: half a bf16 ULP per accumulation into DST (2) and float sums; MAX: exact.
          const double bound = max ? 0 : std::ldexp(std::fabs(ref), -8) + mag * std::ldexp(1.0, -8);
          ASSERT_NEAR(out[at(0, r, col)], ref, bound)
              << "pool " << pool << " dim " << dim << " at (" << r << ", " << col << ")";
        }
    }
}

// binary_dest_reuse_tiles: DST (here tile a, copied in) on SrcA or SrcB, the
// CB's tile on the other; unary_bcast writes a broadcast of the CB's row 0,
// column 0 or [0][0]. Ramp values keep every result exact in bf16.
TEST_F(ComputeFpuTest, DestReuseAndUnaryBroadcast) {
  const std::vector<float> a = ramp(0.25f, 1.0f), b = ramp(0.5f, -2.0f);
  for (uint32_t op_reuse : {0x01u, 0x11u, 0x12u, 0x21u}) {
    Case c;
    c.a = a;
    c.b = b;
    c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kCopyInit, kIn0).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
    c.steps.op(kAcquire).op(kCopy, kIn0, 0, 0).op(kDestReuseInit, kIn1, op_reuse).op(kDestReuse, op_reuse, kIn1, 0, 0);
    pack_all(c.steps, 1);
    const std::vector<float> out = run(c);
    for (uint32_t i = 0; i < kTileHW; ++i) {
      const float x = a[i], y = b[i];
      const float want = op_reuse == 0x01 ? x + y : op_reuse == 0x11 ? x - y : op_reuse == 0x12 ? y - x : x * y;
      ASSERT_EQ(out[i], want) << "op_reuse " << std::hex << op_reuse << std::dec << " at " << i;
    }
  }
  for (uint32_t dim : {1u, 2u, 3u}) {
    Case c;
    c.a = a;
    c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kUnaryBcastInit, kIn0, kOut, dim).op(kCbWait, kIn0, 1);
    c.steps.op(kAcquire).op(kUnaryBcast, dim, kIn0, 0, 0);
    pack_all(c.steps, 1);
    c.steps.op(kUnaryBcastUninit, kIn0, dim);
    const std::vector<float> out = run(c);
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t col = 0; col < 32; ++col) {
        const float want = dim == 2 ? a[at(0, 0, col)] : dim == 1 ? a[at(0, r, 0)] : a[0];
        ASSERT_EQ(out[at(0, r, col)], want) << "bcast " << dim << " at (" << r << ", " << col << ")";
      }
  }
  // Without its init, the op names the init to call.
  Case c;
  c.a = a;
  c.b = b;
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kCbWait, kIn1, 1).op(kAcquire);
  c.steps.op(kDestReuse, 0x11, kIn1, 0, 0);
  EXPECT_EQ(fails(c), at("dest_reuse") +
                          "binary_dest_reuse_tiles<sub_tiles, DEST_TO_SRCA>(cb=1, itile=0, idst=0): the unpacker is "
                          "not configured for it: call binary_dest_reuse_tiles_init<the same op and reuse>(icb) "
                          "first (no op init was called in this kernel)");
}

TEST_F(ComputeFpuTest, TransposeBroadcastsCopyBlockAndOutOfOrderPack) {
  const std::vector<float> a = ramp(0.25f, 1.0f), b = ramp(0.5f, -2.0f);
  {
    Case c;
    c.a = a;
    c.steps = Steps().op(kHwStartup3, kIn0, kIn1, kOut).op(kTransposeInit, kIn0, 0, kOut).op(kCbWait, kIn0, 1);
    c.steps.op(kAcquire).op(kTranspose, kIn0, 0, 0);
    pack_all(c.steps, 1);
    const std::vector<float> out = run(c);
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t col = 0; col < 32; ++col)
        ASSERT_EQ(out[at(0, r, col)], a[at(0, col, r)]) << "(" << r << ", " << col << ")";
  }
  // Broadcasts: ramp values keep every sum, difference and product exact in bf16.
  for (uint32_t op : {0u, 1u, 2u})
    for (uint32_t dim : {1u, 2u, 3u}) {
      Case c;
      c.a = a;
      c.b = b;
      const uint32_t op_dim = (op << 4) | dim;
      c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kBcastInit, kIn0, kIn1, op_dim);
      c.steps.op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire).op(kBcast, op_dim, (kIn0 << 8) | kIn1, 0, 0, 0);
      pack_all(c.steps, 1);
      const std::vector<float> out = run(c);
      for (uint32_t r = 0; r < 32; ++r)
        for (uint32_t col = 0; col < 32; ++col) {
          const float x = a[at(0, r, col)];
          const float y = dim == 2 ? b[at(0, 0, col)] : dim == 1 ? b[at(0, r, 0)] : b[0];
          const float want = op == 0 ? x + y : op == 1 ? x - y : x * y;
          ASSERT_EQ(out[at(0, r, col)], want) << "op " << op << " bcast " << dim << " at (" << r << ", " << col << ")";
        }
    }
  {
    // copy_block_matmul_partials reloads three tiles; pack_tile<true> writes them reversed.
    Case c;
    c.in_tiles = 3;
    c.out_pages = c.out_tiles = 3;
    c.a = random_tiles(3, 6);
    c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 3).op(kAcquire).op(kCopyBlock, kIn0, 0, 0, 3);
    c.steps.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 3);
    for (uint32_t i = 0; i < 3; ++i)
      c.steps.op(kPackAt, i, kOut, 2 - i);
    c.steps.op(kCbPush, kOut, 3).op(kRelease);
    const std::vector<float> out = run(c);
    for (uint32_t t = 0; t < 3; ++t)
      for (uint32_t i = 0; i < kTileHW; ++i)
        ASSERT_EQ(out[size_t(t) * kTileHW + i], c.a[size_t(2 - t) * kTileHW + i]) << "tile " << t << " at " << i;
  }
}

TEST_F(ComputeFpuTest, DataFormatsAreConfiguredAndReconfigured) {
  Case c;
  c.in1_format = DataFormat::Bfp8_b;
  c.a = c.b = ramp(0.25f, 1.0f);
  // SrcA configured for CB 0 (Float16_b); copying from CB 1 (Bfp8_b) needs a reconfig.
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCopyInit, kIn1).op(kCbWait, kIn1, 1).op(kAcquire);
  c.steps.op(kCopy, kIn1, 0, 0);
  EXPECT_EQ(fails(c), at("copy_tile") +
                          "copy_tile(cb=1, itile=0, idst=0): CB 1 holds Bfp8_b, but the unpacker's "
                          "SrcA is configured for Float16_b (by unary_op_init_common at " +
                          line_of("unary_op_init_common") +
                          "): call reconfig_data_format_srca(1) (or reconfig_data_format) first");
  // Each reconfiguring spelling fixes it.
  for (uint32_t fix : {kReconfigA, kCopyInitWithDt, kReconfigBoth}) {
    Case ok = c;
    ok.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut);
    if (fix == kReconfigA) ok.steps.op(kReconfigA, kIn1).op(kCopyInit, kIn1);
    if (fix == kCopyInitWithDt) ok.steps.op(kCopyInitWithDt, kIn0, kIn1);
    if (fix == kReconfigBoth) ok.steps.op(kReconfigBoth, kIn0, kIn1, kIn0, kIn1).op(kCopyInit, kIn1);
    ok.steps.op(kCbWait, kIn1, 1).op(kAcquire).op(kCopy, kIn1, 0, 0);
    pack_all(ok.steps, 1);
    EXPECT_EQ(run(ok)[7], ok.b[7]) << "fix " << fix;
  }
  // reconfig with an `old` of the same format as `new` changes nothing (the
  // hardware skips it), so the mismatch stays.
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kReconfigBoth, kIn1, kIn1, kIn1, kIn1).op(kCopyInit, kIn1);
  c.steps.op(kCbWait, kIn1, 1).op(kAcquire).op(kCopy, kIn1, 0, 0);
  EXPECT_NE(fails(c).find("CB 1 holds Bfp8_b, but the unpacker's SrcA is configured for Float16_b"), std::string::npos);

  // The packer: configured for CB 1's format, packing into CB 16.
  Case p;
  p.in1_format = DataFormat::Bfp8_b;
  p.a = p.b = ramp(0.25f, 1.0f);
  p.steps = Steps().op(kHwStartup3, kIn0, kIn0, kIn1).op(kCopyInit, kIn0).op(kCbWait, kIn0, 1).op(kAcquire);
  p.steps.op(kCopy, kIn0, 0, 0).op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
  EXPECT_EQ(fails(p), at("pack_tile") +
                          "pack_tile(idst=0, cb=16): CB 16 holds Float16_b, but the packer is "
                          "configured for Bfp8_b (by compute_kernel_hw_startup at " +
                          line_of("hw_startup") + "): call pack_reconfig_data_format(16) first");
  p.steps = Steps().op(kHwStartup3, kIn0, kIn0, kIn1).op(kReconfigPack, kOut).op(kCopyInit, kIn0).op(kCbWait, kIn0, 1);
  p.steps.op(kAcquire).op(kCopy, kIn0, 0, 0);
  pack_all(p.steps, 1);
  EXPECT_EQ(run(p)[3], p.a[3]);
}

TEST_F(ComputeFpuTest, MisuseIsReportedWithTheCallSite) {
  Case c;
  c.a = c.b = ramp(0.25f, 1.0f);
  auto base = [&](uint32_t init_code, uint32_t a, uint32_t b, uint32_t cc, uint32_t d = 0) {
    Steps s;
    s.op(kHwStartup3, kIn0, kIn1, kOut);
    if (init_code != 0) s.op(init_code, a, b, cc, d);
    return s.op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire);
  };
  // matmul without its init.
  c.steps = base(kAddInit, kIn0, kIn1, 0).op(kMatmul, kIn0, kIn1, 0, 0, 0);
  EXPECT_EQ(fails(c), at("matmul_tiles") +
                          "matmul_tiles(in0=0, in1=1, itile0=0, itile1=0, idst=0): the FPU is not "
                          "configured for matmul: call mm_init(in0, in1, out) (or matmul_init, "
                          "mm_init_short, mm_block_init) first (the last op init was add_tiles_init "
                          "at " +
                          line_of("add_tiles_init") + ")");
  // matmul with a transpose its init did not configure.
  c.steps = base(kMmInit, kIn0, kIn1, kOut, 0).op(kMatmulT, kIn0, kIn1, 0, 0, 0);
  EXPECT_EQ(fails(c), at("matmul_t") +
                          "matmul_tiles(in0=0, in1=1, itile0=0, itile1=0, idst=0, transpose=1): "
                          "transpose=1 but mm_init at " +
                          line_of("mm_init") +
                          " configured transpose=0 (the unpacker transposes in1 only as its init says)");
  // A matmul block larger than one half-sync acquire (3 x 3 > 8).
  c.steps =
      base(kMmBlockInit, kIn0, kIn1, kOut, 0).op(kMatmulBlock, (kIn0 << 8) | kIn1, 0, 0, 0, (3 << 16) | (3 << 8) | 1);
  EXPECT_EQ(fails(c), at("matmul_block") +
                          "matmul_block(in0=0, in1=1, itile0=0, itile1=0, idst=0, transpose=0, "
                          "ct_dim=3, rt_dim=3, kt_dim=1): a 3 x 3 output block must have at least 1 "
                          "and at most 8 tiles (the capacity of one DST acquire, half-sync with 16-bit DST)");
  // reduce_tile with other template arguments than its init.
  c.steps = base(kReduceInit, kIn0, kIn1, kOut, 0x00).op(kReduce, kIn0, kIn1, 0, 0, 0x21 << 8);
  EXPECT_EQ(fails(c), at("reduce_tile") +
                          "reduce_tile<MAX, REDUCE_COL>(cb=0, cb_scaler=1, itile=0, itile_scaler=0, "
                          "idst=0): reduce_init at " +
                          line_of("reduce_init") +
                          " configured <SUM, REDUCE_ROW>; call reduce_init<MAX, REDUCE_COL> "
                          "first");
  // reduce_uninit with no reduce_init in effect.
  c.steps = base(kMulInit, kIn0, kIn1, 0).op(kReduceUninit);
  EXPECT_EQ(fails(c), at("reduce_uninit") +
                          "reduce_uninit: no reduce_init is in effect (the last op init was "
                          "mul_tiles_init at " +
                          line_of("mul_tiles_init") + ")");
  // A broadcast op after another broadcast's init.
  c.steps = base(kBcastInit, kIn0, kIn1, (0 << 4) | 2).op(kBcast, (2 << 4) | 1, (kIn0 << 8) | kIn1, 0, 0, 0);
  EXPECT_EQ(fails(c), at("bcast_mul_cols") +
                          "mul_tiles_bcast_cols(cb0=0, cb1=1, itile0=0, itile1=0, idst=0): the FPU is not "
                          "configured for mul_tiles_bcast_cols: call mul_bcast_cols_init_short(cb0, cb1) "
                          "(or init_bcast) first (the last op init was add_bcast_rows_init_short at " +
                          line_of("bcast_init") + ")");
  // matmul on integer tiles.
  Case i = c;
  i.in_format = i.out_format = DataFormat::Int32;
  i.steps = base(kMmInit, kIn0, kIn1, kOut, 0).op(kMatmul, kIn0, kIn1, 0, 0, 0);
  EXPECT_EQ(fails(i), at("matmul_tiles") + "matmul_tiles(in0=0, in1=1, itile0=0, itile1=0, idst=0): CB 0 holds "
                                           "Int32; this FPU op takes floating-point tiles (Float32, Float16_b, "
                                           "Bfp8_b or Bfp4_b)");
  // Out-of-order pack beyond the reservation.
  c.steps = base(kCopyInit, kIn0, 0, 0).op(kCopy, kIn0, 0, 0).op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1);
  c.steps.op(kPackAt, 0, kOut, 1);
  EXPECT_EQ(fails(c), at("pack_out_of_order") + "pack_tile(idst=0, cb=16): out-of-order pack to page 1, but only 1 "
                                                "page is reserved with cb_reserve_back, and it lies past the CB's "
                                                "end (1 page is left before it): push the pages before it first");
}

} // namespace
} // namespace tessel::test
