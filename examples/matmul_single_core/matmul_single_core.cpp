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
  const DataFormat fmt = example_float_format(o, "matmul_single_core");
  const uint32_t size = matmul_size(o, 256, "matmul_single_core");
  const uint32_t Mt = size / kTileHeight, Nt = size / kTileWidth, Kt = size / kTileWidth;
  const bool fp32_dest = fmt == DataFormat::Float32;

  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const MatmulInputs in = make_matmul_inputs(size, size, size, fmt);
  const uint32_t tile_bytes = tile_size(fmt);
  auto a_buf = Buffer::create(device, {in.a_tiles.size(), tile_bytes, BufferType::DRAM});
  auto b_buf = Buffer::create(device, {in.b_tiles.size(), tile_bytes, BufferType::DRAM});
  auto c_buf = Buffer::create(device, {uint64_t(Mt) * Nt * tile_bytes, tile_bytes, BufferType::DRAM});
  cq.enqueue_write_buffer(*a_buf, in.a_tiles, false);
  cq.enqueue_write_buffer(*b_buf, in.b_tiles, false);

  const CoreCoord core{0, 0};
  Program program;
  for (uint8_t cb : {0, 16, 1})
    program.add_circular_buffer(core, CircularBufferConfig(2 * tile_bytes, {{cb, fmt}}).set_page_size(cb, tile_bytes));
  std::vector<uint32_t> reader_cta, writer_cta;
  TensorAccessorArgs(*a_buf).append_to(reader_cta);
  TensorAccessorArgs(*b_buf).append_to(reader_cta);
  TensorAccessorArgs(*c_buf).append_to(writer_cta);
  KernelHandle reader =
      program.add_kernel(kernel_path("matmul_single_core", "reader_single_core_mm.cpp"), core,
                         DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, reader_cta});
  KernelHandle writer =
      program.add_kernel(kernel_path("matmul_single_core", "writer_unary_interleaved_start_id.cpp"), core,
                         DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, writer_cta});
  ComputeConfig compute_config;
  compute_config.math_fidelity = MathFidelity::HiFi4;
  compute_config.fp32_dest_acc_en = fp32_dest;
  KernelHandle compute = program.add_kernel(kernel_path("matmul_single_core", "mm.cpp"), core, compute_config);
  program.set_runtime_args(reader, core, {a_buf->address(), b_buf->address(), Mt, Kt, Nt});
  program.set_runtime_args(compute, core, {Mt * Nt, Kt});
  program.set_runtime_args(writer, core, {c_buf->address(), Mt * Nt, 0});

  const Timing timing = compile_and_run(cq, program);
  std::vector<uint8_t> c_tiles(c_buf->size());
  cq.enqueue_read_buffer(*c_buf, c_tiles, true);
  const MatmulCheck check = check_matmul(in, c_tiles, fp32_dest, 0);

  RunResult r;
  r.passed = check.passed;
  r.seconds = timing.run_seconds;
  r.compile_seconds = timing.compile_seconds;
  r.summary = "C = A B, M = N = K = " + std::to_string(size) + " " + to_string(fmt) + " on core (0,0) (" +
              grid_text(device->grid(), device->arch_name()) + "): " + check.text;
  return r;
}

} // namespace tessel::examples
