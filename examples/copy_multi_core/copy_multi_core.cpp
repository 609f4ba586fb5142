// copy_multi_core: every core of the grid runs a reader (BRISC) and a writer
// (NCRISC) joined by a circular buffer; together they copy an interleaved
// DRAM buffer to another, each core taking a contiguous run of pages.
#include <numeric>

#include "example.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

Program make_copy_program(CoreCoord grid, const Buffer& src, const Buffer& dst, uint32_t pages_per_core,
                          uint32_t cb_pages) {
  const uint32_t page_bytes = src.page_size();
  const CoreRange all({0, 0}, {grid.x - 1, grid.y - 1});
  Program program;
  program.add_circular_buffer(
      all, CircularBufferConfig(cb_pages * page_bytes, {{0, DataFormat::Float16_b}}).set_page_size(0, page_bytes));
  std::vector<uint32_t> reader_args, writer_args;
  TensorAccessorArgs(src).append_to(reader_args);
  TensorAccessorArgs(dst).append_to(writer_args);
  KernelHandle reader =
      program.add_kernel(kernel_path("copy_multi_core", "reader.cpp"), all,
                         DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, reader_args});
  KernelHandle writer =
      program.add_kernel(kernel_path("copy_multi_core", "writer.cpp"), all,
                         DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, writer_args});
  for (uint32_t y = 0; y < grid.y; ++y)
    for (uint32_t x = 0; x < grid.x; ++x) {
      const uint32_t start = (y * grid.x + x) * pages_per_core;
      program.set_runtime_args(reader, CoreCoord{x, y}, {src.address(), start, pages_per_core});
      program.set_runtime_args(writer, CoreCoord{x, y}, {dst.address(), start, pages_per_core});
    }
  return program;
}

RunResult run_copy_multi_core(const RunOptions& o) {
  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t num_cores = grid.x * grid.y;
  const uint32_t pages_per_core = o.size ? o.size : 64;
  const uint32_t num_pages = num_cores * pages_per_core;
  const uint32_t page_bytes = 2048;
  const uint32_t cb_pages = 4;

  auto src = Buffer::create(device, {uint64_t(num_pages) * page_bytes, page_bytes, BufferType::DRAM});
  auto dst = Buffer::create(device, {uint64_t(num_pages) * page_bytes, page_bytes, BufferType::DRAM});
  std::vector<uint32_t> input(src->size() / 4);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = uint32_t(i * 2654435761u);
  cq.enqueue_write_buffer(*src, input, false);

  Program program = make_copy_program(grid, *src, *dst, pages_per_core, cb_pages);
  const Timing timing = compile_and_run(cq, program);

  std::vector<uint32_t> output;
  cq.enqueue_read_buffer(*dst, output, true);
  RunResult r;
  r.passed = output == input;
  r.seconds = timing.run_seconds;
  r.compile_seconds = timing.compile_seconds;
  r.summary = "copied " + std::to_string(num_pages) + " pages of " + std::to_string(page_bytes) + " B on " +
              std::to_string(num_cores) + " cores (" + std::to_string(grid.x) + "x" + std::to_string(grid.y) + " " +
              device->arch_name() + "), reader -> " + std::to_string(cb_pages) +
              "-page CB -> writer: " + (r.passed ? "output matches input" : "OUTPUT DIFFERS");
  return r;
}

} // namespace tessel::examples
