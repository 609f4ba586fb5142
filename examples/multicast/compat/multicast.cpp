// multicast in TT-Metalium's legacy spellings, launched with
// detail::LaunchProgram: core (0,0) reads blocks from DRAM and multicasts each
// into the same CB slot on every other core (semaphore handshake as in the
// reuse+mcast matmul); every core's writer copies what it holds to its own
// slice of the output, which must equal the source.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tt_metal.hpp>

using namespace tt::tt_metal;

int main() {
  try {
    IDevice* device = CreateDevice(0);
    const CoreCoord grid = device->compute_with_storage_grid_size();
    const uint32_t num_cores = grid.x * grid.y;
    if (num_cores < 2) {
      std::printf("multicast: needs at least two cores\n");
      return 1;
    }
    constexpr uint32_t num_blocks = 3, page_bytes = 2048, pages_per_block = 4, cb_blocks = 2;
    constexpr uint32_t block_bytes = pages_per_block * page_bytes;
    constexpr uint32_t src_pages = num_blocks * pages_per_block;
    constexpr uint32_t invalid = 0;
    const CoreCoord sender = {0, 0};
    const CoreRange rect({0, 0}, {grid.x - 1, grid.y - 1});
    std::vector<CoreRange> receiver_ranges;
    if (grid.x > 1) receiver_ranges.push_back(CoreRange({1, 0}, {grid.x - 1, 0}));
    if (grid.y > 1) receiver_ranges.push_back(CoreRange({0, 1}, {grid.x - 1, grid.y - 1}));
    const CoreRangeSet receivers(receiver_ranges);

    std::shared_ptr<Buffer> src = CreateBuffer(InterleavedBufferConfig{
        .device = device, .size = src_pages * page_bytes, .page_size = page_bytes, .buffer_type = BufferType::DRAM});
    std::shared_ptr<Buffer> dst =
        CreateBuffer(InterleavedBufferConfig{.device = device,
                                             .size = uint64_t(num_cores) * src_pages * page_bytes,
                                             .page_size = page_bytes,
                                             .buffer_type = BufferType::DRAM});
    std::vector<uint32_t> input(src->size() / 4);
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = uint32_t(i * 2654435761u) ^ 0x5a5a0000u;
    detail::WriteToBuffer(src, input);
    detail::WriteToBuffer(dst, std::vector<uint32_t>(dst->size() / 4, 0xdeadbeefu));

    Program program = CreateProgram();
    CreateCircularBuffer(program, rect,
                         CircularBufferConfig(cb_blocks * block_bytes, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}})
                             .set_page_size(tt::CBIndex::c_0, page_bytes));
    const uint32_t sender_sem = CreateSemaphore(program, rect, invalid);
    const uint32_t receiver_sem = CreateSemaphore(program, rect, invalid);

    std::vector<uint32_t> sender_args;
    TensorAccessorArgs(*src).append_to(sender_args);
    sender_args.insert(sender_args.end(), {sender_sem, receiver_sem, pages_per_block});
    std::vector<uint32_t> writer_args;
    TensorAccessorArgs(*dst).append_to(writer_args);
    writer_args.push_back(pages_per_block);
    KernelHandle send =
        CreateKernel(program, OVERRIDE_KERNEL_PREFIX "multicast/kernels/sender.cpp", sender,
                     DataMovementConfig{.processor = DataMovementProcessor::RISCV_0, .compile_args = sender_args});
    KernelHandle receive =
        CreateKernel(program, OVERRIDE_KERNEL_PREFIX "multicast/kernels/receiver.cpp", receivers,
                     DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                        .compile_args = {sender_sem, receiver_sem, pages_per_block}});
    KernelHandle write = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "multicast/kernels/writer.cpp", rect,
                                      DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                         .noc = NOC::RISCV_1_default,
                                                         .compile_args = writer_args});

    const CoreCoord noc_start = device->worker_core_from_logical_core(rect.start_coord);
    const CoreCoord noc_end = device->worker_core_from_logical_core(rect.end_coord);
    const CoreCoord sender_noc = device->worker_core_from_logical_core(sender);
    SetRuntimeArgs(program, send, sender,
                   {src->address(), num_blocks, noc_start.x, noc_start.y, noc_end.x, noc_end.y, num_cores - 1});
    SetRuntimeArgs(program, receive, receivers, {sender_noc.x, sender_noc.y, num_blocks});
    for (const CoreCoord& core : rect)
      SetRuntimeArgs(program, write, core, {dst->address(), (core.y * grid.x + core.x) * src_pages, num_blocks});

    detail::LaunchProgram(device, program);

    std::vector<uint32_t> output;
    detail::ReadFromBuffer(dst, output);
    CloseDevice(device);

    uint32_t bad_cores = 0;
    for (uint32_t slice = 0; slice < num_cores; ++slice)
      if (!std::equal(input.begin(), input.end(), output.begin() + ptrdiff_t(slice * input.size()))) ++bad_cores;
    if (bad_cores) {
      std::printf("multicast: FAILED: %u cores' outputs differ from the source\n", bad_cores);
      return 1;
    }
    std::printf("multicast: %u blocks from (0,0) to %u receivers: every core's output matches the source\n", num_blocks,
                num_cores - 1);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "multicast: %s\n", e.what());
    return 1;
  }
}
