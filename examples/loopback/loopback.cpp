// loopback: one BRISC kernel on core (0,0) copies a DRAM buffer to another
// through a one-page L1 scratch buffer, page by page.
#include <cstring>
#include <numeric>

#include "example.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_loopback(const RunOptions& o) {
  const uint32_t num_pages = o.size ? o.size : 50;
  const uint32_t page_bytes = 2048; // one bf16 tile
  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();

  auto src = Buffer::create(device, {uint64_t(num_pages) * page_bytes, page_bytes, BufferType::DRAM});
  auto dst = Buffer::create(device, {uint64_t(num_pages) * page_bytes, page_bytes, BufferType::DRAM});
  auto scratch = Buffer::create(device, {page_bytes, page_bytes, BufferType::L1});

  std::vector<uint32_t> input(src->size() / 4);
  std::iota(input.begin(), input.end(), 0x1000u);
  cq.enqueue_write_buffer(*src, input, false);

  Program program;
  std::vector<uint32_t> compile_args;
  TensorAccessorArgs(*src).append_to(compile_args);
  TensorAccessorArgs(*dst).append_to(compile_args);
  KernelHandle k =
      program.add_kernel(kernel_path("loopback", "loopback_dram_copy.cpp"), CoreCoord{0, 0},
                         DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, compile_args});
  program.set_runtime_args(k, CoreCoord{0, 0}, {scratch->address(), src->address(), dst->address(), num_pages});

  const Timing timing = compile_and_run(cq, program);

  std::vector<uint32_t> output;
  cq.enqueue_read_buffer(*dst, output, true);
  RunResult r;
  r.passed = output == input;
  r.seconds = timing.run_seconds;
  r.compile_seconds = timing.compile_seconds;
  r.summary = "copied " + std::to_string(num_pages) + " pages of " + std::to_string(page_bytes) +
              " B DRAM -> L1 -> DRAM on core (0,0): " + (r.passed ? "output matches input" : "OUTPUT DIFFERS");
  return r;
}

} // namespace tessel::examples
