// What the two reuse matmuls' Metalium-style host programs share: C = A B in
// bf16 (K = 256) blocked as per_core_M x per_core_N output tiles per core on
// a (Nt / per_core_N) x (Mt / per_core_M) rectangle, K walked in0_block_w
// tiles at a time in DST-sized sub-blocks, partials spilled to CB 24 (which
// shares its L1 with the output CB 16). The constructor writes the inputs and
// adds the CBs, the writer and the compute kernel; each program adds its
// reader(s) and runtime args, then calls run_and_check().
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include "matmul_common/compat/matmul_check.hpp"

struct ReuseMatmul {
  static constexpr uint32_t K = 256, per_core_M = 4, per_core_N = 4, in0_block_w = 2;
  static constexpr uint32_t out_subblock_h = 2, out_subblock_w = 4;
  static constexpr uint32_t tile_bytes = sizeof(bfloat16) * tt::constants::TILE_HW;
  static constexpr uint32_t Kt = K / tt::constants::TILE_WIDTH, num_blocks = Kt / in0_block_w;
  static constexpr uint32_t in0_num_subblocks = per_core_M / out_subblock_h;
  static constexpr uint32_t in1_num_subblocks = per_core_N / out_subblock_w;
  static constexpr uint32_t in0_block_tiles = per_core_M * in0_block_w, in1_block_tiles = in0_block_w * per_core_N;

  const char* name;
  tt::tt_metal::IDevice* device;
  uint32_t M, N, Mt, Nt;
  tt::tt_metal::CoreCoord used;
  tt::tt_metal::CoreRange cores;
  std::vector<bfloat16> a, b;
  std::shared_ptr<tt::tt_metal::Buffer> a_buf, b_buf, c_buf;
  tt::tt_metal::Program program;
  tt::tt_metal::KernelHandle writer = 0;

  ReuseMatmul(const char* name_, tt::tt_metal::IDevice* device_, uint32_t M_, uint32_t N_)
      : name(name_), device(device_), M(M_), N(N_), Mt(M_ / tt::constants::TILE_HEIGHT),
        Nt(N_ / tt::constants::TILE_WIDTH), used{Nt / per_core_N, Mt / per_core_M},
        cores({0, 0}, {used.x - 1, used.y - 1}), program(tt::tt_metal::CreateProgram()) {
    using namespace tt::tt_metal;
    const CoreCoord grid = device->compute_with_storage_grid_size();
    if (used.x > grid.x || used.y > grid.y)
      throw std::runtime_error("needs a " + std::to_string(used.x) + "x" + std::to_string(used.y) + " grid");
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    a.resize(M * K);
    b.resize(K * N);
    for (bfloat16& v : a)
      v = bfloat16(dist(rng));
    for (bfloat16& v : b)
      v = bfloat16(dist(rng));
    auto dram_buffer = [&](uint32_t tiles) {
      return CreateBuffer(InterleavedBufferConfig{
          .device = device, .size = tiles * tile_bytes, .page_size = tile_bytes, .buffer_type = BufferType::DRAM});
    };
    a_buf = dram_buffer(Mt * Kt);
    b_buf = dram_buffer(Kt * Nt);
    c_buf = dram_buffer(Mt * Nt);
    CommandQueue& cq = device->command_queue();
    EnqueueWriteBuffer(cq, a_buf, tilize_nfaces(a, M, K), false);
    EnqueueWriteBuffer(cq, b_buf, tilize_nfaces(b, K, N), false);

    const tt::DataFormat format = tt::DataFormat::Float16_b;
    CreateCircularBuffer(program, cores,
                         CircularBufferConfig(2 * in0_block_tiles * tile_bytes, {{tt::CBIndex::c_0, format}})
                             .set_page_size(tt::CBIndex::c_0, tile_bytes));
    CreateCircularBuffer(program, cores,
                         CircularBufferConfig(2 * in1_block_tiles * tile_bytes, {{tt::CBIndex::c_1, format}})
                             .set_page_size(tt::CBIndex::c_1, tile_bytes));
    CreateCircularBuffer(program, cores,
                         CircularBufferConfig(per_core_M * per_core_N * tile_bytes,
                                              {{tt::CBIndex::c_16, format}, {tt::CBIndex::c_24, format}})
                             .set_page_size(tt::CBIndex::c_16, tile_bytes)
                             .set_page_size(tt::CBIndex::c_24, tile_bytes));
    std::vector<uint32_t> writer_args;
    TensorAccessorArgs(*c_buf).append_to(writer_args);
    writer_args.insert(writer_args.end(), {out_subblock_h, out_subblock_w, in0_num_subblocks, in1_num_subblocks});
    writer = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "matmul_common/kernels/writer_bmm_tile_layout.cpp", cores,
                          DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                             .noc = NOC::RISCV_1_default,
                                             .compile_args = writer_args});
    CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_common/kernels/bmm_large_block_zm.cpp", cores,
        ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                      .compile_args = {in0_block_w, in0_num_subblocks, in0_block_tiles, out_subblock_h * in0_block_w,
                                       in1_num_subblocks, in1_block_tiles, per_core_N, num_blocks, out_subblock_h,
                                       out_subblock_w, out_subblock_h * out_subblock_w, 1}});
  }

  // The writer's runtime args on `core` (its output block).
  void set_writer_args(tt::tt_metal::CoreCoord core) {
    tt::tt_metal::SetRuntimeArgs(program, writer, core,
                                 {c_buf->address(), Nt, core.y * per_core_M, core.x * per_core_N});
  }

  // Runs the program, closes the device and checks C; the process exit code.
  int run_and_check() {
    using namespace tt::tt_metal;
    CommandQueue& cq = device->command_queue();
    EnqueueProgram(cq, program, false);
    std::vector<bfloat16> c_tiles;
    EnqueueReadBuffer(cq, c_buf, c_tiles, true);
    CloseDevice(device);
    const std::vector<bfloat16> c = untilize_nfaces(c_tiles, M, N);
    std::printf("%s: %ux%u cores, %ux%u tiles per core\n", name, used.x, used.y, per_core_M, per_core_N);
    return check_bf16_matmul(a, b, c, M, N, K, Kt + num_blocks + 1, name) ? 0 : 1;
  }
};
