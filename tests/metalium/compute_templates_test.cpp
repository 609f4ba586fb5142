// The template compute-API forms of current Metalium kernels:
// compute_kernel_hw_startup<SrcOrder>, binary_tiles_init<full_init, op>,
// reduce_init/reduce_tile/reduce_uninit with enforce_fp32_accumulation, the
// reconfig_data_format template flags, the paired inits add_init / sub_init /
// mul_init, the newer names copy_block, pack_block, {add,mul}_reuse_dest_init
// and _tiles, and sub_bcast_cols_init, and what each checks: one compute kernel, a scenario per runtime
// argument, between the compute tests' reader (CBs 0 and 1) and writer (CB 16).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kTemplatesName = "templates.cpp";
constexpr const char* kTemplatesSource = R"KERNEL(#include "api/compute/bcast.h"
#include "api/compute/compute_kernel_hw_startup.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/matmul.h"
#include "api/compute/reduce.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/pack.h"
#include "api/compute/reconfig_data_format.h"
#include "api/compute/reg_api.h"

void pack_one() {
  tile_regs_commit();
  cb_reserve_back(16, 1);
  tile_regs_wait();
  pack_tile(0, 16);
  tile_regs_release();
  cb_push_back(16, 1);
}

void kernel_main() {
  const uint32_t scenario = get_arg_val<uint32_t>(0);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  if (scenario == 0) { // matmul: in0 Float16_b, in1 Bfp8_b
    compute_kernel_hw_startup<SrcOrder::Reverse>(0, 1, 16);
    matmul_init(0, 1);
    tile_regs_acquire();
    matmul_tiles(0, 1, 0, 0, 0);
    pack_one();
  } else if (scenario == 1) { // the matmul order, then an eltwise op (in0 on SrcA)
    compute_kernel_hw_startup<SrcOrder::Reverse>(0, 1, 16); // @reverse
    add_tiles_init(0, 1);
    tile_regs_acquire();
    add_tiles(0, 1, 0, 0, 0); // @add
    pack_one();
  } else if (scenario == 2) { // multiply with a MATH-only init after the common init
    binary_op_init_common(0, 1, 16);
    binary_tiles_init<false, EltwiseBinaryType::ELWMUL>(0, 1);
    tile_regs_acquire();
    mul_tiles(0, 1, 0, 0, 0);
    pack_one();
  } else if (scenario == 3) { // a MATH-only binary init after a copy init
    compute_kernel_hw_startup(0, 1, 16);
    copy_tile_init(0); // @copy_init
    binary_tiles_init<false, EltwiseBinaryType::ELWADD>(0, 1); // @math_only
  } else if (scenario == 4) { // row sums with the templated reduce and reconfig forms
    compute_kernel_hw_startup(0, 1, 16);
    reconfig_data_format<false, false>(0, 1);
    pack_reconfig_data_format<false>(16);
    reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW, false>(0, 1, 16);
    tile_regs_acquire();
    reduce_tile<PoolType::SUM, ReduceDim::REDUCE_ROW, false>(0, 1, 0, 0, 0);
    reduce_uninit<false>(0);
    pack_one();
  } else if (scenario == 6) { // the paired inits: a * b, then + (a + b) and + (a - b) accumulated in DST
    compute_kernel_hw_startup(0, 1, 16);
    mul_init(0, 1);
    tile_regs_acquire();
    mul_tiles(0, 1, 0, 0, 0);
    add_init(0, 1, true);
    add_tiles(0, 1, 0, 0, 0);
    sub_init(0, 1, true);
    sub_tiles(0, 1, 0, 0, 0);
    pack_one();
  } else if (scenario == 7) { // copy_block a into DST 1, then * b and + a with DST on SrcA, then on SrcB
    compute_kernel_hw_startup(0, 1, 16);
    copy_init(0);
    tile_regs_acquire();
    copy_block(0, 0, 1, 1);
    mul_reuse_dest_init<EltwiseBinaryReuseDestType::DEST_TO_SRCA>(1);
    mul_reuse_dest_tiles<EltwiseBinaryReuseDestType::DEST_TO_SRCA>(1, 0, 1);
    add_reuse_dest_init<EltwiseBinaryReuseDestType::DEST_TO_SRCB>(0);
    add_reuse_dest_tiles<EltwiseBinaryReuseDestType::DEST_TO_SRCB>(0, 0, 1);
    tile_regs_commit();
    cb_reserve_back(16, 1);
    tile_regs_wait();
    pack_block(1, 16, 1);
    tile_regs_release();
    cb_push_back(16, 1);
  } else if (scenario == 8) { // a minus b's column 0 broadcast across the row
    compute_kernel_hw_startup(0, 1, 16);
    sub_bcast_cols_init(0, 1);
    tile_regs_acquire();
    sub_tiles_bcast_cols(0, 1, 0, 0, 0);
    pack_one();
  } else { // a transposing copy init
    compute_kernel_hw_startup(0, 16);
    copy_tile_to_dst_init_short(0, 1); // @transpose
  }
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}
)KERNEL";

std::string templates_at(const std::string& marker) {
  return std::string(kTemplatesName) + ":" + std::to_string(marker_line(kTemplatesSource, marker)) +
         ": core (0,0) COMPUTE: ";
}

class ComputeTemplatesTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  // CB 0 holds `a` as in0_format, CB 1 holds `b` as in1_format, CB 16 is Float16_b.
  Program build(uint32_t scenario, const std::vector<float>& a, DataFormat in0_format, const std::vector<float>& b,
                DataFormat in1_format) {
    auto input = [&](const std::vector<float>& v, DataFormat format) {
      auto buf = Buffer::create(device_, {tile_size(format), tile_size(format), BufferType::DRAM});
      const std::vector<uint8_t> packed = pack_tiles(v, format);
      buf->write(packed.data(), packed.size());
      return buf;
    };
    in0_ = input(a, in0_format);
    in1_ = input(b, in1_format);
    const uint32_t out_tile = tile_size(DataFormat::Float16_b);
    out_ = Buffer::create(device_, {out_tile, out_tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    for (auto [cb, format] : {std::pair{uint8_t(0), in0_format}, std::pair{uint8_t(1), in1_format}})
      program.add_circular_buffer(
          core, CircularBufferConfig(tile_size(format), {{cb, format}}).set_page_size(cb, tile_size(format)));
    program.add_circular_buffer(
        core, CircularBufferConfig(out_tile, {{uint8_t(16), DataFormat::Float16_b}}).set_page_size(16, out_tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    KernelHandle compute = program.add_kernel_from_source(kTemplatesSource, kTemplatesName, core, ComputeConfig{});
    const bool writes = scenario != 3 && scenario != 5;
    program.set_runtime_args(reader, core, {0, in0_->address(), 1, 1, in1_->address(), 1});
    program.set_runtime_args(writer, core, {16, out_->address(), writes ? 1u : 0u});
    program.set_runtime_args(compute, core, {scenario});
    return program;
  }

  std::vector<float> run(uint32_t scenario, const std::vector<float>& a, DataFormat in0_format,
                         const std::vector<float>& b, DataFormat in1_format) {
    Program program = build(scenario, a, in0_format, b, in1_format);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(out_->size());
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, DataFormat::Float16_b);
  }

  std::string fails(uint32_t scenario, DataFormat in1_format = DataFormat::Float16_b) {
    Program program = build(scenario, ones(), DataFormat::Float16_b, ones(), in1_format);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  static std::vector<float> ones() { return std::vector<float>(kTileHW, 1.0f); }
  // Tile element (r, c) of a row-major 32x32 value table, in tile order.
  static std::vector<float> tiled(float (*f)(uint32_t r, uint32_t c)) {
    std::vector<float> rows(kTileHW);
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = 0; c < 32; ++c)
        rows[r * 32 + c] = f(r, c);
    return tilize(rows, 32, 32);
  }
  static float at(const std::vector<float>& tile, uint32_t r, uint32_t c) { return untilize(tile, 32, 32)[r * 32 + c]; }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;
};

TEST_F(ComputeTemplatesTest, ReverseStartupConfiguresMatmulSources) {
  // A = identity (Float16_b), B[r][c] = c / 4 (Bfp8_b): A B = B.
  const auto a = tiled([](uint32_t r, uint32_t c) { return r == c ? 1.0f : 0.0f; });
  const auto b = tiled([](uint32_t, uint32_t c) { return float(c % 8) / 4; });
  const auto out = run(0, a, DataFormat::Float16_b, b, DataFormat::Bfp8_b);
  for (uint32_t r : {0u, 5u, 31u})
    for (uint32_t c : {0u, 3u, 7u, 30u})
      EXPECT_EQ(at(out, r, c), float(c % 8) / 4) << r << "," << c;
}

TEST_F(ComputeTemplatesTest, ReverseStartupPutsIcb1OnSrcA) {
  EXPECT_EQ(fails(1, DataFormat::Bfp8_b),
            templates_at("add") +
                "add_tiles(cb0=0, cb1=1, itile0=0, itile1=0, idst=0): CB 0 holds Float16_b, but the unpacker's SrcA "
                "is configured for Bfp8_b (by compute_kernel_hw_startup<SrcOrder::Reverse> at templates.cpp:" +
                std::to_string(marker_line(kTemplatesSource, "reverse")) +
                "): call reconfig_data_format_srca(0) (or reconfig_data_format) first");
}

TEST_F(ComputeTemplatesTest, MathOnlyBinaryInitAfterCommonInitMultiplies) {
  const auto a = tiled([](uint32_t r, uint32_t) { return float(r % 4) + 1; });
  const auto b = tiled([](uint32_t, uint32_t c) { return float(c % 8) / 2; });
  const auto out = run(2, a, DataFormat::Float16_b, b, DataFormat::Float16_b);
  for (uint32_t r : {0u, 3u, 17u})
    for (uint32_t c : {1u, 6u, 31u})
      EXPECT_EQ(at(out, r, c), (float(r % 4) + 1) * (float(c % 8) / 2)) << r << "," << c;
}

TEST_F(ComputeTemplatesTest, MathOnlyBinaryInitNeedsTheBinaryUnpacker) {
  EXPECT_EQ(fails(3), templates_at("math_only") +
                          "binary_tiles_init<false, ...> configures MATH only, but the unpacker is not set up for "
                          "eltwise binary ops (the last op init was copy_tile_init at templates.cpp:" +
                          std::to_string(marker_line(kTemplatesSource, "copy_init")) +
                          "): call binary_op_init_common(cb0, cb1, ocb) first or use the full init");
}

TEST_F(ComputeTemplatesTest, TemplatedReduceAndReconfigFormsSumRows) {
  const auto a = tiled([](uint32_t r, uint32_t c) { return float(r % 3) + (c == 0 ? 1.0f : 0.0f); });
  const auto out = run(4, a, DataFormat::Float16_b, ones(), DataFormat::Float16_b);
  for (uint32_t r : {0u, 1u, 2u, 29u})
    EXPECT_EQ(at(out, r, 0), float(r % 3) * 32 + 1) << r;
}

TEST_F(ComputeTemplatesTest, PairedInitsAreTheFullInitsOfTheirOps) {
  const auto a = tiled([](uint32_t r, uint32_t) { return float(r % 4) + 1; });
  const auto b = tiled([](uint32_t, uint32_t c) { return float(c % 8) / 2; });
  const auto out = run(6, a, DataFormat::Float16_b, b, DataFormat::Float16_b);
  for (uint32_t r : {0u, 3u, 17u})
    for (uint32_t c : {1u, 6u, 31u}) {
      const float x = float(r % 4) + 1, y = float(c % 8) / 2;
      EXPECT_EQ(at(out, r, c), x * y + 2 * x) << r << "," << c;
    }
}

TEST_F(ComputeTemplatesTest, CopyBlockTheReuseDestFormsAndPackBlockComputeInDst) {
  const auto a = tiled([](uint32_t r, uint32_t) { return float(r % 4) + 1; });
  const auto b = tiled([](uint32_t, uint32_t c) { return float(c % 8) / 2; });
  const auto out = run(7, a, DataFormat::Float16_b, b, DataFormat::Float16_b);
  for (uint32_t r : {0u, 3u, 17u})
    for (uint32_t c : {1u, 6u, 31u}) {
      const float x = float(r % 4) + 1, y = float(c % 8) / 2;
      EXPECT_EQ(at(out, r, c), x + x * y) << r << "," << c;
    }
}

TEST_F(ComputeTemplatesTest, SubBcastColsInitSubtractsColumnZero) {
  const auto a = tiled([](uint32_t r, uint32_t c) { return float(r % 4) + float(c % 2); });
  const auto b = tiled([](uint32_t r, uint32_t c) { return float(r % 8) / 2 + float(c); });
  const auto out = run(8, a, DataFormat::Float16_b, b, DataFormat::Float16_b);
  for (uint32_t r : {0u, 3u, 7u, 30u})
    for (uint32_t c : {0u, 1u, 6u, 31u})
      EXPECT_EQ(at(out, r, c), float(r % 4) + float(c % 2) - float(r % 8) / 2) << r << "," << c;
}

TEST_F(ComputeTemplatesTest, TransposingCopyInitFailsAtItsLine) {
  EXPECT_EQ(fails(5), templates_at("transpose") +
                          "copy with transpose (transpose=1) is not supported by tessel: use "
                          "transpose_wh_init_short(cb) and transpose_wh_tile(cb, itile, idst) to transpose a tile "
                          "into DST");
}

// PoolType::MIN names the SFPU reduce's min fold: kernels compare against it,
// and an FPU reduce with it does not build.
TEST(ReducePoolTypeMin, IsAPoolTypeTheFpuReduceRefuses) {
  auto device = open_device();
  constexpr const char* kCompares = R"(#include "api/compute/reduce.h"
void kernel_main() {
  constexpr bool selects = REDUCE_OP == PoolType::MAX || REDUCE_OP == PoolType::MIN;
  static_assert(!selects && PoolType::MIN != PoolType::MAX && PoolType::MIN != PoolType::SUM);
}
)";
  Program compares;
  compares.add_kernel_from_source(kCompares, "compares.cpp", CoreCoord{0, 0}, ComputeConfig{});
  EXPECT_NO_THROW(device->command_queue().enqueue_program(compares));

  constexpr const char* kReducesMin = R"(#include "api/compute/reduce.h"
void kernel_main() {
  reduce_init<PoolType::MIN, ReduceDim::REDUCE_ROW>(0, 1, 16);
}
)";
  Program reduces;
  reduces.add_kernel_from_source(kReducesMin, "reduces_min.cpp", CoreCoord{0, 0}, ComputeConfig{});
  const std::string message = error_of<ProgramError>(device->command_queue(), reduces);
  EXPECT_NE(message.find("the FPU reduce has no min pool"), std::string::npos) << message;
}

} // namespace
} // namespace tessel::test
