// The SFPU ops of TT-Metalium's nextafter.h, eltwise_unary/mac.h,
// identity.h, i0.h, cumsum.h and dropout.h through a real compute kernel
// written with Metalium's header spellings ("sfpu_misc.cpp"), against host
// references: nextafter bit for bit (float32 and bfloat16 steps), mac as one
// fused multiply-add (rounded to nearest even into a 16-bit DST), identity
// unchanged (and copy_dest_values through tt-llk's header spelling), i0
// within its bound, cumsum's running sums down the columns
// carried from one tile to the next, dropout's lanes drawn from the PRNG
// rand_tile uses; then the messages for misuse.
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

constexpr const char* kName = "sfpu_misc.cpp";
constexpr uint32_t kOut = 16;

const std::string& source() {
  static const std::string text = R"KERNEL(// sfpu_misc.cpp: SFPU ops of their own headers.
#include "api/compute/common.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/nextafter.h"
#include "api/compute/eltwise_unary/mac.h"
#include "api/compute/eltwise_unary/identity.h"
#include "api/compute/eltwise_unary/i0.h"
#include "api/compute/cumsum.h"
#include "api/compute/eltwise_unary/dropout.h"
#include "api/compute/eltwise_unary/rsqrt.h"
#include "api/compute/mask.h"
#include "ckernel_sfpu_copy_dest_values.h" // ttnn's kernel library includes the LLK header first
#include "api/compute/copy_dest_values.h"

void pack(uint32_t first, uint32_t count) {
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(16, count);
  for (uint32_t i = 0; i < count; ++i) pack_tile(first + i, 16);
  cb_push_back(16, count);
  tile_regs_release();
}

// DST 0, 1 = CB 0's tiles 0, 1; DST 2 = CB 1's tile 0 (as many as were read).
void load(uint32_t n0, uint32_t n1) {
  cb_wait_front(0, n0);
  if (n1) cb_wait_front(1, n1);
  tile_regs_acquire();
  copy_tile_init(0);
  for (uint32_t t = 0; t < n0; ++t) copy_tile(0, t, t);
  if (n1) {
    copy_tile_init(1);
    copy_tile(1, 0, 2);
  }
}

void kernel_main() {
  const uint32_t scenario = get_arg_val<uint32_t>(0);
  const uint32_t p0 = get_arg_val<uint32_t>(1), p1 = get_arg_val<uint32_t>(2);
  init_sfpu(0, 16);
  switch (scenario) {
  case 0: // nextafter(CB 0 tile 0, CB 1 tile 0), one float32 ULP
    load(1, 1);
#if TESSEL_FP32_DEST_ACC
    nextafter_binary_tile_init();
    nextafter_binary_tile(0, 2, 0);
#endif
    pack(0, 1);
    return;
  case 1: // one bfloat16 ULP
    load(1, 1);
    nextafter_bf16_binary_tile_init();
    nextafter_bf16_binary_tile(0, 2, 0);
    pack(0, 1);
    return;
  case 2: // a b + c
    load(2, 1);
    mac_tile_init<DataFormat::Float32>();
    mac_tile<DataFormat::Float32>(0, 1, 2, 0);
    pack(0, 1);
    return;
  case 3: // identity of tile 0, i0 of tile 1
    load(2, 0);
    identity_tile_init();
    identity_tile(0);
    identity_tile_uint32(0);
    i0_tile_init();
    i0_tile(1);
    copy_dest_values_init();
    copy_dest_values<DataFormat::Float32>(0, 2);
    pack(0, 3);
    return;
  case 4: // running sums down the columns of CB 0's two tiles, stacked
    cb_wait_front(0, 2);
    for (uint32_t t = 0; t < 2; ++t) {
      tile_regs_acquire();
      copy_tile_init(0);
      copy_tile(0, t, 0);
      cumsum_tile_init();
      cumsum_tile(0, /*first=*/t == 0);
      pack(0, 1);
    }
    return;
  case 5: // dropout after a seed
    dropout_kernel_init(p0 >> 16);
    load(1, 0);
    dropout_tile(0, p0 & 0xffffu ? (p0 & 0xffffu) << 15 : 0u, p1);
    pack(0, 1);
    return;
  case 9: // CB 0 tile 0 masked by tile 1: zeros, then +inf where the mask is 0
    load(2, 0);
    copy_tile(0, 0, 2);
    copy_tile(0, 1, 3);
    mask_tile_init();
    mask_tile(0, 1);
    mask_posinf_tile(2, 3);
    pack(0, 3);
    return;
  case 10:
    load(2, 0);
    mask_tile_init();
    mask_tile(0, 2, DataFormat::Float16_b); // @mask_other_tile
    break;
  case 11:
    load(2, 0);
    mask_tile_init();
    mask_tile(0, 1, DataFormat::Float32); // @mask_float32
    break;
  case 12: // rsqrt with newer Metalium's RsqrtMode, and the older form
    load(2, 0);
    copy_tile(0, 0, 2);
    rsqrt_tile_init();
    rsqrt_tile<RsqrtMode::Default>(0);
    rsqrt_tile<RsqrtMode::Fast>(1);
    rsqrt_tile(2);
    pack(0, 3);
    return;
  case 6:
    load(1, 0);
    mac_tile_init<DataFormat::Float16_b>();
    mac_tile<DataFormat::Float16_b>(1, 2, 3, 1); // @mac_indices
    break;
  case 7:
    load(1, 0);
    cumsum_tile_init();
    cumsum_tile(0, false); // @cumsum_no_carry
    break;
  case 8:
    load(1, 0);
    i0_tile_init(); // @i0_init
    dropout_tile(0, 1u << 30, 0x3f800000u); // @dropout_uninit
    break;
  }
  pack(0, 1);
}
)KERNEL";
  return text;
}

std::string at(const std::string& marker) {
  std::istringstream in(source());
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(tag) != std::string::npos) return std::string(kName) + ":" + std::to_string(n);
  ADD_FAILURE() << "no marker " << tag;
  return {};
}
std::string error_at(const std::string& marker) { return at(marker) + ": core (0,0) COMPUTE: "; }

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint32_t element(uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; }

// Nearest bfloat16, ties to even.
float bf16_rne(float x) {
  const uint32_t b = bits(x);
  return std::bit_cast<float>((b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u);
}

using Prng = SfpuPrng; // sfpu_prng_reference.hpp

class SfpuMiscKernelTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  // CB 0: a_ (n0 tiles), CB 1: b_ (n1 tiles), CB 16: the output, all in `format`.
  Program build(std::vector<uint32_t> args, uint32_t n0, uint32_t n1, uint32_t out_tiles,
                DataFormat format = DataFormat::Float32, bool dst_32bit = true) {
    SfpuPipeline pipe(device_, a_, b_, format, out_tiles, 4);
    in0_ = pipe.in0;
    in1_ = pipe.in1;
    out_ = pipe.out;
    Program program = std::move(pipe.program);
    const CoreCoord core = pipe.core;
    ComputeConfig config;
    config.fp32_dest_acc_en = dst_32bit;
    if (dst_32bit && format == DataFormat::Float32) // CB values reach DST unrounded
      config.unpack_to_dest_mode = {UnpackToDestMode::UnpackToDestFp32, UnpackToDestMode::UnpackToDestFp32};
    KernelHandle compute = program.add_kernel_from_source(source(), kName, core, config);
    program.set_runtime_args(pipe.reader, core, {0, in0_->address(), n0, 1, in1_->address(), n1});
    program.set_runtime_args(pipe.writer, core, {kOut, out_->address(), out_tiles});
    args.resize(3);
    program.set_runtime_args(compute, core, args);
    return program;
  }

  std::vector<float> run(std::vector<uint32_t> args, uint32_t n0, uint32_t n1, uint32_t out_tiles,
                         DataFormat format = DataFormat::Float32, bool dst_32bit = true) {
    Program program = build(std::move(args), n0, n1, out_tiles, format, dst_32bit);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(out_tiles * tile_size(format));
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, format);
  }

  std::string fails(uint32_t scenario, uint32_t n0 = 1) {
    Program program = build({scenario}, n0, 0, 0);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  std::vector<float> a_ = std::vector<float>(2 * kTileHW), b_ = std::vector<float>(kTileHW);
  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;
};

// Operands covering both signs, zeros, the smallest normals' range, infinities, NaN and equal pairs.
void nextafter_operands(std::vector<float>& a, std::vector<float>& b, bool bf16) {
  const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0x1p-120f, -0x1p-120f, INFINITY, -INFINITY, NAN, 3.0e38f};
  for (uint32_t i = 0; i < kTileHW; ++i) {
    float x = special[i % 10], y = special[(i / 10) % 10];
    if (i >= 100) {
      x = float(int32_t(i * 37 % 501) - 250) * 0.0371f;
      y = i % 3 == 0 ? x : float(int32_t(i * 91 % 403) - 201) * 0.0529f;
    }
    a[i] = bf16 ? bf16_rne(x) : x;
    b[i] = bf16 ? bf16_rne(y) : y;
  }
}

TEST_F(SfpuMiscKernelTest, NextafterFloat32) {
  nextafter_operands(a_, b_, false);
  const std::vector<float> got = run({0}, 1, 1, 1);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float want = std::nextafterf(a_[i], b_[i]);
    if (std::isnan(want))
      ASSERT_TRUE(std::isnan(got[i])) << i;
    else
      ASSERT_EQ(bits(got[i]), bits(want)) << "nextafter(" << a_[i] << ", " << b_[i] << ")";
  }
}

TEST_F(SfpuMiscKernelTest, NextafterBfloat16IntoA16BitDst) {
  nextafter_operands(a_, b_, true);
  const std::vector<float> got = run({1}, 1, 1, 1, DataFormat::Float16_b, false);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float x = a_[i], y = b_[i];
    if (std::isnan(x) || std::isnan(y)) {
      ASSERT_TRUE(std::isnan(got[i])) << i;
      continue;
    }
    // The bfloat16 neighbour: the step in the upper 16 bits as an ordered integer.
    float want = y;
    if (x == 0.0f && y != 0.0f)
      want = std::bit_cast<float>((y > 0 ? 0u : 0x80000000u) | 0x10000u);
    else if (x != y)
      want = std::bit_cast<float>(bits(x) + ((y > x) == (x > 0) ? 0x10000u : 0u - 0x10000u));
    // A 16-bit DST keeps no denormals: the steps off zero are stored as zeros of their sign.
    if (std::fpclassify(want) == FP_SUBNORMAL) want = std::copysign(0.0f, want);
    ASSERT_EQ(bits(got[i]), bits(want)) << "nextafter_bf16(" << x << ", " << y << ")";
  }
}

TEST_F(SfpuMiscKernelTest, MacFusedAndRoundedToTheDst) {
  for (uint32_t i = 0; i < 2 * kTileHW; ++i)
    a_[i] = bf16_rne(float(int32_t(i * 7919 % 2001) - 1000) * 0.01731f);
  for (uint32_t i = 0; i < kTileHW; ++i)
    b_[i] = bf16_rne(float(int32_t(i * 104729 % 3001) - 1500) * 0.0913f);
  const std::vector<float> got32 = run({2}, 2, 1, 1);
  const std::vector<float> got16 = run({2}, 2, 1, 1, DataFormat::Float16_b, false);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float want = std::fmaf(a_[i], a_[kTileHW + i], b_[i]);
    ASSERT_EQ(bits(got32[i]), bits(want)) << "element " << i;
    ASSERT_EQ(bits(got16[i]), bits(bf16_rne(want))) << "element " << i << " into a 16-bit DST";
  }
}

TEST_F(SfpuMiscKernelTest, IdentityAndI0) {
  for (uint32_t i = 0; i < 2 * kTileHW; ++i)
    a_[i] = float(int32_t(i * 37 % 801) - 400) * 0.01f;
  const std::vector<float> got = run({3}, 2, 0, 3);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    ASSERT_EQ(bits(got[i]), bits(a_[i])) << "identity, element " << i;
    ASSERT_EQ(bits(got[2 * kTileHW + i]), bits(a_[i])) << "copy_dest_values, element " << i;
    const double x = a_[kTileHW + i], want = std::cyl_bessel_i(0.0, std::fabs(x)); // even
    ASSERT_LE(std::fabs(got[kTileHW + i] - want), (std::fabs(x) <= 2 ? 2e-7 : 2e-6) * want) << "i0(" << x << ")";
  }
}

TEST_F(SfpuMiscKernelTest, CumsumRunsDownTheColumnsAcrossTiles) {
  for (uint32_t i = 0; i < 2 * kTileHW; ++i)
    a_[i] = float(int32_t(i * 7919 % 2001) - 1000) * 0.001f;
  const std::vector<float> got = run({4}, 2, 0, 2);
  float carry[32] = {};
  for (uint32_t t = 0; t < 2; ++t)
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = 0; c < 32; ++c) {
        carry[c] += a_[t * kTileHW + element(r, c)];
        ASSERT_EQ(bits(got[t * kTileHW + element(r, c)]), bits(carry[c]))
            << "tile " << t << " row " << r << " column " << c;
      }
}

// dropout_tile(0, probability, scale) in rand_tile's lane order: an element
// whose 31-bit draw is at most probability is dropped, the others scaled.
TEST_F(SfpuMiscKernelTest, DropoutDrawsFromTheSeededPrng) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    a_[i] = float(int32_t(i * 37 % 801) - 400) * 0.25f + 0.125f;
  const uint32_t seed = 4321, prob_units = 0x4000; // probability 0x4000 << 15 = 2^29: a quarter
  const float scale = 4.0f / 3.0f;
  const std::vector<float> got = run({5, (seed << 16) | prob_units, bits(scale)}, 1, 0, 1);
  Prng prng(seed);
  uint32_t dropped = 0;
  for (uint32_t f = 0; f < 4; ++f)
    for (uint32_t k = 0; k < 8; ++k)
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t a = 16 * f + 2 * k;
        const uint32_t index = ((a & ~3u) + l / 8) * 16 + 2 * (l % 8) + ((a >> 1) & 1u);
        const bool drop = (prng.step(l) & 0x7fffffffu) <= (prob_units << 15);
        dropped += drop;
        ASSERT_EQ(bits(got[index]), bits(drop ? 0.0f : a_[index] * scale)) << "element " << index;
      }
  EXPECT_GT(dropped, 180u);
  EXPECT_LT(dropped, 340u);
}

TEST_F(SfpuMiscKernelTest, MaskZeroesOrInfinitiesWhereTheNextTileIsZero) {
  for (uint32_t i = 0; i < kTileHW; ++i) {
    a_[i] = float(int32_t(i % 97) - 48) * 0.5f;
    a_[kTileHW + i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? -0.0f : 1.0f;
  }
  const std::vector<float> got = run({9}, 2, 0, 3, DataFormat::Float16_b, false);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const bool masked = a_[kTileHW + i] == 0.0f;
    ASSERT_EQ(bits(got[i]), bits(masked ? 0.0f : a_[i])) << "mask_tile, element " << i;
    ASSERT_EQ(bits(got[2 * kTileHW + i]), bits(masked ? INFINITY : a_[i])) << "mask_posinf_tile, element " << i;
  }
}

// rsqrt_tile<RsqrtMode::Default> is the exact rsqrt, as rsqrt_tile() is;
// RsqrtMode::Fast is the approximate one (docs/numerics.md).
TEST_F(SfpuMiscKernelTest, RsqrtModes) {
  for (uint32_t i = 0; i < 2 * kTileHW; ++i)
    a_[i] = 0.01f + float(i % 997) * 0.37f;
  const std::vector<float> got = run({12}, 2, 0, 3);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const double want = 1.0 / std::sqrt(double(a_[i]));
    ASSERT_EQ(bits(got[i]), bits(float(want))) << "Default, rsqrt(" << a_[i] << ")";
    ASSERT_EQ(bits(got[2 * kTileHW + i]), bits(float(want))) << "rsqrt_tile(), rsqrt(" << a_[i] << ")";
    const double fast = 1.0 / std::sqrt(double(a_[kTileHW + i]));
    ASSERT_LE(std::fabs(got[kTileHW + i] - fast), 0x1p-7 * fast) << "Fast, rsqrt(" << a_[kTileHW + i] << ")";
  }
}

TEST_F(SfpuMiscKernelTest, Misuse) {
  setenv("TESSEL_STRICT", "1", 1);
  const std::string mac = fails(6), cumsum = fails(7), mask = fails(10, 2), mask32 = fails(11, 2);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(mask, error_at("mask_other_tile") +
                      "mask_tile(idst=0): idst2_mask is 2, but silicon reads the mask from DST tile idst + 1 = 1 "
                      "whatever idst2_mask says; pass idst2_mask = 1 (or put the mask there) (a warning, made an "
                      "error by TESSEL_STRICT=1)");
  EXPECT_EQ(mask32, error_at("mask_float32") +
                        "mask_tile(idst=0): data_format Float32 leaves the tile unchanged on silicon (mask_tile masks "
                        "Float16_b, Float16 and Int32 tiles only) (a warning, made an error by TESSEL_STRICT=1)");
  EXPECT_EQ(mac, error_at("mac_indices") +
                     "mac_tile(idst0=1, idst1=2, idst2=3, odst=1): silicon's mac_tile reads DST tiles 0, 1, 2 and "
                     "writes tile 0 whatever the indices say (its init records them fixed); pass (0, 1, 2, 0) (a "
                     "warning, made an error by TESSEL_STRICT=1)");
  EXPECT_EQ(cumsum, error_at("cumsum_no_carry") +
                        "cumsum_tile(idst=0): first is false, but no cumsum_tile ran before it in this kernel: the "
                        "carry registers hold whatever the SFPU left there (tessel starts from 0); pass first = true "
                        "for a column's first tile (a warning, made an error by TESSEL_STRICT=1)");
  EXPECT_EQ(fails(8), error_at("dropout_uninit") +
                          "dropout_tile(idst=0): the SFPU is not configured for dropout_tile: call "
                          "dropout_kernel_init(seed) first (the last SFPU init was i0_tile_init at " +
                          at("i0_init") + ")");
}

} // namespace
} // namespace tessel::test
