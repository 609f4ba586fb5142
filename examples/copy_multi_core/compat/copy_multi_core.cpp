// copy_multi_core in TT-Metalium's legacy spellings (CreateDevice, CreateBuffer,
// EnqueueProgram): every core of the grid copies its run of pages from one
// interleaved DRAM buffer to another through a CB, reader on BRISC and writer
// on NCRISC. An event recorded after the program marks its completion.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include <tt-metalium/event.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

using namespace tt::tt_metal;

int main() {
  try {
    IDevice* device = CreateDevice(0);
    CommandQueue& cq = device->command_queue();
    const CoreCoord grid = device->compute_with_storage_grid_size();
    const uint32_t num_cores = grid.x * grid.y;
    constexpr uint32_t pages_per_core = 4;
    constexpr uint32_t page_bytes = 2048;
    constexpr uint32_t cb_pages = 2;
    const uint32_t num_pages = num_cores * pages_per_core;

    InterleavedBufferConfig dram_config{
        .device = device, .size = num_pages * page_bytes, .page_size = page_bytes, .buffer_type = BufferType::DRAM};
    std::shared_ptr<Buffer> src = CreateBuffer(dram_config);
    std::shared_ptr<Buffer> dst = CreateBuffer(dram_config);
    std::vector<uint32_t> input(src->size() / sizeof(uint32_t));
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = uint32_t(i * 2654435761u);
    EnqueueWriteBuffer(cq, src, input, false);

    Program program = CreateProgram();
    const CoreRange all_cores({0, 0}, {grid.x - 1, grid.y - 1});
    CreateCircularBuffer(program, all_cores,
                         CircularBufferConfig(cb_pages * page_bytes, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}})
                             .set_page_size(tt::CBIndex::c_0, page_bytes));
    std::vector<uint32_t> reader_args, writer_args;
    TensorAccessorArgs(*src).append_to(reader_args);
    TensorAccessorArgs(*dst).append_to(writer_args);
    KernelHandle reader = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "copy_multi_core/kernels/reader.cpp", all_cores,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                          .noc = NOC::RISCV_0_default,
                                                          .compile_args = reader_args});
    KernelHandle writer = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "copy_multi_core/kernels/writer.cpp", all_cores,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                          .noc = NOC::RISCV_1_default,
                                                          .compile_args = writer_args});
    for (const CoreCoord& core : all_cores) {
      const uint32_t start = (core.y * grid.x + core.x) * pages_per_core;
      SetRuntimeArgs(program, reader, core, {src->address(), start, pages_per_core});
      SetRuntimeArgs(program, writer, core, {dst->address(), start, pages_per_core});
    }

    EnqueueProgram(cq, program, false);
    auto done = std::make_shared<Event>();
    EnqueueRecordEvent(cq, done);
    EventSynchronize(done);
    const bool completed = EventQuery(done);

    std::vector<uint32_t> output;
    EnqueueReadBuffer(cq, dst, output, true);
    Finish(cq);
    CloseDevice(device);

    if (!completed || output != input) {
      std::printf("copy_multi_core: FAILED: %s\n", completed ? "output differs from input" : "event not completed");
      return 1;
    }
    std::printf("copy_multi_core: copied %u pages on %u cores: output matches input\n", num_pages, num_cores);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "copy_multi_core: %s\n", e.what());
    return 1;
  }
}
