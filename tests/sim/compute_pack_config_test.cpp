// The packer's edits of what it packs (src/sim/compute_pack_config.cpp):
// ReLU (llk_pack_relu_config with ReluConfig::none() / zero()) and the
// reduce edge masks (llk_pack_reduce_mask_config / _clear, and those
// reduce_init / reduce_uninit set), checked against a host reference on a
// copied tile; what is not modelled is refused with its message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops_kernel.hpp"
#include "sfpu_pipeline.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kName = "pack_config.cpp";

// Runtime arg 0 picks the packer configuration before a copy of CB 0's tile
// is packed into CB 16.
constexpr const char* kSource = R"KERNEL(#include "api/compute/compute_kernel_api.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/reduce.h"
#include "api/compute/pack.h"
#include "api/compute/pack_untilize.h"

void kernel_main() {
  const uint32_t mode = get_arg_val<uint32_t>(0);
  compute_kernel_hw_startup(0, 1, 16);
  switch (mode) {
  case 1: PACK((llk_pack_relu_config(ReluConfig::zero()))); break;
  case 2: PACK((llk_pack_reduce_mask_config<ReduceDim::REDUCE_ROW, PackMode::Default>(16))); break;
  case 3: PACK((llk_pack_reduce_mask_config<ReduceDim::REDUCE_COL>(16))); break;
  case 4: PACK((llk_pack_reduce_mask_config<ReduceDim::REDUCE_SCALAR>(16))); break;
  case 5: PACK((llk_pack_relu_config(ReluConfig::zero()))); PACK((llk_pack_relu_config(ReluConfig::none()))); break;
  case 6: PACK((llk_pack_reduce_mask_config<ReduceDim::REDUCE_ROW>(16))); PACK((llk_pack_reduce_mask_clear())); break;
  case 7: reduce_init<PoolType::SUM, ReduceDim::REDUCE_COL>(0, 1, 16); break;
  case 8: reduce_init<PoolType::SUM, ReduceDim::REDUCE_COL>(0, 1, 16); reduce_uninit(); break;
  case 9: pack_relu_config(ReluConfig::zero()); compute_kernel_hw_startup(0, 1, 16); break;
  case 10:
    PACK((llk_pack_reduce_mask_config<ReduceDim::REDUCE_SCALAR>(16)));
    pack_relu_config(ReluConfig::zero());
    break;
  case 11: pack_relu_config(ReluConfig::zero()); pack_reconfig_l1_acc(1); break; // @pack_relu_l1
  }
  copy_tile_init(0);
  cb_wait_front(0, 1);
  tile_regs_acquire();
  copy_tile(0, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(16, 1);
  if (mode == 12) {
    PACK((llk_pack_reduce_mask_config<ReduceDim::REDUCE_ROW>(16)));
    pack_untilize_dest_init<1>(16);
    pack_untilize_dest<1>(16); // @pack_untilize_dest
  } else {
    pack_tile(0, 16); // @pack_tile
  }
  cb_push_back(16, 1);
  tile_regs_release();
  cb_pop_front(0, 1);
}
)KERNEL";

// -8..7 (+ a quarter), cycling: both signs, exact in bfloat16.
std::vector<float> input() {
  std::vector<float> v(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i)
    v[i] = float(int(i % 16) - 8) + 0.25f * float(i % 3);
  return v;
}

enum class Mask { None, Row, Col, Scalar };

// The host reference: what the packer writes for `in` (tile order).
std::vector<float> reference(const std::vector<float>& in, Mask mask, bool relu) {
  std::vector<float> out(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const uint32_t face = i / 256, row = (i % 256) / 16, datum = i % 16;
    const bool keep = mask == Mask::None  ? true
                      : mask == Mask::Row ? datum == 0
                      : mask == Mask::Col ? face < 2 && row == 0
                                          : face == 0 && row == 0 && datum == 0;
    const float v = keep ? in[i] : 0.0f;
    out[i] = relu && v < 0.0f ? 0.0f : v;
  }
  return out;
}

class ComputePackConfigTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  Program build(uint32_t mode) {
    SfpuPipeline pipe(device_, input(), std::vector<float>(kTileHW, 0.0f), DataFormat::Float16_b, 1, 1);
    in_ = pipe.in0;
    scaler_ = pipe.in1;
    out_ = pipe.out;
    Program program = std::move(pipe.program);
    const CoreCoord core = pipe.core;
    KernelHandle compute = program.add_kernel_from_source(kSource, kName, core, ComputeConfig{});
    program.set_runtime_args(pipe.reader, core, {0, in_->address(), 1, 1, scaler_->address(), 0});
    program.set_runtime_args(pipe.writer, core, {16, out_->address(), 1});
    program.set_runtime_args(compute, core, {mode});
    return program;
  }

  std::vector<float> run(uint32_t mode) {
    Program program = build(mode);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(out_->size());
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, DataFormat::Float16_b);
  }

  std::string fails(uint32_t mode) {
    Program program = build(mode);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in_, scaler_, out_;
};

TEST_F(ComputePackConfigTest, NothingConfiguredPacksTheTileAsItIs) {
  EXPECT_EQ(run(0), reference(input(), Mask::None, false));
}

TEST_F(ComputePackConfigTest, ReluZeroPacksNegativeValuesAsZero) {
  const std::vector<float> out = run(1);
  EXPECT_EQ(out, reference(input(), Mask::None, true));
  EXPECT_EQ(out[0], 0.0f);  // -8
  EXPECT_EQ(out[15], 7.0f); // 7
}

TEST_F(ComputePackConfigTest, ReduceMasksKeepOnlyTheReducedPositions) {
  EXPECT_EQ(run(2), reference(input(), Mask::Row, false));
  EXPECT_EQ(run(3), reference(input(), Mask::Col, false));
  EXPECT_EQ(run(4), reference(input(), Mask::Scalar, false));
}

TEST_F(ComputePackConfigTest, NoneAndClearTurnTheEditsOff) {
  EXPECT_EQ(run(5), reference(input(), Mask::None, false));
  EXPECT_EQ(run(6), reference(input(), Mask::None, false));
}

TEST_F(ComputePackConfigTest, ReduceInitSetsTheMaskAndReduceUninitClearsIt) {
  EXPECT_EQ(run(7), reference(input(), Mask::Col, false));
  EXPECT_EQ(run(8), reference(input(), Mask::None, false));
}

TEST_F(ComputePackConfigTest, AFullInitTurnsTheReluOff) { EXPECT_EQ(run(9), reference(input(), Mask::None, false)); }

TEST_F(ComputePackConfigTest, MaskAndReluApplyTogether) {
  // Datum [0][0] is -8: masked in, then ReLU'd to 0; everything else masked out.
  EXPECT_EQ(run(10), std::vector<float>(kTileHW, 0.0f));
}

TEST_F(ComputePackConfigTest, ReluWithL1AccumulationIsRefused) {
  EXPECT_EQ(fails(11), compute_error_at(kName, kSource, "pack_tile") +
                           "pack_tile(idst=0, cb=16): the packer's ReLU (set by "
                           "pack_relu_config at " +
                           marker_site(kName, kSource, "pack_relu_l1") +
                           ") with L1 accumulation (pack_reconfig_l1_acc(1)) is not supported by tessel: whether the "
                           "ReLU applies before or after the accumulation is not modelled");
}

TEST_F(ComputePackConfigTest, PackUntilizeWithAMaskIsRefused) {
  const std::string message = fails(12);
  EXPECT_NE(message.find(compute_error_at(kName, kSource, "pack_untilize_dest") +
                         "pack_untilize_dest while the packer's reduce edge mask is on (set by "
                         "llk_pack_reduce_mask_config at "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(") is not supported by tessel: the packer's edits are modelled for pack_tile only"),
            std::string::npos)
      << message;
}

TEST(ComputePackConfigCompileTest, ThresholdReluIsRefusedWhenCompiled) {
  auto device = open_device("blackhole", 1, 1);
  Program p;
  p.add_kernel_from_source("#include \"api/compute/pack.h\"\n"
                           "void kernel_main() { pack_relu_config(ReluConfig::min_threshold(0x3f80)); }\n",
                           "threshold.cpp", CoreCoord{0, 0}, ComputeConfig{});
  const std::string error = error_of<ProgramError>(device->command_queue(), p);
  EXPECT_NE(error.find("ReluConfig::min_threshold is not supported by tessel: the packer's threshold ReLU is not "
                       "modelled"),
            std::string::npos)
      << error;
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
