// matmul_multicore_reuse_mcast: C = A B with M = N = K = --size (a multiple
// of 32; default 1024) in --format (Float16_b default, Float32, Bfp8_b), with
// data reuse and multicast. The blocking and compute are
// matmul_multicore_reuse's, but DRAM is read only at the edges of the core
// rectangle: the left column reads the in0 blocks of its row of output
// blocks and multicasts them along the row; the top row reads the in1 blocks
// of its column and multicasts them down the column; the top-left core does
// both. One reader source, matmul_common/kernels/reader_bmm_tile_layout_mcast.cpp,
// is compiled for each of the four roles; its header gives the handshake,
// which uses four semaphores (in0 sender / receiver, in1 sender / receiver),
// all starting INVALID. Readers run on BRISC (NoC 0), writers on NCRISC (NoC 1).
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

namespace {
// The cores taking one reader role, as a set (empty when the role has none).
CoreRangeSet role_cores(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
  if (x0 > x1 || y0 > y1) return {};
  return CoreRangeSet(CoreRange({x0, y0}, {x1, y1}));
}
} // namespace

Program make_matmul_mcast_program(CoreCoord grid, const Buffer& a, const Buffer& b, const Buffer& c, uint32_t Mt,
                                  uint32_t Nt, uint32_t Kt, DataFormat format, MathFidelity fidelity,
                                  const MatmulBlocking& blocking) {
  const MatmulBlocking bl =
      resolve_matmul_blocking("make_matmul_mcast_program", grid, a, b, c, Mt, Nt, Kt, format, blocking);
  const CoreCoord used = matmul_cores(bl, Mt, Nt);
  const CoreRange all({0, 0}, {used.x - 1, used.y - 1});
  const Device& device = a.device();

  Program program;
  const MatmulBlockKernels k = add_matmul_block_kernels(program, all, c, Kt, format, fidelity, bl);
  constexpr uint32_t kInvalid = 0;
  const uint32_t in0_sender_sem = program.add_semaphore(all, kInvalid);
  const uint32_t in0_receiver_sem = program.add_semaphore(all, kInvalid);
  const uint32_t in1_sender_sem = program.add_semaphore(all, kInvalid);
  const uint32_t in1_receiver_sem = program.add_semaphore(all, kInvalid);

  // Role cores: {in0 sender, in1 sender} -> where.
  struct Role {
    bool in0_sender, in1_sender;
    CoreRangeSet cores;
  };
  const Role roles[] = {
      {true, true, role_cores(0, 0, 0, 0)},
      {true, false, role_cores(0, 1, 0, used.y - 1)},
      {false, true, role_cores(1, 0, used.x - 1, 0)},
      {false, false, role_cores(1, 1, used.x - 1, used.y - 1)},
  };
  std::vector<std::pair<const Role*, KernelHandle>> readers;
  for (const Role& role : roles) {
    if (role.cores.ranges().empty()) continue;
    std::vector<uint32_t> cta;
    TensorAccessorArgs(a).append_to(cta);
    TensorAccessorArgs(b).append_to(cta);
    cta.insert(cta.end(), {uint32_t(role.in0_sender), uint32_t(role.in1_sender), bl.per_core_M, bl.per_core_N,
                           bl.in0_block_w, in0_sender_sem, in0_receiver_sem, in1_sender_sem, in1_receiver_sem});
    readers.emplace_back(
        &role, program.add_kernel(kernel_path("matmul_common", "reader_bmm_tile_layout_mcast.cpp"), role.cores,
                                  DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, cta}));
  }

  for (const auto& [role, reader] : readers)
    for (const CoreCoord core : role->cores.cores()) {
      const uint32_t m0 = core.y * bl.per_core_M, n0 = core.x * bl.per_core_N;
      std::vector<uint32_t> args{a.address(), b.address(), Kt, Nt, m0, n0};
      // in0: the row's receivers are (1..used.x-1, y); the sender is (0, y).
      const CoreCoord row_first = device.worker_core_from_logical_core({used.x > 1 ? 1u : 0u, core.y});
      const CoreCoord row_last = device.worker_core_from_logical_core({used.x - 1, core.y});
      const CoreCoord row_sender = device.worker_core_from_logical_core({0, core.y});
      args.insert(args.end(),
                  {row_first.x, row_first.y, row_last.x, row_last.y, used.x - 1, row_sender.x, row_sender.y});
      // in1: the column's receivers are (x, 1..used.y-1); the sender is (x, 0).
      const CoreCoord col_first = device.worker_core_from_logical_core({core.x, used.y > 1 ? 1u : 0u});
      const CoreCoord col_last = device.worker_core_from_logical_core({core.x, used.y - 1});
      const CoreCoord col_sender = device.worker_core_from_logical_core({core.x, 0});
      args.insert(args.end(),
                  {col_first.x, col_first.y, col_last.x, col_last.y, used.y - 1, col_sender.x, col_sender.y});
      program.set_runtime_args(reader, core, args);
      program.set_runtime_args(k.writer, core, {c.address(), Nt, m0, n0});
    }
  return program;
}

RunResult run_matmul_multicore_reuse_mcast(const RunOptions& o) {
  return run_blocked_matmul(o, "matmul_multicore_reuse_mcast", 1024, make_matmul_mcast_program,
                            "in0 multicast along rows and in1 down columns");
}

} // namespace tessel::examples
