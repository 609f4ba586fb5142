#include <chrono>
#include <cstdlib>

#include "example.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/tensor_accessor_args.hpp"

namespace tessel::examples {

RunResult run_loopback(const RunOptions&);
RunResult run_copy_multi_core(const RunOptions&);
RunResult run_semaphore_pingpong(const RunOptions&);
RunResult run_multicast(const RunOptions&);
RunResult run_eltwise_binary(const RunOptions&);
RunResult run_matmul_single_core(const RunOptions&);
RunResult run_matmul_multi_core(const RunOptions&);
RunResult run_matmul_multicore_reuse(const RunOptions&);
RunResult run_matmul_multicore_reuse_mcast(const RunOptions&);
RunResult run_reduce(const RunOptions&);
RunResult run_eltwise_sfpu(const RunOptions&);
RunResult run_sfpu_chain(const RunOptions&);
RunResult run_operation_collective(const RunOptions&);
RunResult run_ccl_all_gather(const RunOptions&);
RunResult run_ccl_reduce_scatter(const RunOptions&);
RunResult run_ccl_all_reduce(const RunOptions&);
RunResult run_dispatch_map(const RunOptions&);
RunResult run_dispatch_broadcast(const RunOptions&);
RunResult run_dispatch_measure(const RunOptions&);
RunResult run_dispatch_graph(const RunOptions&);
RunResult run_dispatch_stream(const RunOptions&);
RunResult run_dispatch_thread(const RunOptions&);

namespace {
const Example kExamples[] = {
    {"loopback", "DRAM -> L1 -> DRAM copy on one core", run_loopback},
    {"copy_multi_core", "reader -> CB -> writer on every core, interleaved DRAM in and out", run_copy_multi_core},
    {"semaphore_pingpong", "two cores pass a token back and forth with semaphores and NoC writes",
     run_semaphore_pingpong},
    {"multicast", "one core multicasts DRAM blocks to every other core with the matmul semaphore handshake",
     run_multicast},
    {"eltwise_binary", "C = A + B, A - B, A * B (--format): reader -> compute -> writer on every core",
     run_eltwise_binary},
    {"eltwise_sfpu", "y = op(x) for each SFPU unary op (--op exp, ...) on every core", run_eltwise_sfpu},
    {"sfpu_chain", "z = relu(sigmoid(exp(x)) * tanh(y)): an SFPU chain with a binary SFPU op in one DST acquire",
     run_sfpu_chain},
    {"matmul_single_core", "C = A B on one core: matmul_tiles accumulating over K in DST", run_matmul_single_core},
    {"matmul_multi_core", "C = A B with the output tiles split over the grid (split_work_to_cores)",
     run_matmul_multi_core},
    {"matmul_multicore_reuse", "C = A B in per-core output blocks, matmul_block sub-blocks, partials in CB 24",
     run_matmul_multicore_reuse},
    {"matmul_multicore_reuse_mcast", "C = A B in blocks, in0 multicast along rows and in1 down columns",
     run_matmul_multicore_reuse_mcast},
    {"reduce", "sum / avg / max over rows, columns or everything with reduce_tile (--op sum_row, ...)", run_reduce},
    {"operation_collective",
     "an Operation with a runtime resource factory: two cores chain tile copies through a caller semaphore, run twice",
     run_operation_collective},
    {"ccl_all_gather",
     "every chip of a mesh gathers every chip's input over the fabric (--mesh RxC, --fabric 1d|1d_ring|2d)",
     run_ccl_all_gather, true},
    {"ccl_reduce_scatter",
     "each chip of a mesh gets one slice of the sum of every chip's input, over the fabric (--mesh, --fabric)",
     run_ccl_reduce_scatter, true},
    {"ccl_all_reduce", "every chip of a mesh gets the sum of every chip's input, over the fabric (--mesh, --fabric)",
     run_ccl_all_reduce, true},
    {"dispatch_map", "persistent dispatch: 15 jobs of 8 cores, each core doubling a bf16 tile through one handler",
     run_dispatch_map},
    {"dispatch_broadcast",
     "persistent dispatch: one core multicasts 16 blocks of 4 pages to the grid through the broadcast protocol, "
     "--size jobs",
     run_dispatch_broadcast},
    {"dispatch_measure",
     "persistent dispatch: host-fed NOP cost (--size commands) and exclusive NOP periods on 1, 12 and 120 cores",
     run_dispatch_measure},
    {"dispatch_graph",
     "persistent dispatch: the spec's 06_graph, a kept graph (step, left, right, norm, a cpu loop while error < "
     "limit) started, restarted with other bindings, released",
     run_dispatch_graph},
    {"dispatch_stream",
     "persistent dispatch: a stream on the card enqueues 24 jobs of 8 cores and reports its progress with EVENTs",
     run_dispatch_stream},
    {"dispatch_thread",
     "persistent dispatch: an X280 thread sums a region and sends its own jobs while the grid runs the host's",
     run_dispatch_thread},
};
} // namespace

std::span<const Example> all_examples() { return kExamples; }

const Example* find_example(const std::string& name) {
  for (const Example& e : kExamples)
    if (name == e.name) return &e;
  return nullptr;
}

PipelineKernels add_pipeline_kernels(Program& program, CoreCoord grid, const std::string& example,
                                     const std::string& reader_example, const std::string& writer_example,
                                     std::initializer_list<uint8_t> cbs, DataFormat format,
                                     std::initializer_list<const Buffer*> inputs, const Buffer& output,
                                     const ComputeConfig& compute) {
  const CoreRange all({0, 0}, {grid.x - 1, grid.y - 1});
  const uint32_t tile_bytes = tile_size(format);
  for (uint8_t cb : cbs)
    program.add_circular_buffer(all,
                                CircularBufferConfig(2 * tile_bytes, {{cb, format}}).set_page_size(cb, tile_bytes));
  std::vector<uint32_t> reader_cta, writer_cta;
  for (const Buffer* in : inputs)
    TensorAccessorArgs(*in).append_to(reader_cta);
  TensorAccessorArgs(output).append_to(writer_cta);
  PipelineKernels k;
  k.reader = program.add_kernel(kernel_path(reader_example, "reader.cpp"), all,
                                DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, reader_cta});
  k.writer = program.add_kernel(kernel_path(writer_example, "writer.cpp"), all,
                                DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, writer_cta});
  k.compute = program.add_kernel(kernel_path(example, "compute.cpp"), all, compute);
  return k;
}

void split_tiles(CoreCoord grid, uint32_t num_tiles, const std::function<void(CoreCoord, uint32_t, uint32_t)>& fn) {
  const uint32_t num_cores = grid.x * grid.y;
  uint32_t start = 0;
  for (uint32_t i = 0; i < num_cores; ++i) {
    const uint32_t count = num_tiles / num_cores + (i < num_tiles % num_cores ? 1 : 0);
    fn(CoreCoord{i % grid.x, i / grid.x}, start, count);
    start += count;
  }
}

Timing compile_and_run(CommandQueue& cq, Program& program) {
  using Clock = std::chrono::steady_clock;
  Timing t;
  auto t0 = Clock::now();
  cq.compile_program(program);
  auto t1 = Clock::now();
  cq.enqueue_program(program, false);
  cq.finish();
  auto t2 = Clock::now();
  t.compile_seconds = std::chrono::duration<double>(t1 - t0).count();
  t.run_seconds = std::chrono::duration<double>(t2 - t1).count();
  return t;
}

std::string kernel_path(const std::string& example, const std::string& file) {
  const char* env = std::getenv("TESSEL_EXAMPLES_DIR");
  std::string dir = env && *env ? env : TESSEL_EXAMPLES_DIR;
  return dir + "/" + example + "/kernels/" + file;
}

} // namespace tessel::examples
