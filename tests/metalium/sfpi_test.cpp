// Custom SFPU kernels in SFPI, as TT-Metalium's custom_sfpi_* examples write
// them: face functions over dst_reg run by the LLK params wrappers and the
// SFPU_*_CALL macros. One compute kernel ("sfpi_ops.cpp") holds every case,
// chosen by runtime argument, so the suite costs one compile; results are
// checked against host references built from the documented lane mapping
// and arithmetic (kernel/include/tessel/sfpi.h).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kSfpiName = "sfpi_ops.cpp";

// Runtime args: op, param (float bits).
constexpr const char* kSfpiSource = R"KERNEL(// sfpi_ops.cpp: custom SFPI kernels for the SFPI tests.
#include "api/compute/common.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#ifdef TRISC_MATH
#include "experimental/llk_sfpu/ckernel_sfpu_custom_add.h"
#endif

namespace ckernel::sfpu {
// x < 0 -> 0, in the dst_reg++ style of tt-llk's functions.
inline void clamp_negative_face() {
  for (int i = 0; i < 8; ++i) {
    vFloat x = dst_reg[0];
    v_if (x < 0.0f) { x = 0.0f; }
    v_endif;
    dst_reg[0] = x;
    dst_reg++;
  }
}
// Nested bands: x > 1: (x > 4 ? 3 : 2); x < -1: prgm0; else 0.
inline void bands_face() {
  for (int i = 0; i < 8; ++i) {
    vFloat x = dst_reg[i];
    vFloat y = 0.0f;
    v_if (x > 1.0f) {
      v_if (x > 4.0f) { y = 3.0f; }
      v_else { y = 2.0f; }
      v_endif;
    }
    v_elseif (x < -1.0f) { y = vConstFloatPrgm0; }
    v_endif;
    dst_reg[i] = y;
  }
}
// Each lane writes its lane number, slot and face: 2l + 64i + 512f.
inline void lane_ids_face(uint32_t& face) {
  for (int i = 0; i < 8; ++i)
    dst_reg[i] = int32_to_float(vConstTileId) + float(64 * i + 512 * int(face));
  ++face;
}
// x + c and the fused x * c + c.
inline void add_const_face(float c) {
  for (int i = 0; i < 8; ++i)
    dst_reg[i] = vFloat(dst_reg[i]) + c;
}
inline void fma_face(float c) {
  for (int i = 0; i < 8; ++i) {
    vFloat x = dst_reg[i];
    dst_reg[i] = x * c + c;
  }
}
// Reaches tile 9 from a binary call's cursor at tile 0.
inline void far_face(uint32_t, uint32_t, uint32_t) { dst_reg[9 * 32] = 1.0f; }
} // namespace ckernel::sfpu

void kernel_main() {
  const uint32_t op = get_arg_val<uint32_t>(0);
  const float param = __builtin_bit_cast(float, get_arg_val<uint32_t>(1));
  init_sfpu(tt::CBIndex::c_0, tt::CBIndex::c_16);
  cb_wait_front(tt::CBIndex::c_0, 1);
  cb_wait_front(tt::CBIndex::c_1, 1);
  if (op == 5) {
    SFPU_BINARY_CALL_NO_TEMPLATE_ARGS(DST_SYNC_MODE, DST_ACCUM_MODE, my_add_tile_face, 0, 1, 0, VectorMode::RC); // @no_acquire
    return;
  }
  tile_regs_acquire();
  copy_tile(tt::CBIndex::c_0, 0, 0);
  copy_tile(tt::CBIndex::c_1, 0, 1);
  uint32_t face = 0;
  switch (op) {
  case 0: MATH(SFPU_BINARY_CALL_NO_TEMPLATE_ARGS(DST_SYNC_MODE, DST_ACCUM_MODE, my_add_tile_face, 0, 1, 0, VectorMode::RC)); break;
  case 1: MATH(_llk_math_eltwise_unary_sfpu_params_<false>(ckernel::sfpu::clamp_negative_face, 0)); break;
  case 2:
    vConstFloatPrgm0 = -5.0f;
    SFPU_UNARY_CALL_NO_TEMPLATE_ARGS(DST_SYNC_MODE, DST_ACCUM_MODE, bands_face, 0, VectorMode::RC);
    break;
  case 3: _llk_math_eltwise_unary_sfpu_params_<false>(ckernel::sfpu::lane_ids_face, 0, VectorMode::RC, face); break;
  case 4: _llk_math_eltwise_unary_sfpu_params_(ckernel::sfpu::add_const_face, 0, VectorMode::RC, param); break;
  case 6: _llk_math_eltwise_binary_sfpu_params_(ckernel::sfpu::far_face, 0, 1, 0); break; // @far
  case 7: ckernel::sfpu::add_const_face(param); break;
  case 8: _llk_math_eltwise_unary_sfpu_params_(ckernel::sfpu::add_const_face, 1, VectorMode::R, param); break;
  case 9: _llk_math_eltwise_unary_sfpu_params_(ckernel::sfpu::fma_face, 0, VectorMode::RC, param); break;
  }
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(tt::CBIndex::c_16, 1);
  pack_tile(op == 8 ? 1 : 0, tt::CBIndex::c_16);
  cb_push_back(tt::CBIndex::c_16, 1);
  tile_regs_release();
}
)KERNEL";

uint32_t sfpi_line(const std::string& marker) {
  std::istringstream in(kSfpiSource);
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(tag) != std::string::npos) return n;
  ADD_FAILURE() << "no marker " << tag;
  return 0;
}

enum SfpiOp : uint32_t {
  kCustomAdd = 0,
  kClampNegative = 1,
  kBands = 2,
  kLaneIds = 3,
  kAddConst = 4,
  kNoAcquire = 5,
  kFarTile = 6,
  kOutsideCall = 7,
  kRowFaces = 8,
  kFma = 9,
};

struct SfpiCase {
  SfpiOp op;
  bool fp32 = false;
  float param = 0.0f;
  std::vector<float> a, b; // tiles in CBs 0 and 1, tile (face) order
};

// Index in tile (face) order of element (row, col) of the 32x32 tile.
uint32_t tile_index(uint32_t row, uint32_t col) {
  return ((row / 16) * 2 + col / 16) * 256 + (row % 16) * 16 + col % 16;
}

float bf16_truncated(float x) {
  const uint32_t b = std::bit_cast<uint32_t>(x);
  return std::bit_cast<float>((b & 0x7f800000u) ? b & 0xffff0000u : b & 0x80000000u);
}
float bf16_nearest(float x) {
  const uint32_t b = std::bit_cast<uint32_t>(x);
  return std::bit_cast<float>((b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u);
}

class SfpiTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("wormhole_b0", 1, 1); }

  Program build(const SfpiCase& c) {
    const DataFormat format = c.fp32 ? DataFormat::Float32 : DataFormat::Float16_b;
    const uint32_t tile = tile_size(format);
    auto input = [&](std::vector<float> v) {
      v.resize(kTileHW, 0.0f);
      auto buf = Buffer::create(device_, {tile, tile, BufferType::DRAM});
      const std::vector<uint8_t> packed = pack_tiles(v, format);
      buf->write(packed.data(), packed.size());
      return buf;
    };
    in0_ = input(c.a);
    in1_ = input(c.b);
    out_ = Buffer::create(device_, {tile, tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    for (uint8_t cb : {uint8_t(0), uint8_t(1), uint8_t(16)})
      program.add_circular_buffer(core, CircularBufferConfig(tile, {{cb, format}}).set_page_size(cb, tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.fp32_dest_acc_en = c.fp32;
    if (c.fp32) config.unpack_to_dest_mode.assign(2, UnpackToDestMode::UnpackToDestFp32); // copy_tile keeps 32 bits
    KernelHandle compute = program.add_kernel_from_source(kSfpiSource, kSfpiName, core, config);
    program.set_runtime_args(reader, core, {0, in0_->address(), 1, 1, in1_->address(), 1});
    const bool writes = c.op != kNoAcquire;
    program.set_runtime_args(writer, core, {16, out_->address(), writes ? 1u : 0u});
    program.set_runtime_args(compute, core, {uint32_t(c.op), std::bit_cast<uint32_t>(c.param)});
    return program;
  }

  std::vector<float> run(const SfpiCase& c) {
    Program program = build(c);
    device_->command_queue().enqueue_program(program);
    const DataFormat format = c.fp32 ? DataFormat::Float32 : DataFormat::Float16_b;
    std::vector<uint8_t> bytes(tile_size(format));
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, format);
  }

  std::string fails(const SfpiCase& c) {
    Program program = build(c);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;
};

// Values with a spread of signs, magnitudes and bf16-exact bit patterns.
std::vector<float> values(uint32_t seed, float scale) {
  std::vector<float> v(kTileHW);
  uint32_t s = seed;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = bf16_nearest(scale * (float(int32_t(s >> 8) % 2001) / 250.0f - 4.0f));
  }
  return v;
}

TEST_F(SfpiTest, CustomAddMatchesTheHostSumTruncatedIntoBf16Dst) {
  SfpiCase c{kCustomAdd};
  c.a = values(1, 1.0f);
  c.b = values(2, 0.37f);
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out[i], bf16_truncated(c.a[i] + c.b[i])) << "element " << i;
}

TEST_F(SfpiTest, CustomAddIsExactFloatAdditionWithFp32Dst) {
  SfpiCase c{kCustomAdd, true};
  c.a = values(3, 1.0f);
  c.b = values(4, 1.0f);
  for (uint32_t i = 0; i < kTileHW; ++i)
    c.b[i] += 1.0f / 1024.0f * float(i % 7); // not bf16: Float32 CBs keep these bits
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float sum = c.a[i] + c.b[i];
    ASSERT_EQ(out[i], sum == 0.0f ? 0.0f : sum) << "element " << i;
    ASSERT_FALSE(std::signbit(out[i]) && out[i] == 0.0f) << "SFPMAD gives +0";
  }
}

TEST_F(SfpiTest, StoreIntoBf16DstTruncatesTowardZero) {
  // 1 + 3/512 lies above bf16's halfway point: round to nearest gives
  // 1.0078125, SFPSTORE's truncation 1.0.
  SfpiCase c{kAddConst, false, 3.0f / 512.0f};
  c.a = std::vector<float>(kTileHW, 1.0f);
  c.a[5] = -1.0f;
  const std::vector<float> out = run(c);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[5], bf16_truncated(-1.0f + 3.0f / 512.0f));
  EXPECT_NE(out[0], bf16_nearest(1.0f + 3.0f / 512.0f));
}

TEST_F(SfpiTest, VIfClampsOnlyTheLanesWhereTheConditionHolds) {
  SfpiCase c{kClampNegative};
  c.a = values(5, 1.0f);
  c.a[7] = -0.0f; // the SFPU's < 0.0f tests the sign bit: -0 becomes +0
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const bool negative = std::signbit(c.a[i]);
    ASSERT_EQ(out[i], negative ? 0.0f : c.a[i]) << "element " << i;
    ASSERT_FALSE(std::signbit(out[i])) << "element " << i;
  }
}

TEST_F(SfpiTest, NestedConditionalsAndElseBranchesPickOneValuePerLane) {
  SfpiCase c{kBands};
  c.a = values(6, 1.5f);
  const std::vector<float> out = run(c);
  uint32_t counts[4] = {};
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float x = c.a[i];
    const float want = x > 1.0f ? (x > 4.0f ? 3.0f : 2.0f) : x < -1.0f ? -5.0f : 0.0f;
    ASSERT_EQ(out[i], want) << "element " << i << " x = " << x;
    counts[want == 3.0f ? 0 : want == 2.0f ? 1 : want == 0.0f ? 2 : 3]++;
  }
  for (uint32_t n : counts)
    EXPECT_GT(n, 20u) << "every branch is taken by some lanes";
}

TEST_F(SfpiTest, LanesMapToDstRowsAndColumnsAsSfpLoadPlacesThem) {
  SfpiCase c{kLaneIds, true};
  const std::vector<float> out = run(c);
  // Face f, slot i, lane l: DST row 16f + (2i & ~3) + l / 8 of the tile,
  // column 2 (l % 8) + (i % 2); a tile row is 16 floats of its face.
  std::vector<float> want(kTileHW, -1.0f);
  for (uint32_t f = 0; f < 4; ++f)
    for (uint32_t i = 0; i < 8; ++i)
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t row = 16 * f + ((2 * i) & ~3u) + l / 8, col = 2 * (l % 8) + (i % 2);
        want[row * 16 + col] = float(2 * l + 64 * i + 512 * f);
      }
  for (uint32_t e = 0; e < kTileHW; ++e)
    ASSERT_EQ(out[e], want[e]) << "element " << e;
  // Spot-check against the 32x32 picture: slot 1 of face 0 is rows 0..3, odd columns.
  EXPECT_EQ(out[tile_index(0, 1)], float(64));
  EXPECT_EQ(out[tile_index(1, 0)], float(16));
  EXPECT_EQ(out[tile_index(16, 16)], float(3 * 512)); // face 3 starts at tile row 16, column 16
}

TEST_F(SfpiTest, VectorModeRCoversTheTopFacesOnly) {
  SfpiCase c{kRowFaces, false, 1.0f};
  c.a = std::vector<float>(kTileHW, 9.0f);
  c.b = values(7, 1.0f);
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out[i], i < 512 ? bf16_truncated(c.b[i] + 1.0f) : c.b[i]) << "element " << i;
}

TEST_F(SfpiTest, MultiplyAddInOneExpressionRoundsOnce) {
  SfpiCase c{kFma, true, 1.0f + 0x1p-12f};
  c.a = values(8, 1.0f);
  for (uint32_t i = 0; i < kTileHW; ++i)
    c.a[i] += 0x1p-20f * float(i % 5);
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float fused = std::fma(c.a[i], c.param, c.param);
    ASSERT_EQ(out[i], fused == 0.0f ? 0.0f : fused) << "element " << i;
  }
}

TEST_F(SfpiTest, AnSfpuCallWithoutTileRegsAcquireFailsAtItsLine) {
  const std::string message = fails({kNoAcquire});
  EXPECT_NE(message.find(std::string(kSfpiName) + ":" + std::to_string(sfpi_line("no_acquire")) +
                         ": core (0,0) COMPUTE: _llk_math_eltwise_binary_sfpu_params_: MATH does not hold DST: call "
                         "tile_regs_acquire"),
            std::string::npos)
      << message;
}

TEST_F(SfpiTest, DstRegBeyondTheHeldSectionFailsNamingTheRowAndTile) {
  const std::string message = fails({kFarTile});
  EXPECT_NE(message.find(std::string(kSfpiName) + ":" + std::to_string(sfpi_line("far")) +
                         ": core (0,0) COMPUTE: dst_reg in _llk_math_eltwise_binary_sfpu_params_ reaches DST row 576 "
                         "of the section (tile 9), outside the 8 tiles one acquire holds in half-sync with 16-bit DST "
                         "mode"),
            std::string::npos)
      << message;
}

TEST_F(SfpiTest, DstRegOutsideAnLlkCallFails) {
  const std::string message = fails({kOutsideCall});
  EXPECT_NE(message.find("dst_reg used outside an SFPU LLK call"), std::string::npos) << message;
  EXPECT_NE(message.find("core (0,0) COMPUTE"), std::string::npos) << message;
}

TEST_F(SfpiTest, SfpiInADataMovementKernelIsACompileError) {
  Program program;
  program.add_kernel_from_source("#include \"sfpi.h\"\nvoid kernel_main() {}\n", "dm_sfpi.cpp", CoreCoord{0, 0},
                                 DataMovementConfig{});
  std::string message;
  try {
    device_->command_queue().enqueue_program(program);
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("SFPI programs the SFPU, which only compute kernels reach"), std::string::npos) << message;
}

} // namespace
} // namespace tessel::test
