// matmul_multicore_reuse in TT-Metalium's legacy spellings: C = A B with each
// core of a 3x2 rectangle computing a per_core_M x per_core_N block of output
// tiles, walking K in0_block_w tiles at a time, in DST-sized sub-blocks,
// partials spilled to CB 24 (which shares its L1 with the output CB 16).
// Check: PCC >= 0.999 against a float64 reference, and every value within
// (Kt + K blocks + 1) bfloat16 roundings of sum_k |a_ik b_kj|.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include "matmul_common/compat/matmul_check.hpp"

using namespace tt::tt_metal;
using namespace tt::constants;

int main() {
  try {
    IDevice* device = CreateDevice(0);
    CommandQueue& cq = device->command_queue();
    constexpr uint32_t M = 256, N = 384, K = 256;
    constexpr uint32_t Mt = M / TILE_HEIGHT, Nt = N / TILE_WIDTH, Kt = K / TILE_WIDTH;
    constexpr uint32_t per_core_M = 4, per_core_N = 4, in0_block_w = 2, out_subblock_h = 2, out_subblock_w = 4;
    constexpr uint32_t num_blocks = Kt / in0_block_w;
    constexpr uint32_t in0_num_subblocks = per_core_M / out_subblock_h, in1_num_subblocks = per_core_N / out_subblock_w;
    constexpr uint32_t in0_block_tiles = per_core_M * in0_block_w, in1_block_tiles = in0_block_w * per_core_N;
    constexpr uint32_t out_block_tiles = per_core_M * per_core_N;
    const CoreCoord used = {Nt / per_core_N, Mt / per_core_M};
    const CoreCoord grid = device->compute_with_storage_grid_size();
    if (used.x > grid.x || used.y > grid.y) {
      std::printf("matmul_multicore_reuse: needs a %ux%u grid\n", used.x, used.y);
      return 1;
    }
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * TILE_HW;
    const tt::DataFormat format = tt::DataFormat::Float16_b;

    std::mt19937 rng(9);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<bfloat16> a(M * K), b(K * N);
    for (bfloat16& v : a)
      v = bfloat16(dist(rng));
    for (bfloat16& v : b)
      v = bfloat16(dist(rng));
    auto dram_buffer = [&](uint32_t tiles) {
      return CreateBuffer(InterleavedBufferConfig{
          .device = device, .size = tiles * tile_bytes, .page_size = tile_bytes, .buffer_type = BufferType::DRAM});
    };
    std::shared_ptr<Buffer> a_buf = dram_buffer(Mt * Kt), b_buf = dram_buffer(Kt * Nt), c_buf = dram_buffer(Mt * Nt);
    EnqueueWriteBuffer(cq, a_buf, tilize_nfaces(a, M, K), false);
    EnqueueWriteBuffer(cq, b_buf, tilize_nfaces(b, K, N), false);

    Program program = CreateProgram();
    const CoreRange cores({0, 0}, {used.x - 1, used.y - 1});
    CreateCircularBuffer(program, cores,
                         CircularBufferConfig(2 * in0_block_tiles * tile_bytes, {{tt::CBIndex::c_0, format}})
                             .set_page_size(tt::CBIndex::c_0, tile_bytes));
    CreateCircularBuffer(program, cores,
                         CircularBufferConfig(2 * in1_block_tiles * tile_bytes, {{tt::CBIndex::c_1, format}})
                             .set_page_size(tt::CBIndex::c_1, tile_bytes));
    CreateCircularBuffer(
        program, cores,
        CircularBufferConfig(out_block_tiles * tile_bytes, {{tt::CBIndex::c_16, format}, {tt::CBIndex::c_24, format}})
            .set_page_size(tt::CBIndex::c_16, tile_bytes)
            .set_page_size(tt::CBIndex::c_24, tile_bytes));

    std::vector<uint32_t> reader_args, writer_args;
    TensorAccessorArgs(*a_buf).append_to(reader_args);
    TensorAccessorArgs(*b_buf).append_to(reader_args);
    reader_args.insert(reader_args.end(), {per_core_M, per_core_N, in0_block_w});
    TensorAccessorArgs(*c_buf).append_to(writer_args);
    writer_args.insert(writer_args.end(), {out_subblock_h, out_subblock_w, in0_num_subblocks, in1_num_subblocks});
    KernelHandle reader = CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_common/kernels/reader_bmm_tile_layout.cpp", cores,
        DataMovementConfig{
            .processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default, .compile_args = reader_args});
    KernelHandle writer = CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_common/kernels/writer_bmm_tile_layout.cpp", cores,
        DataMovementConfig{
            .processor = DataMovementProcessor::RISCV_1, .noc = NOC::RISCV_1_default, .compile_args = writer_args});
    CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_common/kernels/bmm_large_block_zm.cpp", cores,
        ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                      .compile_args = {in0_block_w, in0_num_subblocks, in0_block_tiles, out_subblock_h * in0_block_w,
                                       in1_num_subblocks, in1_block_tiles, per_core_N, num_blocks, out_subblock_h,
                                       out_subblock_w, out_subblock_h * out_subblock_w, 1}});
    for (const CoreCoord& core : cores) {
      const uint32_t m0 = core.y * per_core_M, n0 = core.x * per_core_N;
      SetRuntimeArgs(program, reader, core, {a_buf->address(), b_buf->address(), Kt, Nt, m0, n0});
      SetRuntimeArgs(program, writer, core, {c_buf->address(), Nt, m0, n0});
    }

    EnqueueProgram(cq, program, false);
    std::vector<bfloat16> c_tiles;
    EnqueueReadBuffer(cq, c_buf, c_tiles, true);
    CloseDevice(device);
    const std::vector<bfloat16> c = untilize_nfaces(c_tiles, M, N);

    std::printf("matmul_multicore_reuse: %ux%u cores, %ux%u tiles per core\n", used.x, used.y, per_core_M, per_core_N);
    return check_bf16_matmul(a, b, c, M, N, K, Kt + num_blocks + 1, "matmul_multicore_reuse") ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matmul_multicore_reuse: %s\n", e.what());
    return 1;
  }
}
