// multicast: the top-left core of the grid reads blocks from DRAM and
// multicasts each one into the same circular-buffer slot on every other core,
// with the reuse+mcast matmul's semaphore handshake (receivers report ready by
// incrementing the sender's semaphore; the sender multicasts the data, then a
// VALID flag into the receivers' semaphore). Every core's writer then copies
// the blocks it holds to its own slice of an output DRAM buffer, and the host
// checks that every slice equals the source.
#include <algorithm>
#include <string>
#include <vector>

#include "example.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_multicast(const RunOptions& o) {
  const uint32_t num_blocks = o.size ? o.size : 8;
  const uint32_t page_bytes = 2048; // one bf16 tile
  const uint32_t pages_per_block = 4;
  const uint32_t block_bytes = pages_per_block * page_bytes;
  const uint32_t cb_blocks = 2; // double-buffered: the sender reads block b+1 while b drains
  const uint32_t invalid = 0;

  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t num_cores = grid.x * grid.y;
  if (num_cores < 2)
    throw ValidationError("multicast needs a sender and at least one receiver, but the " + device->arch_name() +
                          " grid is " + std::to_string(grid.x) + "x" + std::to_string(grid.y) +
                          "; run it on a grid of at least 2 cores (e.g. --grid 2x1)");
  const CoreCoord sender{0, 0};
  const CoreRange rect({0, 0}, {grid.x - 1, grid.y - 1});
  // Everything but the sender: the rest of row 0, then the rows below.
  std::vector<CoreRange> receiver_ranges;
  if (grid.x > 1) receiver_ranges.push_back(CoreRange({1, 0}, {grid.x - 1, 0}));
  if (grid.y > 1) receiver_ranges.push_back(CoreRange({0, 1}, {grid.x - 1, grid.y - 1}));
  const CoreRangeSet receivers(receiver_ranges);

  const uint32_t src_pages = num_blocks * pages_per_block;
  auto src = Buffer::create(device, {uint64_t(src_pages) * page_bytes, page_bytes, BufferType::DRAM});
  auto dst = Buffer::create(device, {uint64_t(num_cores) * src_pages * page_bytes, page_bytes, BufferType::DRAM});
  std::vector<uint32_t> input(src->size() / 4);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = uint32_t(i * 2654435761u) ^ 0x5a5a0000u;
  cq.enqueue_write_buffer(*src, input, false);
  // Poisoned so a core whose writer skips a block is caught.
  cq.enqueue_write_buffer(*dst, std::vector<uint32_t>(dst->size() / 4, 0xdeadbeefu), false);

  Program program;
  program.add_circular_buffer(
      rect, CircularBufferConfig(cb_blocks * block_bytes, {{0, DataFormat::Float16_b}}).set_page_size(0, page_bytes));
  const uint32_t sender_sem = program.add_semaphore(rect, invalid);
  const uint32_t receiver_sem = program.add_semaphore(rect, invalid);

  std::vector<uint32_t> sender_args;
  TensorAccessorArgs(*src).append_to(sender_args);
  sender_args.insert(sender_args.end(), {sender_sem, receiver_sem, pages_per_block});
  const std::vector<uint32_t> receiver_args{sender_sem, receiver_sem, pages_per_block};
  std::vector<uint32_t> writer_args;
  TensorAccessorArgs(*dst).append_to(writer_args);
  writer_args.push_back(pages_per_block);

  KernelHandle send =
      program.add_kernel(kernel_path("multicast", "sender.cpp"), sender,
                         DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, sender_args});
  KernelHandle receive =
      program.add_kernel(kernel_path("multicast", "receiver.cpp"), receivers,
                         DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, receiver_args});
  KernelHandle write =
      program.add_kernel(kernel_path("multicast", "writer.cpp"), rect,
                         DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, writer_args});

  const CoreCoord noc_start = device->worker_core_from_logical_core(rect.start_coord);
  const CoreCoord noc_end = device->worker_core_from_logical_core(rect.end_coord);
  const CoreCoord sender_noc = device->worker_core_from_logical_core(sender);
  program.set_runtime_args(send, sender,
                           {src->address(), num_blocks, noc_start.x, noc_start.y, noc_end.x, noc_end.y, num_cores - 1});
  program.set_runtime_args(receive, receivers, {sender_noc.x, sender_noc.y, num_blocks});
  for (const CoreCoord c : rect.cores()) {
    const uint32_t slice = c.y * grid.x + c.x;
    program.set_runtime_args(write, c, {dst->address(), slice * src_pages, num_blocks});
  }

  const Timing timing = compile_and_run(cq, program);

  std::vector<uint32_t> output;
  cq.enqueue_read_buffer(*dst, output, true);
  uint32_t bad_cores = 0;
  std::string first_bad;
  for (const CoreCoord c : rect.cores()) {
    const size_t slice = c.y * grid.x + c.x;
    const auto begin = output.begin() + ptrdiff_t(slice * input.size());
    if (std::equal(input.begin(), input.end(), begin)) continue;
    if (bad_cores++ == 0) first_bad = c.str();
  }
  RunResult r;
  r.passed = bad_cores == 0;
  r.seconds = timing.run_seconds;
  r.compile_seconds = timing.compile_seconds;
  r.summary = "multicast " + std::to_string(num_blocks) + " blocks of " + std::to_string(block_bytes) +
              " B from core (0,0) to " + std::to_string(num_cores - 1) + " receivers (" + std::to_string(grid.x) + "x" +
              std::to_string(grid.y) + " " + device->arch_name() + "): " +
              (r.passed ? "every core's output matches the source"
                        : std::to_string(bad_cores) + " cores' outputs DIFFER, first " + first_bad);
  return r;
}

} // namespace tessel::examples
