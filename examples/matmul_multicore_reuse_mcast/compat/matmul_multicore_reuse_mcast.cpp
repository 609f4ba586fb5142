// matmul_multicore_reuse_mcast in TT-Metalium's legacy spellings: C = A B in
// per-core output blocks as matmul_multicore_reuse, on a 3x3 rectangle, but
// only the left column reads in0 from DRAM (multicasting it along its row)
// and only the top row reads in1 (multicasting it down its column), with
// four semaphores. One reader source is compiled once per role.
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
    ReuseMatmul mm("matmul_multicore_reuse_mcast", CreateDevice(0), 384, 384);
    IDevice* device = mm.device;
    Program& program = mm.program;
    const CoreCoord used = mm.used;
    const CoreRange cores = mm.cores;
    const std::shared_ptr<Buffer>&a_buf = mm.a_buf, &b_buf = mm.b_buf;
    constexpr uint32_t per_core_M = ReuseMatmul::per_core_M, per_core_N = ReuseMatmul::per_core_N;
    constexpr uint32_t in0_block_w = ReuseMatmul::in0_block_w, Kt = ReuseMatmul::Kt;
    const uint32_t Nt = mm.Nt;
    constexpr uint32_t invalid = 0;
    const uint32_t in0_sender_sem = CreateSemaphore(program, cores, invalid);
    const uint32_t in0_receiver_sem = CreateSemaphore(program, cores, invalid);
    const uint32_t in1_sender_sem = CreateSemaphore(program, cores, invalid);
    const uint32_t in1_receiver_sem = CreateSemaphore(program, cores, invalid);

    // Reader roles: {in0 sender, in1 sender} on the top-left core, the rest of
    // the left column, the rest of the top row, and everything else.
    struct Role {
      bool in0_sender, in1_sender;
      CoreRange cores;
    };
    const Role roles[] = {{true, true, CoreRange({0, 0}, {0, 0})},
                          {true, false, CoreRange({0, 1}, {0, used.y - 1})},
                          {false, true, CoreRange({1, 0}, {used.x - 1, 0})},
                          {false, false, CoreRange({1, 1}, {used.x - 1, used.y - 1})}};
    for (const Role& role : roles) {
      std::vector<uint32_t> reader_args;
      TensorAccessorArgs(*a_buf).append_to(reader_args);
      TensorAccessorArgs(*b_buf).append_to(reader_args);
      reader_args.insert(reader_args.end(),
                         {uint32_t(role.in0_sender), uint32_t(role.in1_sender), per_core_M, per_core_N, in0_block_w,
                          in0_sender_sem, in0_receiver_sem, in1_sender_sem, in1_receiver_sem});
      KernelHandle reader = CreateKernel(
          program, OVERRIDE_KERNEL_PREFIX "matmul_common/kernels/reader_bmm_tile_layout_mcast.cpp", role.cores,
          DataMovementConfig{
              .processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default, .compile_args = reader_args});
      for (const CoreCoord& core : role.cores) {
        const uint32_t m0 = core.y * per_core_M, n0 = core.x * per_core_N;
        // in0 goes from (0, y) to (1..used.x-1, y); in1 from (x, 0) to (x, 1..used.y-1).
        const CoreCoord row_first = device->worker_core_from_logical_core({1, core.y});
        const CoreCoord row_last = device->worker_core_from_logical_core({used.x - 1, core.y});
        const CoreCoord row_sender = device->worker_core_from_logical_core({0, core.y});
        const CoreCoord col_first = device->worker_core_from_logical_core({core.x, 1});
        const CoreCoord col_last = device->worker_core_from_logical_core({core.x, used.y - 1});
        const CoreCoord col_sender = device->worker_core_from_logical_core({core.x, 0});
        SetRuntimeArgs(program, reader, core,
                       {a_buf->address(), b_buf->address(), Kt,          Nt,         m0,         n0,
                        row_first.x,      row_first.y,      row_last.x,  row_last.y, used.x - 1, row_sender.x,
                        row_sender.y,     col_first.x,      col_first.y, col_last.x, col_last.y, used.y - 1,
                        col_sender.x,     col_sender.y});
        mm.set_writer_args(core);
      }
    }

    return mm.run_and_check();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matmul_multicore_reuse_mcast: %s\n", e.what());
    return 1;
  }
}
