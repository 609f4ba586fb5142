// The eltwise binary inits in the form that also passes the caller's line
// (Metalium's call_line, e.g. mul_tiles_init(cb0, cb1, acc_to_dest,
// __builtin_LINE()), as ttnn's depthwise conv1d kernel calls it): they build
// and configure the op as the form without it does.
#include <gtest/gtest.h>

#include <vector>

#include "ops_kernel.hpp"
#include "sfpu_pipeline.hpp"
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
  std::vector<float> a(kTileHW), b(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    a[i] = float(int(i % 16) - 8);
    b[i] = float(int(i % 7) - 3);
  }
  SfpuPipeline pipe(device, a, b, DataFormat::Float16_b, 3, 3);
  const auto& out = pipe.out;
  pipe.program.add_kernel_from_source(kSource, "call_line.cpp", pipe.core, ComputeConfig{});
  pipe.program.set_runtime_args(pipe.reader, pipe.core, {0, pipe.in0->address(), 1, 1, pipe.in1->address(), 1});
  pipe.program.set_runtime_args(pipe.writer, pipe.core, {16, out->address(), 3});
  device->command_queue().enqueue_program(pipe.program);
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
