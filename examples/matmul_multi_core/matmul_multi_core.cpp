// matmul_multi_core: C = A B with M = N = K = --size (a multiple of 32;
// default 640) in --format (Float16_b default, Float32, Bfp8_b). The Mt x Nt
// output tiles are split over the grid with split_work_to_cores: each core
// takes a contiguous row-major run of output tiles. Per core, a reader (BRISC)
// pushes A(mt, kt) and B(kt, nt) for each of its tiles and every kt, the
// compute kernel (matmul_single_core's mm.cpp) accumulates them in DST, and a
// writer (NCRISC) stores each tile at its index. Float32 runs with
// fp32_dest_acc_en.
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

RunResult run_matmul_multi_core(const RunOptions& o) {
  MatmulRun m = start_matmul(o, "matmul_multi_core", 640);
  const CoreCoord grid = m.device->grid();
  const WorkSplit split = split_work_to_cores(grid, m.Mt * m.Nt);
  Program program;
  const MmKernels k =
      add_mm_kernels(program, split.all_cores, m, "matmul_multi_core", "reader_mm_output_tiles_partitioned.cpp");
  // split_work_to_cores walks the grid column-major; give each core the next run.
  uint32_t start = 0;
  for (uint32_t i = 0; i < split.num_cores; ++i) {
    const CoreCoord core{i / grid.y, i % grid.y};
    const uint32_t count = split.group_1.contains(core) ? split.units_per_core_group_1 : split.units_per_core_group_2;
    program.set_runtime_args(k.reader, core, {m.a->address(), m.b->address(), m.Mt, m.Kt, m.Nt, start, count});
    program.set_runtime_args(k.compute, core, {count, m.Kt});
    program.set_runtime_args(k.writer, core, {m.c->address(), count, start});
    start += count;
  }
  RunResult r =
      finish_matmul(m, program, 0,
                    ", " + std::to_string(m.Mt * m.Nt) + " output tiles over " + std::to_string(split.num_cores) +
                        " cores (" + grid_text(grid, m.device->arch_name()) + ")");
  r.passed = r.passed && start == m.Mt * m.Nt;
  return r;
}

} // namespace tessel::examples
