// The SFPU ops of tessel/sfpu_special.h and tessel/sfpu_bitwise.h through a
// real compute kernel written with Metalium's header spellings, both the
// api/compute/ and the compute_kernel_api/ paths ("sfpu_special.cpp"):
// each op's arguments reach the engine in Metalium's order (in place, out of
// place, the ternary lerp and lgamma steps, softcap's cap on its init), the
// typecast init that names its formats, and the engine's messages for a
// softcap without a cap and a ternary op without its init. Every op's
// numerics on whole tiles: sfpu_special_test.cpp.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kName = "sfpu_special.cpp";
constexpr uint32_t kOutTiles = 8;

const std::string& source() {
  static const std::string text = R"KERNEL(// sfpu_special.cpp: SFPU ops of their own Metalium headers.
#include "api/compute/common.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/fill.h"
#include "api/compute/eltwise_unary/binop_with_scalar.h"
#include "api/compute/eltwise_unary/typecast.h"
#include "api/compute/eltwise_unary/lerp.h"
#include "api/compute/eltwise_unary/lgamma.h"
#include "api/compute/eltwise_unary/activations.h"
#include "api/compute/eltwise_unary/softcap.h"
#include "api/compute/eltwise_unary/rsub.h"
#include "api/compute/binary_bitwise_sfpu.h"
#include "compute_kernel_api/eltwise_unary/cbrt.h"
#include "compute_kernel_api/eltwise_unary/hardmish.h"
#include "compute_kernel_api/eltwise_unary/log1p.h"
#include "compute_kernel_api/logsigmoid.h"
#include "compute_kernel_api/copy_dest_values.h"
#include "api/compute/eltwise_unary/addcmul.h"
#include "api/compute/eltwise_unary/addcdiv.h"
#include "api/compute/eltwise_unary/snake_beta.h"
#include "api/compute/binary_shift.h"
#include "api/compute/sub_int_sfpu.h"
#include "api/compute/div_int32_floor.h"
#include "api/compute/gcd.h"
#include "api/compute/atan2.h"
#include "api/compute/xlogy.h"
#include "api/compute/binary_remainder.h"
#include "api/compute/isclose.h"
#include "api/compute/quantization.h"

constexpr uint32_t bits(float f) { return __builtin_bit_cast(uint32_t, f); }

// DST 0 = a (CB 0), DST 1 = b (CB 1).
void load() {
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  tile_regs_acquire();
  copy_tile(0, 0, 0);
  copy_tile(1, 0, 1);
}
void pack(uint32_t first, uint32_t count) {
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(16, count);
  for (uint32_t i = 0; i < count; ++i) pack_tile(first + i, 16);
  cb_push_back(16, count);
  tile_regs_release();
}
void a_to(uint32_t idst) { copy_tile(0, 0, idst); }

void kernel_main() {
  init_sfpu(0, 16);
  load();
  switch (get_arg_val<uint32_t>(0)) {
  case 0: // eight tiles
    fill_tile_init();
    fill_tile(7, 0.25f);
    lerp_tile_init();
    lerp_tile<DataFormat::Float16_b>(0, 1, 7, 2); // a + 0.25 (b - a)
    a_to(3);
    cbrt_tile_init();
    cbrt_tile(3);
    a_to(4);
    hardmish_tile_init();
    hardmish_tile(4);
    a_to(5);
    softcap_tile_init(bits(2.0f), bits(0.5f));
    softcap_tile(5); // 2 tanh(a / 2)
    a_to(6);
    rsub_tile_init();
    rsub_tile(6, bits(1.0f)); // 1 - a
    copy_dest_values_init();
    copy_dest_values<DataFormat::Float16_b>(1, 7); // b
    binop_with_scalar_tile_init();
    mul_unary_tile(0, bits(4.0f));
    mul_unary_tile(1, bits(4.0f));
    binary_bitwise_tile_init();
    bitwise_xor_binary_tile<DataFormat::Int32>(0, 1, 0); // 4a ^ 4b
    bitwise_and_binary_tile<DataFormat::Int32>(0, 1, 1); // (4a ^ 4b) & 4b
    pack(0, 8);
    return;
  case 1: // eight tiles
    a_to(2);
    a_to(3);
    a_to(4);
    a_to(5);
    a_to(6);
    a_to(7);
    celu_tile_init();
    celu_tile(0, bits(2.0f), bits(0.5f));
    softshrink_tile_init();
    softshrink_tile(1, bits(0.5f)); // of b
    hardshrink_tile_init();
    hardshrink_tile(2, bits(1.0f));
    log1p_exp_tile_init<false>();
    log1p_exp_tile<false>(3);
    logsigmoid_tile_init();
    logsigmoid_tile(4);
    binop_with_scalar_tile_init();
    mul_unary_tile(5, bits(-1.0f));
    logsigmoid_tile_init();
    logsigmoid_tile(5, 6, 5); // from -a (DST 6 unread)
    typecast_tile_init<(uint32_t)DataFormat::Float16_b, (uint32_t)DataFormat::Int32>();
    typecast_tile<(uint32_t)DataFormat::Float16_b, (uint32_t)DataFormat::Int32>(6);
    lgamma_tile_init();
    lgamma_tile(7);
    pack(0, 8);
    return;
  case 2: // lgamma in ttnn's three steps, into DST 0
    fill_tile_init();
    fill_tile(1, 0.0f); // log|sin(pi a)|: not needed for a >= 0.5
    a_to(2);
    lgamma_stirling_tile_init();
    lgamma_stirling_tile(0, 3, 0);
    lgamma_adjusted_tile_init();
    lgamma_adjusted_tile(0, 1, 2, 0);
    pack(0, 1);
    return;
  case 5: // literal zeros pick the three-tile forms: DST 0 = a
    logsigmoid_tile_init();
    logsigmoid_tile(0, 0, 0); // -ln(1 + e^a)
    softcap_tile_init();
    softcap_tile(0, 0, 0); // cap 0: 0 tanh(0 a) = 0 (a zero of the sign of -ln(...))
    copy_tile(0, 0, 1);
    lgamma_stirling_tile_init();
    lgamma_stirling_tile(1, 1, 1);
    pack(0, 2);
    return;
  case 6: // two-tile ops of their own headers, on 4a and 4b (integers)
    binop_with_scalar_tile_init();
    mul_unary_tile(0, bits(4.0f));
    mul_unary_tile(1, bits(4.0f));
    copy_tile(1, 0, 7);
    binop_with_scalar_tile_init();
    mul_unary_tile(7, bits(4.0f));
    copy_dest_values_init();
    for (uint32_t i = 2; i < 7; ++i) copy_dest_values(0, i);
    binary_shift_tile_init();
    binary_right_shift_tile<DataFormat::Int32>(2, 1, 2); // 4a >> 4b (amounts outside [0, 31]: the sign)
    sub_int_tile_init();
    sub_int_tile<DataFormat::UInt16>(3, 1, 3); // 4a - 4b mod 2^16
    div_int32_floor_tile_init();
    div_int32_floor_tile(4, 1, 4); // floor(4a / 4b), 0 where b == 0
    gcd_tile_init();
    gcd_tile(5, 1, 5);
    remainder_int32_tile_init();
    remainder_int32_tile(6, 1, 6);
    atan2_binary_tile_init();
    atan2_binary_tile(0, 1, 0); // atan2(4a, 4b)
    xlogy_binary_tile_init();
    xlogy_binary_tile(1, 7, 1); // 4b ln(4b)
    pack(0, 7);
    return;
  case 7: // ternary ops with a scalar and snake_beta: DST 2 = 2
    fill_tile_init();
    fill_tile(2, 2.0f);
    copy_tile(0, 0, 3);
    copy_tile(0, 0, 4);
    addcmul_tile_init();
    addcmul_tile<DataFormat::Float16_b>(0, 1, 2, 5, bits(0.5f)); // a + 0.5 b 2
    addcdiv_tile_init();
    addcdiv_tile<DataFormat::Float16_b>(3, 1, 2, 3, bits(3.0f)); // a + 3 b / 2
    snake_beta_tile_init();
    snake_beta_tile<DataFormat::Float16_b>(4, 1, 2, 4); // a + sin(b a)^2 / 2
    pack(3, 3);
    return;
  case 3:
    softcap_tile_init();
    softcap_tile(0); // @softcap_no_cap
    break;
  case 4:
    lgamma_stirling_tile_init(); // @stirling_init
    lerp_tile<DataFormat::Float32>(0, 1, 1, 0); // @lerp_uninit
    break;
  }
  pack(0, 1);
}
)KERNEL";
  return text;
}

std::string at(const std::string& marker) { return marker_site(kName, source(), marker); }
std::string error_at(const std::string& marker) { return compute_error_at(kName, source(), marker); }

// The bfloat16 a 16-bit DST stores for a float (nearest, ties to even).
float bf16(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::bit_cast<float>(u & 0xffff0000u);
}
// The engine's exact ops: computed in double, rounded to float, then to bf16.
float dst(double x) { return bf16(float(x)); }
double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double lgamma_of(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

class SfpuSpecialKernelTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  Program build(uint32_t scenario, uint32_t out_tiles, const std::string& text = source(), const char* name = kName,
                Defines defines = {}) {
    const uint32_t tile = tile_size(DataFormat::Float16_b);
    auto input = [&](const std::vector<float>& v) {
      auto buf = Buffer::create(device_, {tile, tile, BufferType::DRAM});
      const std::vector<uint8_t> packed = pack_tiles(v, DataFormat::Float16_b);
      buf->write(packed.data(), packed.size());
      return buf;
    };
    in0_ = input(a_);
    in1_ = input(b_);
    out_ = Buffer::create(device_, {uint64_t(out_tiles) * tile, tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    for (uint8_t cb : {uint8_t(0), uint8_t(1)})
      program.add_circular_buffer(core,
                                  CircularBufferConfig(tile, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile));
    program.add_circular_buffer(
        core, CircularBufferConfig(kOutTiles * tile, {{uint8_t(16), DataFormat::Float16_b}}).set_page_size(16, tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.defines = std::move(defines);
    KernelHandle compute = program.add_kernel_from_source(text, name, core, config);
    program.set_runtime_args(reader, core, {0, in0_->address(), 1, 1, in1_->address(), 1});
    program.set_runtime_args(writer, core, {16, out_->address(), out_tiles});
    program.set_runtime_args(compute, core, {scenario});
    return program;
  }

  std::vector<float> run(uint32_t scenario, uint32_t out_tiles) {
    Program program = build(scenario, out_tiles);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(out_tiles * tile_size(DataFormat::Float16_b));
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, DataFormat::Float16_b);
  }

  std::string fails(uint32_t scenario) {
    Program program = build(scenario, 1);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  // Quarters in [-4, 4): exact in bf16, integers and zeros included.
  std::vector<float> a_ = quarters(3), b_ = quarters(5);
  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;

  static std::vector<float> quarters(uint32_t stride) {
    std::vector<float> v(kTileHW);
    for (uint32_t i = 0; i < kTileHW; ++i)
      v[i] = 0.25f * float(int32_t((i * stride) % 32) - 16);
    return v;
  }
};

TEST_F(SfpuSpecialKernelTest, OpsByTheirMetaliumSpelling) {
  const std::vector<float> got = run(0, kOutTiles);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a = a_[i], b = b_[i];
    const int32_t ia = int32_t(4 * a), ib = int32_t(4 * b);
    auto tile = [&](uint32_t t) { return got[t * kTileHW + i]; };
    ASSERT_EQ(tile(0), float(ia ^ ib)) << "bitwise_xor at " << i;
    ASSERT_EQ(tile(1), float((ia ^ ib) & ib)) << "bitwise_and at " << i;
    ASSERT_EQ(tile(2), dst(double(a) + 0.25 * (double(b) - a))) << "lerp at " << i;
    ASSERT_EQ(tile(3), dst(std::cbrt(double(a)))) << "cbrt at " << i;
    ASSERT_EQ(tile(4), dst(a * std::min(std::max(double(a) + 2.8, 0.0), 5.0) / 5.0)) << "hardmish at " << i;
    ASSERT_EQ(tile(5), dst(2.0 * std::tanh(double(a) * 0.5))) << "softcap at " << i;
    ASSERT_EQ(tile(6), 1.0f - a) << "rsub at " << i;
    ASSERT_EQ(tile(7), b) << "copy_dest_values at " << i;
  }
}

TEST_F(SfpuSpecialKernelTest, ActivationsAndTypecastInit) {
  const std::vector<float> got = run(1, kOutTiles);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a = a_[i], b = b_[i];
    auto tile = [&](uint32_t t) { return got[t * kTileHW + i]; };
    ASSERT_EQ(tile(0), a > 0 ? a : dst(2.0 * std::expm1(double(a) * 0.5))) << "celu at " << i;
    ASSERT_EQ(tile(1), b > 0.5f ? b - 0.5f : b < -0.5f ? b + 0.5f : 0.0f) << "softshrink at " << i;
    ASSERT_EQ(tile(2), std::fabs(a) > 1.0f ? a : 0.0f) << "hardshrink at " << i;
    ASSERT_EQ(tile(3), dst(softplus(a))) << "log1p_exp at " << i;
    ASSERT_EQ(tile(4), dst(-softplus(-double(a)))) << "logsigmoid at " << i;
    ASSERT_EQ(tile(5), dst(-softplus(-double(a)))) << "logsigmoid(-a, e^-a) at " << i;
    ASSERT_EQ(tile(6), std::nearbyint(a)) << "typecast to Int32 at " << i;
    if (a > 0 || a != std::floor(a)) {
      ASSERT_EQ(tile(7), dst(lgamma_of(a))) << "lgamma at " << i;
    } else {
      ASSERT_EQ(tile(7), INFINITY) << "lgamma at the pole " << a;
    }
  }
}

TEST_F(SfpuSpecialKernelTest, LgammaSteps) {
  a_ = quarters(3);
  for (float& x : a_)
    x = std::fabs(x) + 0.5f;
  const std::vector<float> got = run(2, 1);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(got[i], dst(lgamma_of(a_[i]))) << "lgamma_adjusted(lgamma_stirling) at " << i << ", a = " << a_[i];
}

TEST_F(SfpuSpecialKernelTest, LiteralZerosPickTheThreeTileForms) {
  const std::vector<float> got = run(5, 2);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a = a_[i];
    ASSERT_EQ(got[i], -0.0f) << "softcap(0, 0, 0) of logsigmoid(0, 0, 0) at " << i;
    ASSERT_EQ(got[kTileHW + i], dst(lgamma_of(a < 0.5f ? 1.0 - a : double(a)))) << "lgamma_stirling at " << i;
  }
}

TEST_F(SfpuSpecialKernelTest, TwoTileOpsOfTheirOwnHeaders) {
  const std::vector<float> got = run(6, 7);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const int64_t x = int64_t(4 * a_[i]), y = int64_t(4 * b_[i]);
    auto tile = [&](uint32_t t) { return got[t * kTileHW + i]; };
    ASSERT_EQ(tile(0), dst(std::atan2(4.0 * a_[i], 4.0 * b_[i]))) << "atan2 at " << i;
    const double lb = std::log(4.0 * b_[i]);
    if (y < 0)
      ASSERT_TRUE(std::isnan(tile(1))) << "xlogy of a negative at " << i;
    else
      ASSERT_EQ(tile(1), y == 0 ? 0.0f : dst(double(4 * b_[i]) * lb)) << "xlogy at " << i;
    ASSERT_EQ(tile(2), float(int32_t(x) >> (y < 0 || y > 31 ? 31 : y))) << "right shift at " << i;
    ASSERT_EQ(tile(3), dst(uint32_t(x - y) & 0xffffu)) << "sub_int<UInt16> (bf16 in DST) at " << i;
    const int64_t q = y == 0 ? 0 : x / y, r = y == 0 ? 0 : x % y;
    const bool adjust = r != 0 && (r < 0) != (y < 0);
    ASSERT_EQ(tile(4), float(adjust ? q - 1 : q)) << "div_int32_floor at " << i;
    ASSERT_EQ(tile(5), float(std::gcd(x, y))) << "gcd at " << i;
    ASSERT_EQ(tile(6), float(adjust ? r + y : r)) << "remainder_int32 at " << i;
  }
}

TEST_F(SfpuSpecialKernelTest, TernaryOpsWithAScalar) {
  const std::vector<float> got = run(7, 3);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const double a = a_[i], b = b_[i], s = std::sin(b * a);
    ASSERT_EQ(got[i], dst(a + 3.0 * b / 2.0)) << "addcdiv at " << i;
    ASSERT_EQ(got[kTileHW + i], dst(a + s * s / 2.0)) << "snake_beta at " << i;
    ASSERT_EQ(got[2 * kTileHW + i], dst(a + 0.5 * b * 2.0)) << "addcmul at " << i;
  }
}

// Metalium's generic unary kernel: the factory pastes the op into
// SFPU_OP_CHAIN_0 and defines SFPU_OP_<OP>_INCLUDE, which brings the op's
// header in through sfpu_split_includes.h.
TEST_F(SfpuSpecialKernelTest, OpsOfTheirOwnHeadersThroughSplitIncludes) {
  const std::string chain = R"(#include "api/compute/common.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_unary/sfpu_split_includes.h"
void kernel_main() {
  init_sfpu(0, 16);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  tile_regs_acquire();
  copy_tile(0, 0, 0);
  SFPU_OP_CHAIN_0
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(16, 1);
  pack_tile(0, 16);
  cb_push_back(16, 1);
  tile_regs_release();
}
)";
  Program program = build(0, 1, chain, "eltwise_sfpu.cpp",
                          {{"SFPU_OP_SOFTCAP_INCLUDE", "1"},
                           {"SFPU_OP_CHAIN_0", "softcap_tile_init(); softcap_tile(0, 0x40000000u, 0x3F000000u);"}});
  device_->command_queue().enqueue_program(program);
  std::vector<uint8_t> bytes(tile_size(DataFormat::Float16_b));
  out_->read(bytes.data(), bytes.size());
  const std::vector<float> got = unpack_tiles(bytes, DataFormat::Float16_b);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(got[i], dst(2.0 * std::tanh(double(a_[i]) * 0.5))) << "softcap at " << i;
}

// quant_tile and isclose_binary_tile are declared, so that ttnn's binary
// kernels, which include their headers, build; a kernel that calls one does
// not.
TEST_F(SfpuSpecialKernelTest, UnmodelledCallsDoNotBuild) {
  for (const auto& [call, message] :
       {std::pair<std::string, std::string>{"quant_tile_init(0); quant_tile(0, 1, 0);",
                                            "tessel: quant_tile_init (quantization.h) is not modelled: silicon's "
                                            "rounding of the quantized values is not documented"},
        {"isclose_binary_tile_init(); isclose_binary_tile<false>(0, 1, 0);",
         "tessel: isclose_binary_tile (isclose.h) is not modelled yet"}}) {
    Program program;
    program.add_kernel_from_source(std::string("#include \"api/compute/common.h\"\n#include "
                                               "\"api/compute/quantization.h\"\n#include \"api/compute/isclose.h\"\n"
                                               "void kernel_main() { ") +
                                       call + " }\n",
                                   "unmodelled.cpp", CoreCoord{0, 0}, ComputeConfig{});
    const std::string error = error_of<ProgramError>(device_->command_queue(), program);
    EXPECT_NE(error.find(message), std::string::npos) << error;
  }
  expect_device_works(device_);
}

TEST_F(SfpuSpecialKernelTest, Misuse) {
  EXPECT_EQ(fails(3), error_at("softcap_no_cap") +
                          "softcap_tile(idst) without a cap: call softcap_tile_init(cap, 1 / cap) first (float bits), "
                          "or pass them to softcap_tile(idst, cap, 1 / cap)");
  EXPECT_EQ(fails(4), error_at("lerp_uninit") +
                          "lerp_tile(idst0=0, idst1=1, idst2=1, odst=0): the SFPU is not configured for lerp_tile: "
                          "call lerp_tile_init() first (the last SFPU init was lgamma_stirling_tile_init at " +
                          at("stirling_init") + ")");
}

} // namespace
} // namespace tessel::test
