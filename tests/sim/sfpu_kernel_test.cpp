// The SFPU ops of tessel/sfpu_compare.h and tessel/sfpu_functions.h through a
// real compute kernel written with Metalium's compute_kernel_api/ header
// spellings ("sfpu_api.cpp"): where_tile (the ternary path), the integer
// comparisons of two tiles, an init that configures several ops
// (binop_with_scalar_tile_init, rounding_op_tile_init), the _int32 forms,
// and the engine's messages for a missing init and a DST index beyond the
// acquire. Every op's numerics on whole tiles: op_table_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kName = "sfpu_api.cpp";

const std::string& source() {
  static const std::string text = R"KERNEL(// sfpu_api.cpp: SFPU ops by their Metalium spellings.
#include "compute_kernel_api.h"
#include "compute_kernel_api/common.h"
#include "compute_kernel_api/tile_move_copy.h"
#include "compute_kernel_api/eltwise_unary/eltwise_unary.h"
#include "compute_kernel_api/eltwise_unary/exp.h"
#include "compute_kernel_api/eltwise_unary/fill.h"
#include "compute_kernel_api/eltwise_unary/comp.h"
#include "compute_kernel_api/eltwise_unary/where.h"
#include "compute_kernel_api/eltwise_unary/rounding.h"
#include "compute_kernel_api/eltwise_unary/binop_with_scalar.h"
#include "compute_kernel_api/binary_comp.h"

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

void kernel_main() {
  init_sfpu(0, 16);
  load();
  switch (get_arg_val<uint32_t>(0)) {
  case 0: // results: five tiles
    copy_tile(0, 0, 4);
    copy_tile(0, 0, 5);
    copy_tile(0, 0, 6);
    copy_tile(0, 0, 7);
    fill_tile_init();
    fill_tile(2, -7.0f);
    where_tile_init();
    where_tile<DataFormat::Float16_b>(0, 1, 2, 3); // a != 0 ? b : -7
    lt_int_tile_init<DataFormat::Int32>();
    lt_int_tile<DataFormat::Int32>(0, 1, 4); // a < b
    binop_with_scalar_tile_init();
    add_unary_tile(5, bits(1.0f));
    mul_unary_tile(5, bits(2.0f));
    rsub_unary_tile(5, bits(3.0f)); // 3 - 2 (a + 1)
    rounding_op_tile_init();
    frac_tile(6);
    eqz_tile_init();
    eqz_tile_int32(6); // a is an integer
    unary_gt_tile_init();
    unary_gt_tile_int32(7, 1); // a > 1
    pack(3, 5);
    return;
  case 1:
    exp_tile_init(); // @exp_tile_init
    where_tile<DataFormat::Float16_b>(0, 1, 2, 3); // @where_tile
    break;
  case 2:
    binop_with_scalar_tile_init(); // @binop_with_scalar_tile_init
    trunc_tile(0); // @trunc_tile
    break;
  case 3:
    where_tile_init(); // @where_tile_init
    rsub_unary_tile(0, bits(1.0f)); // @rsub_unary_tile
    break;
  case 4:
    where_tile_init();
    where_tile<DataFormat::Float16_b>(0, 1, 2, 8); // @where_odst
    break;
  case 5:
    eqz_tile_init();
    nez_tile_init(); // @nez_tile_init
    eqz_tile(0); // @eqz_tile
    break;
  case 6:
    eqz_tile_init(); // @eqz_tile_init
    lt_int_tile<DataFormat::Int32>(0, 1, 0); // @lt_int_tile
    break;
  case 7: // the older spellings of where, without the format: DST 0 = a != 0 ? b : -7, DST 1 = a != 0 ? a : b
    fill_tile_init();
    fill_tile(2, -7.0f);
    where_tile_init();
    where_fp32_tile(0, 0, 1, 3);
    where_tile(0, 1, 2, 0);
    copy_tile(0, 0, 4);
    where_tile(4, 4, 3, 1);
    pack(0, 2);
    return;
  }
  pack(0, 1);
}
)KERNEL";
  return text;
}

std::string at(const std::string& marker) { return marker_site(kName, source(), marker); }
std::string error_at(const std::string& marker) { return compute_error_at(kName, source(), marker); }

class SfpuKernelTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  Program build(uint32_t scenario, uint32_t out_tiles) {
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
        core, CircularBufferConfig(5 * tile, {{uint8_t(16), DataFormat::Float16_b}}).set_page_size(16, tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    KernelHandle compute = program.add_kernel_from_source(source(), kName, core, ComputeConfig{});
    program.set_runtime_args(reader, core, {0, in0_->address(), 1, 1, in1_->address(), 1});
    program.set_runtime_args(writer, core, {16, out_->address(), out_tiles});
    program.set_runtime_args(compute, core, {scenario});
    return program;
  }

  std::string fails(uint32_t scenario) {
    Program program = build(scenario, 1);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  // Quarters in [-4, 4), integers and zeros included: exact in bf16.
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

TEST_F(SfpuKernelTest, OpsByTheirMetaliumSpelling) {
  Program program = build(0, 5);
  device_->command_queue().enqueue_program(program);
  std::vector<uint8_t> bytes(5 * tile_size(DataFormat::Float16_b));
  out_->read(bytes.data(), bytes.size());
  const std::vector<float> got = unpack_tiles(bytes, DataFormat::Float16_b);
  uint32_t zeros = 0, integers = 0;
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a = a_[i], b = b_[i];
    zeros += a == 0;
    integers += a == std::trunc(a);
    ASSERT_EQ(got[i], a != 0 ? b : -7.0f) << "where at " << i << ", a = " << a;
    ASSERT_EQ(got[kTileHW + i], a < b ? 1.0f : 0.0f) << "lt_int at " << i;
    ASSERT_EQ(got[2 * kTileHW + i], 3.0f - 2.0f * (a + 1.0f)) << "binop_with_scalar at " << i;
    ASSERT_EQ(got[3 * kTileHW + i], a == std::trunc(a) ? 1.0f : 0.0f) << "eqz(frac) at " << i << ", a = " << a;
    ASSERT_EQ(got[4 * kTileHW + i], a > 1 ? 1.0f : 0.0f) << "unary_gt_int32 at " << i;
  }
  EXPECT_GT(zeros, 0u); // the inputs reach both sides of each condition
  EXPECT_GT(integers, 0u);
  EXPECT_LT(integers, kTileHW);
}

TEST_F(SfpuKernelTest, OlderWhereSpellings) {
  Program program = build(7, 2);
  device_->command_queue().enqueue_program(program);
  std::vector<uint8_t> bytes(2 * tile_size(DataFormat::Float16_b));
  out_->read(bytes.data(), bytes.size());
  const std::vector<float> got = unpack_tiles(bytes, DataFormat::Float16_b);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a = a_[i], b = b_[i];
    ASSERT_EQ(got[i], a != 0 ? b : -7.0f) << "where_tile at " << i;
    // DST 3 = a != 0 ? a : b, selected again by a (from CB 0, as DST 0 now holds the first result).
    ASSERT_EQ(got[kTileHW + i], a != 0 ? a : b) << "where_fp32_tile, where_tile at " << i;
  }
}

TEST_F(SfpuKernelTest, MostRecentInitMustConfigureTheOp) {
  EXPECT_EQ(fails(1), error_at("where_tile") +
                          "where_tile(idst0=0, idst1=1, idst2=2, odst=3): the SFPU is not configured for where_tile: "
                          "call where_tile_init() first (the last SFPU init was exp_tile_init at " +
                          at("exp_tile_init") + ")");
  // An init of several ops configures only its own.
  EXPECT_EQ(fails(2), error_at("trunc_tile") +
                          "trunc_tile(idst=0): the SFPU is not configured for trunc_tile: call rounding_op_tile_init() "
                          "first (the last SFPU init was binop_with_scalar_tile_init at " +
                          at("binop_with_scalar_tile_init") + ")");
  EXPECT_EQ(fails(3), error_at("rsub_unary_tile") +
                          "rsub_unary_tile(idst=0): the SFPU is not configured for rsub_unary_tile: call "
                          "binop_with_scalar_tile_init() first (the last SFPU init was where_tile_init at " +
                          at("where_tile_init") + ")");
  // A later init replaces the earlier one's ops rather than adding to them.
  EXPECT_EQ(fails(5), error_at("eqz_tile") +
                          "eqz_tile(idst=0): the SFPU is not configured for eqz_tile: call eqz_tile_init() first (the "
                          "last SFPU init was nez_tile_init at " +
                          at("nez_tile_init") + ")");
  EXPECT_EQ(fails(6), error_at("lt_int_tile") +
                          "lt_int_tile(idst0=0, idst1=1, odst=0): the SFPU is not configured for lt_int_tile: call "
                          "lt_int_tile_init() first (the last SFPU init was eqz_tile_init at " +
                          at("eqz_tile_init") + ")");
}

TEST_F(SfpuKernelTest, WhereChecksEveryDstIndex) {
  EXPECT_EQ(fails(4), error_at("where_odst") +
                          "where_tile(idst0=0, idst1=1, idst2=2, odst=8): DST index 8 is out of range: one acquire "
                          "holds 8 tiles in half-sync with 16-bit DST mode (indices 0..7; half-sync 8, full-sync 16, "
                          "halved by fp32_dest_acc_en)");
}

} // namespace
} // namespace tessel::test
