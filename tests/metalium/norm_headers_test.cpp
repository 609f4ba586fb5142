// The headers ttnn's normalization compute kernels include for their SFPU
// ops: api/compute/softmax.h (exp_tile, recip_tile) and
// api/compute/layernorm.h (the compute API with rsqrt_tile), in both
// spellings (compute_kernel_api/ too). A kernel including them computes
// 1 / exp(x) and 1 / sqrt(x) of a tile.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kReader = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t src = get_arg_val<uint32_t>(0);
  const InterleavedAddrGenFast<true> s = {.bank_base_address = src, .page_size = get_tile_size(0), .data_format = get_dataformat(0)};
  cb_reserve_back(0, 1);
  noc_async_read_tile(0, s, get_write_ptr(0));
  noc_async_read_barrier();
  cb_push_back(0, 1);
}
)";

constexpr const char* kWriter = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t dst = get_arg_val<uint32_t>(0);
  const InterleavedAddrGenFast<true> s = {.bank_base_address = dst, .page_size = get_tile_size(16), .data_format = get_dataformat(16)};
  for (uint32_t t = 0; t < 2; ++t) {
    cb_wait_front(16, 1);
    noc_async_write_tile(t, s, get_read_ptr(16));
    noc_async_write_barrier();
    cb_pop_front(16, 1);
  }
}
)";

// Tile 0 of the output: recip(exp(x)), through softmax.h; tile 1: rsqrt(x),
// through layernorm.h.
constexpr const char* kCompute = R"(#include "api/compute/softmax.h"
#include "api/compute/layernorm.h"
#include "compute_kernel_api/softmax.h"
#include "compute_kernel_api/layernorm.h"
#include "api/compute/tile_move_copy.h"
void kernel_main() {
  init_sfpu(0, 16);
  cb_wait_front(0, 1);
  for (uint32_t t = 0; t < 2; ++t) {
    tile_regs_acquire();
    copy_tile_init(0);
    copy_tile(0, 0, 0);
    if (t == 0) {
      exp_tile_init();
      exp_tile(0);
      recip_tile_init();
      recip_tile(0);
    } else {
      rsqrt_tile_init();
      rsqrt_tile(0);
    }
    tile_regs_commit();
    cb_reserve_back(16, 1);
    tile_regs_wait();
    pack_tile(0, 16);
    tile_regs_release();
    cb_push_back(16, 1);
  }
  cb_pop_front(0, 1);
}
)";

TEST(NormHeadersTest, SoftmaxAndLayernormHeadersGiveTheirSfpuOps) {
  auto device = open_device();
  constexpr uint32_t kTileBytes = 2048, kValues = 1024;
  auto in = Buffer::create(device, {kTileBytes, kTileBytes, BufferType::DRAM});
  auto out = Buffer::create(device, {2 * kTileBytes, kTileBytes, BufferType::DRAM});
  std::vector<uint16_t> x(kValues);
  for (uint32_t i = 0; i < kValues; ++i)
    x[i] = float_to_bf16(0.5f + 1.5f * float(i) / kValues); // [0.5, 2)
  in->write(x.data(), kTileBytes);

  const CoreCoord core{0, 0};
  Program p;
  for (uint8_t cb : {uint8_t(0), uint8_t(16)}) {
    CircularBufferConfig c(2 * kTileBytes, {{cb, DataFormat::Float16_b}});
    c.set_page_size(cb, kTileBytes);
    p.add_circular_buffer(core, c);
  }
  const KernelHandle r = p.add_kernel_from_source(
      kReader, "reader.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  const KernelHandle w = p.add_kernel_from_source(
      kWriter, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default});
  p.add_kernel_from_source(kCompute, "norm_ops.cpp", core, ComputeConfig{});
  p.set_runtime_args(r, core, {uint32_t(in->address())});
  p.set_runtime_args(w, core, {uint32_t(out->address())});
  device->command_queue().enqueue_program(p);

  std::vector<uint16_t> y(2 * kValues);
  out->read(y.data(), 2 * kTileBytes);
  // Each op rounds to bfloat16 (2^-8 relative) after an SFPU result good to
  // about as much: allow 2^-6.
  for (uint32_t i = 0; i < kValues; ++i) {
    const double v = bf16_to_float(x[i]);
    EXPECT_NEAR(bf16_to_float(y[i]), std::exp(-v), std::ldexp(std::exp(-v), -6)) << "recip(exp(x)) at " << i;
    EXPECT_NEAR(bf16_to_float(y[kValues + i]), 1 / std::sqrt(v), std::ldexp(1 / std::sqrt(v), -6))
        << "rsqrt(x) at " << i;
  }
}

} // namespace
} // namespace tessel::test
