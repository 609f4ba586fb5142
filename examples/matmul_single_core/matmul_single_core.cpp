// matmul_single_core: C = A B on core (0,0), with M = N = K = --size
// (a multiple of 32; default 256) in --format (Float16_b default, Float32,
// Bfp8_b). A and B are tilized and stored one tile per DRAM page. A reader
// (BRISC) pushes, for every output tile and every kt, A(mt, kt) into CB 0 and
// B(kt, nt) into CB 1; the compute kernel accumulates the Kt products in DST
// (mm_init, matmul_tiles) and packs each output tile into CB 16; a writer
// (NCRISC) stores it. Float32 runs with fp32_dest_acc_en.
//
// Check (matmul_common.hpp): PCC >= 0.999 against the float64 product of the
// stored inputs, and every element within its first-order rounding bound:
// 2^-8 (bf16 DST; 2^-24 with fp32_dest_acc_en) times the sum of |partial
// sums| after every 16-deep K step, plus the output pack's rounding (2^-8
// |c| for Float16_b, 2^-6 of the exponent group's max for Bfp8_b), plus
// 2^-17 sum_k |a_ik b_kj|, times 1.02.
#include <string>

#include "example.hpp"
#include "matmul_common/matmul_common.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_matmul_single_core(const RunOptions& o) {
  MatmulRun m = start_matmul(o, "matmul_single_core", 256);
  const CoreCoord core{0, 0};
  Program program;
  const MmKernels k = add_mm_kernels(program, core, m, "matmul_single_core", "reader_single_core_mm.cpp");
  program.set_runtime_args(k.reader, core, {m.a->address(), m.b->address(), m.Mt, m.Kt, m.Nt});
  program.set_runtime_args(k.compute, core, {m.Mt * m.Nt, m.Kt});
  program.set_runtime_args(k.writer, core, {m.c->address(), m.Mt * m.Nt, 0});
  return finish_matmul(m, program, 0, " on core (0,0) (" + grid_text(m.device->grid(), m.device->arch_name()) + ")");
}

} // namespace tessel::examples
