// matmul_multicore_reuse: C = A B with M = N = K = --size (a multiple of 32;
// default 512) in --format (Float16_b default, Float32, Bfp8_b), with data
// reuse. Each core of a rectangle at logical (0,0) computes a per_core_M x
// per_core_N block of output tiles (choose_matmul_blocking in example.hpp):
// its reader (BRISC) brings in0 blocks (per_core_M x in0_block_w tiles of A)
// and in1 blocks (in0_block_w x per_core_N tiles of B) from DRAM, so every
// A tile it reads serves per_core_N output tiles and every B tile per_core_M.
// The compute kernel (matmul_common/kernels/bmm_large_block_zm.cpp) works in
// DST-sized sub-blocks with matmul_block, keeping partials in CB 24, which
// shares its L1 with the output CB 16; a writer (NCRISC) stores the block.
//
// Check (matmul_common.hpp): PCC >= 0.999 against the float64 product of the
// stored inputs, and every element within its first-order rounding bound:
// 2^-8 (bf16 DST; 2^-24 with Float32's fp32_dest_acc_en) times the sum of
// |partial sums| after every 16-deep K step, plus the rounding of every
// partial spilled to CB 24 and of the output pack (2^-8 |value| for
// Float16_b, 2^-6 of the exponent group's max for Bfp8_b), plus
// 2^-17 sum_k |a_ik b_kj|, times 1.02.
#include "example.hpp"
#include "matmul_common/matmul_common.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

Program make_matmul_reuse_program(CoreCoord grid, const Buffer& a, const Buffer& b, const Buffer& c, uint32_t Mt,
                                  uint32_t Nt, uint32_t Kt, DataFormat format, MathFidelity fidelity,
                                  const MatmulBlocking& blocking) {
  const MatmulBlocking bl =
      resolve_matmul_blocking("make_matmul_reuse_program", grid, a, b, c, Mt, Nt, Kt, format, blocking);
  const CoreCoord used = matmul_cores(bl, Mt, Nt);
  const CoreRange cores({0, 0}, {used.x - 1, used.y - 1});

  Program program;
  const MatmulBlockKernels k = add_matmul_block_kernels(program, cores, c, Kt, format, fidelity, bl);
  std::vector<uint32_t> reader_cta;
  TensorAccessorArgs(a).append_to(reader_cta);
  TensorAccessorArgs(b).append_to(reader_cta);
  reader_cta.insert(reader_cta.end(), {bl.per_core_M, bl.per_core_N, bl.in0_block_w});
  KernelHandle reader =
      program.add_kernel(kernel_path("matmul_common", "reader_bmm_tile_layout.cpp"), cores,
                         DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, reader_cta});
  for (const CoreCoord core : cores.cores()) {
    const uint32_t m0 = core.y * bl.per_core_M, n0 = core.x * bl.per_core_N;
    program.set_runtime_args(reader, core, {a.address(), b.address(), Kt, Nt, m0, n0});
    program.set_runtime_args(k.writer, core, {c.address(), Nt, m0, n0});
  }
  return program;
}

RunResult run_matmul_multicore_reuse(const RunOptions& o) {
  return run_blocked_matmul(o, "matmul_multicore_reuse", 512, make_matmul_reuse_program,
                            "every core reading its own blocks");
}

} // namespace tessel::examples
