// The SFPU ops with state or a tile-wide layout (tessel/sfpu_state.h) through
// a real compute kernel written with Metalium's header spellings
// ("sfpu_state.cpp"), against host references that follow tt-llk's SFPU
// programs lane by lane: rand_tile's PRNG (the ISA's per-lane LFSR, seeded by
// tessel's documented mapping) and its persistence from one program to the
// next, ema_tile's running average across tiles, and the integer sums of
// sfpu_int_sum.h; then the engine's messages for misuse.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "sfpu_pipeline.hpp"
#include "sfpu_prng_reference.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kName = "sfpu_state.cpp";
constexpr uint32_t kOut = 16;
constexpr uint32_t kOutTiles = 4;

const std::string& source() {
  static const std::string text = R"KERNEL(// sfpu_state.cpp: SFPU ops with state.
#include "api/compute/common.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/rand.h"
#include "api/compute/eltwise_unary/sfpu_int_sum.h"
#include "api/compute/ema.h"
#include "api/dataflow/circular_buffer.h"
#include "ckernel_sfpu.h"

void pack(uint32_t first, uint32_t count) {
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(16, count);
  for (uint32_t i = 0; i < count; ++i) pack_tile(first + i, 16);
  cb_push_back(16, count);
  tile_regs_release();
}

void kernel_main() {
  const uint32_t scenario = get_arg_val<uint32_t>(0);
  const uint32_t seed = get_arg_val<uint32_t>(1), from = get_arg_val<uint32_t>(2), scale = get_arg_val<uint32_t>(3);
  init_sfpu(0, 16);
  switch (scenario) {
  case 0: // two rand tiles after a seed
    rand_tile_init(seed);
    tile_regs_acquire();
    rand_tile(0, from, scale);
    rand_tile(1, from, scale);
    pack(0, 2);
    return;
  case 1: // seed only (ttnn's manual_seed)
    rand_tile_init(seed);
    return;
  case 2: // rand without an init: the PRNG continues where it was left
    tile_regs_acquire();
    rand_tile(0, from, scale);
    pack(0, 1);
    return;
  case 3: // ema over the two tiles of CB 0, as ttnn's ema kernel runs it
    ema_init(from, scale);
    ema_clear_previous_output();
    cb_wait_front(0, 2);
    for (uint32_t t = 0; t < 2; ++t) {
      tile_regs_acquire();
      copy_tile(0, t, 0);
      ema_tile(0);
      pack(1, 1);
    }
    return;
  case 4: // the integer sums: DST 0 column sums of a, DST 1 row sums of a, DST 2 = a + b
    cb_wait_front(0, 1);
    cb_wait_front(1, 1);
    tile_regs_acquire();
    for (uint32_t i = 0; i < 3; ++i) copy_tile(0, 0, i);
    copy_tile(1, 0, 3);
    sfpu_sum_int_init();
    sfpu_sum_int_col(0);
    sfpu_sum_int_row(1);
    sfpu_add_int(2, 3);
    pack(0, 3);
    return;
  case 10: { // the seed from word 1 of a CB tile, as ttnn's manual_seed kernels read it
    CircularBuffer message(1);
    message.wait_front(1);
    rand_tile_init(message.read_tile_value(0, 1));
    ckernel::sfpu::_init_sfpu_config_reg();
    message.pop_front(1);
    tile_regs_acquire();
    rand_tile(0, from, scale);
    pack(0, 1);
    return;
  }
  case 11:
    exp_tile_init();
    rand_tile_init(5); // @rand_init
    tile_regs_acquire();
    exp_tile(0); // @exp_after_rand_init
    break;
  case 5:
    tile_regs_acquire();
    ema_tile(0); // @ema_uninit
    break;
  case 6:
    ema_init(from, scale);
    tile_regs_acquire();
    ema_tile(3); // @ema_last
    break;
  case 7:
    sfpu_sum_int_init();
    exp_tile_init(); // @exp_init
    tile_regs_acquire();
    sfpu_sum_int_col(0); // @sum_after_exp
    break;
  case 8:
    sfpu_sum_int_init();
    tile_regs_acquire();
    sfpu_add_int(0); // @add_default_offset
    break;
  case 9:
    rand_tile(0, from, scale); // @rand_unheld
    break;
  }
  pack(0, 1);
}
)KERNEL";
  return text;
}

std::string at(const std::string& marker) { return marker_site(kName, source(), marker); }
std::string error_at(const std::string& marker) { return compute_error_at(kName, source(), marker); }

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// ---------------------------------------------------------------------------
// Host references.

using Prng = SfpuPrng; // sfpu_prng_reference.hpp

// One rand tile: faces 0..3, eight 32-lane loads each; lane l of load k of
// face f is DST row (A & ~3) + l / 8, column 2 (l % 8) + ((A >> 1) & 1), A =
// 16 f + 2 k; value from + scale * (mantissa as [1, 2) - 1), one rounding.
std::vector<float> rand_tile(Prng& prng, float from, float scale) {
  std::vector<float> tile(kTileHW);
  for (uint32_t f = 0; f < 4; ++f)
    for (uint32_t k = 0; k < 8; ++k)
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t a = 16 * f + 2 * k;
        const uint32_t index = ((a & ~3u) + l / 8) * 16 + 2 * (l % 8) + ((a >> 1) & 1u);
        const float u = std::bit_cast<float>(0x3f800000u | (prng.step(l) & 0x7fffffu)) - 1.0f;
        tile[index] = std::fma(u, scale, from);
      }
  return tile;
}

uint32_t element(uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; }

class SfpuStateKernelTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  // CB 0: a_ (two tiles), CB 1: b_ (one tile), CB 16: the output, all in
  // `format`; 32-bit DST.
  Program build(std::vector<uint32_t> args, DataFormat format = DataFormat::Float32, uint32_t out_tiles = 1,
                bool dst_32bit = true) {
    SfpuPipeline pipe(device_, a_, b_, format, out_tiles, kOutTiles);
    in0_ = pipe.in0;
    in1_ = pipe.in1;
    out_ = pipe.out;
    Program program = std::move(pipe.program);
    const CoreCoord core = pipe.core;
    ComputeConfig config;
    config.fp32_dest_acc_en = dst_32bit;
    KernelHandle compute = program.add_kernel_from_source(source(), kName, core, config);
    const bool reads = args[0] == 3 || args[0] == 4;
    program.set_runtime_args(pipe.reader, core,
                             {0, in0_->address(), reads ? uint32_t(a_.size() / kTileHW) : 0u, 1, in1_->address(),
                              args[0] == 4 || args[0] == 10 ? 1u : 0u});
    program.set_runtime_args(pipe.writer, core, {kOut, out_->address(), out_tiles});
    args.resize(4);
    program.set_runtime_args(compute, core, args);
    return program;
  }

  std::vector<float> run(std::vector<uint32_t> args, uint32_t out_tiles, DataFormat format = DataFormat::Float32,
                         bool dst_32bit = true) {
    Program program = build(std::move(args), format, out_tiles, dst_32bit);
    device_->command_queue().enqueue_program(program);
    if (out_tiles == 0) return {};
    std::vector<uint8_t> bytes(out_tiles * tile_size(format));
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, format);
  }

  std::string fails(uint32_t scenario) {
    Program program = build({scenario, 0, bits(0.5f), bits(0.5f)}, DataFormat::Float32, 0);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  std::vector<float> a_ = std::vector<float>(2 * kTileHW), b_ = std::vector<float>(kTileHW);
  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;
};

TEST_F(SfpuStateKernelTest, RandFollowsTheLaneLfsrsFromTheSeed) {
  const float from = -2.0f, scale = 5.0f;
  const std::vector<float> got = run({0, 1234, bits(from), bits(scale)}, 2);
  Prng prng(1234);
  const std::vector<float> first = rand_tile(prng, from, scale), second = rand_tile(prng, from, scale);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    ASSERT_EQ(bits(got[i]), bits(first[i])) << "tile 0 element " << i;
    ASSERT_EQ(bits(got[kTileHW + i]), bits(second[i])) << "tile 1 element " << i << ": the PRNG runs on";
    ASSERT_GE(got[i], from);
    ASSERT_LT(got[i], from + scale);
  }
  // Another seed, another sequence; the same seed, the same one.
  const std::vector<float> other = run({0, 1235, bits(from), bits(scale)}, 1);
  uint32_t same = 0;
  for (uint32_t i = 0; i < kTileHW; ++i)
    same += other[i] == got[i];
  EXPECT_LT(same, 16u);
  const std::vector<float> again = run({0, 1234, bits(from), bits(scale)}, 1);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(again[i], got[i]) << i;
}

// Into a 16-bit DST the FP32 value is stored as SFPSTORE stores it: bfloat16
// by truncation.
TEST_F(SfpuStateKernelTest, RandInto16BitDstTruncates) {
  const float from = -1.0f, scale = 3.0f;
  const std::vector<float> got = run({0, 99, bits(from), bits(scale)}, 1, DataFormat::Float16_b, false);
  Prng prng(99);
  const std::vector<float> want = rand_tile(prng, from, scale);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(bits(got[i]), bits(want[i]) & 0xffff0000u) << "element " << i << " of " << want[i];
}

// ttnn's manual_seed seeds the PRNG in a program of its own; the next
// program's rand_tile continues from that seed, and the one after from where
// it stopped.
TEST_F(SfpuStateKernelTest, ThePrngKeepsItsStateAcrossPrograms) {
  const float from = 0.0f, scale = 1.0f;
  run({1, 77}, 0);
  const std::vector<float> first = run({2, 0, bits(from), bits(scale)}, 1);
  const std::vector<float> second = run({2, 0, bits(from), bits(scale)}, 1);
  Prng prng(77);
  const std::vector<float> want0 = rand_tile(prng, from, scale), want1 = rand_tile(prng, from, scale);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    ASSERT_EQ(bits(first[i]), bits(want0[i])) << "after manual_seed, element " << i;
    ASSERT_EQ(bits(second[i]), bits(want1[i])) << "the next program, element " << i;
  }
}

// manual_seed's compute kernels read the seed with CircularBuffer::read_tile_value
// and reset the SFPU's lane configuration after it.
TEST_F(SfpuStateKernelTest, SeedReadFromACbTile) {
  const uint32_t seed = bits(3.5f);
  b_[1] = 3.5f;
  const std::vector<float> got = run({10, 0, bits(1.0f), bits(2.0f)}, 1);
  Prng prng(seed);
  const std::vector<float> want = rand_tile(prng, 1.0f, 2.0f);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(bits(got[i]), bits(want[i])) << "element " << i;
}

TEST_F(SfpuStateKernelTest, EmaRunsDownTheRowsAcrossTiles) {
  for (uint32_t i = 0; i < a_.size(); ++i)
    a_[i] = 0.125f * float(int32_t((i * 37) % 61) - 30);
  const float alpha = 0.75f, beta = 0.25f;
  const std::vector<float> got = run({3, 0, bits(alpha), bits(beta)}, 2);
  std::vector<float> prev(32, 0.0f);
  for (uint32_t t = 0; t < 2; ++t)
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = 0; c < 32; ++c) {
        const uint32_t e = element(r, c);
        prev[c] = std::fma(beta, a_[t * kTileHW + e], alpha * prev[c]);
        ASSERT_EQ(bits(got[t * kTileHW + e]), bits(prev[c])) << "tile " << t << " row " << r << " column " << c;
      }
}

TEST_F(SfpuStateKernelTest, IntegerSumsOverTheSfpuLanes) {
  for (uint32_t i = 0; i < kTileHW; ++i) {
    a_[i] = float(int32_t((i * 7919) % 2001) - 1000) * 1021.0f; // within 2^21, both signs
    b_[i] = float(int32_t((i * 104729) % 3001) - 1500) * 3.0f;
  }
  const std::vector<float> got = run({4}, 3, DataFormat::Int32);
  auto tile = [&](uint32_t t, uint32_t r, uint32_t c) { return got[t * kTileHW + element(r, c)]; };
  auto a = [&](uint32_t r, uint32_t c) { return int64_t(a_[element(r, c)]); };
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c) {
      int64_t col = 0;
      for (uint32_t k = r % 4; k < 32; k += 4)
        col += a(k, c);
      ASSERT_EQ(tile(0, r, c), r < 4 ? float(col) : float(a(r, c))) << "sum_int_col at row " << r << " column " << c;
      const int64_t row = a(r, c) + a(r, c + 1 < 32 ? c + 1 : c) + a(r, (c + 16) % 32) + a(r, (c + 17) % 32);
      ASSERT_EQ(tile(1, r, c), c < 16 && c % 2 == 0 ? float(row) : float(a(r, c)))
          << "sum_int_row at row " << r << " column " << c;
      ASSERT_EQ(tile(2, r, c), float(a(r, c) + int64_t(b_[element(r, c)]))) << "add_int at " << r << ", " << c;
    }
}

TEST_F(SfpuStateKernelTest, Misuse) {
  EXPECT_EQ(fails(5), error_at("ema_uninit") +
                          "ema_tile(idst=0): the SFPU is not configured for ema_tile: call ema_init(alpha, beta) first "
                          "(no SFPU init was called in this kernel)");
  EXPECT_EQ(fails(6), error_at("ema_last") +
                          "ema_tile(idst=3): writes its output to DST tile idst + 1 = 4, beyond the tiles one acquire "
                          "holds in half-sync with fp32_dest_acc_en mode (indices 0..3): pass idst <= 2");
  const std::string exp_init = at("exp_init");
  EXPECT_EQ(fails(7), error_at("sum_after_exp") +
                          "sfpu_sum_int_col(idst=0): the SFPU is not configured for sfpu_sum_int_col: call "
                          "sfpu_sum_int_init() first (the last SFPU init was exp_tile_init at " +
                          exp_init + ")");
  EXPECT_EQ(
      fails(9),
      error_at("rand_unheld") +
          "rand_tile(idst=0): MATH does not hold DST: call tile_regs_acquire (or acquire_dst) before writing DST");
}

// tt-llk's add_int always adds the next tile, whatever dst_offset says: a
// dst_offset that names another tile is a likely bug, a warning (an error
// under TESSEL_STRICT=1).
TEST_F(SfpuStateKernelTest, AddIntWithAnotherDstOffsetWarns) {
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = fails(8);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(message, error_at("add_default_offset") +
                         "sfpu_add_int(idst=0): dst_offset is 2, but silicon adds DST tile idst + 1 = 1 whatever "
                         "dst_offset says; pass dst_offset = 1 (or put the second operand there) (a warning, made an "
                         "error by TESSEL_STRICT=1)");
}

} // namespace
} // namespace tessel::test
