// The eltwise binary inits in the form that also passes the caller's line
// (Metalium's call_line, e.g. mul_tiles_init(cb0, cb1, acc_to_dest,
// __builtin_LINE()), as ttnn's depthwise conv1d kernel calls it): they build
// and configure the op as the form without it does.
#include <gtest/gtest.h>

#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

// Page 0: a * b, then += a * b (acc_to_dest = 1); page 1: a + b; page 2: a - b.
constexpr const char* kSource = R"KERNEL(#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_binary.h"

void kernel_main() {
  compute_kernel_hw_startup(0, 1, 16);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  cb_reserve_back(16, 3);
  tile_regs_acquire();
  mul_tiles_init(0, 1, 0u, __builtin_LINE());
  mul_tiles(0, 1, 0, 0, 0);
  mul_tiles_init(0, 1, 1u, __builtin_LINE());
  mul_tiles(0, 1, 0, 0, 0);
  add_tiles_init(0, 1, 0u, __builtin_LINE());
  add_tiles(0, 1, 0, 0, 1);
  sub_tiles_init(0, 1, 0u, __builtin_LINE());
  sub_tiles(0, 1, 0, 0, 2);
  tile_regs_commit();
  tile_regs_wait();
  for (uint32_t i = 0; i < 3; ++i) pack_tile(i, 16);
  tile_regs_release();
  cb_push_back(16, 3);
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}
)KERNEL";

TEST(ComputeInitCallLineTest, BinaryInitsTakeTheCallersLine) {
  auto device = open_device("blackhole", 1, 1);
  const uint32_t tile = tile_size(DataFormat::Float16_b);
  std::vector<float> a(kTileHW), b(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    a[i] = float(int(i % 16) - 8);
    b[i] = float(int(i % 7) - 3);
  }
  auto input = [&](const std::vector<float>& v) {
    auto buf = Buffer::create(device, {tile, tile, BufferType::DRAM});
    const std::vector<uint8_t> packed = pack_tiles(v, DataFormat::Float16_b);
    buf->write(packed.data(), packed.size());
    return buf;
  };
  auto in0 = input(a), in1 = input(b);
  auto out = Buffer::create(device, {3u * tile, tile, BufferType::DRAM});
  Program program;
  const CoreCoord core{0, 0};
  for (uint8_t cb : {uint8_t(0), uint8_t(1), uint8_t(16)}) {
    const uint32_t pages = cb == 16 ? 3 : 1;
    program.add_circular_buffer(
        core, CircularBufferConfig(pages * tile, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile));
  }
  KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
  KernelHandle writer = program.add_kernel_from_source(
      kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  program.add_kernel_from_source(kSource, "call_line.cpp", core, ComputeConfig{});
  program.set_runtime_args(reader, core, {0, in0->address(), 1, 1, in1->address(), 1});
  program.set_runtime_args(writer, core, {16, out->address(), 3});
  device->command_queue().enqueue_program(program);
  std::vector<uint8_t> bytes(out->size());
  out->read(bytes.data(), bytes.size());
  const std::vector<float> got = unpack_tiles(bytes, DataFormat::Float16_b);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    EXPECT_EQ(got[i], 2.0f * a[i] * b[i]) << i;
    EXPECT_EQ(got[kTileHW + i], a[i] + b[i]) << i;
    EXPECT_EQ(got[2 * kTileHW + i], a[i] - b[i]) << i;
  }
}

} // namespace
} // namespace tessel::test
