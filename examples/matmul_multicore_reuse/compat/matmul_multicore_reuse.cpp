// matmul_multicore_reuse in TT-Metalium's legacy spellings: C = A B with each
// core of a 3x2 rectangle computing a per_core_M x per_core_N block of output
// tiles, walking K in0_block_w tiles at a time, in DST-sized sub-blocks,
// partials spilled to CB 24 (which shares its L1 with the output CB 16).
// Check: PCC >= 0.999 against a float64 reference, and every value within
// (Kt + K blocks + 1) bfloat16 roundings of sum_k |a_ik b_kj|.
#include <cstdio>
#include <exception>
#include <vector>

#include "matmul_common/compat/reuse_matmul.hpp"

using namespace tt::tt_metal;
using namespace tt::constants;

int main() {
  try {
    ReuseMatmul mm("matmul_multicore_reuse", CreateDevice(0), 256, 384);
    std::vector<uint32_t> reader_args;
    TensorAccessorArgs(*mm.a_buf).append_to(reader_args);
    TensorAccessorArgs(*mm.b_buf).append_to(reader_args);
    reader_args.insert(reader_args.end(), {mm.per_core_M, mm.per_core_N, mm.in0_block_w});
    KernelHandle reader = CreateKernel(
        mm.program, OVERRIDE_KERNEL_PREFIX "matmul_common/kernels/reader_bmm_tile_layout.cpp", mm.cores,
        DataMovementConfig{
            .processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default, .compile_args = reader_args});
    for (const CoreCoord& core : mm.cores) {
      SetRuntimeArgs(
          mm.program, reader, core,
          {mm.a_buf->address(), mm.b_buf->address(), mm.Kt, mm.Nt, core.y * mm.per_core_M, core.x * mm.per_core_N});
      mm.set_writer_args(core);
    }
    return mm.run_and_check();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matmul_multicore_reuse: %s\n", e.what());
    return 1;
  }
}
