// semaphore_pingpong in TT-Metalium's legacy spellings: cores (0,0) and (1,0)
// pass a token back and forth with program semaphores, each writing a record
// (last value received, tokens received, mismatches, final semaphore) to
// DRAM. The program runs twice: the second time with a different hop count,
// changed in place through GetRuntimeArgs.
#include <array>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

using namespace tt::tt_metal;

namespace {

// What player `i` must report after num_hops hops (player 0 starts and makes the odd hops).
std::array<uint32_t, 4> expected_record(uint32_t num_hops, bool is_starter) {
  const uint32_t received = is_starter ? num_hops / 2 : (num_hops + 1) / 2;
  const uint32_t last = received == 0 ? 0 : (is_starter ? 2 * received : 2 * received - 1);
  return {last, received, 0, is_starter ? received : 0};
}

bool check(const std::vector<uint32_t>& records, uint32_t num_hops) {
  bool ok = true;
  for (uint32_t i = 0; i < 2; ++i) {
    const std::array<uint32_t, 4> want = expected_record(num_hops, i == 0);
    for (uint32_t w = 0; w < 4; ++w)
      if (records[i * 4 + w] != want[w]) {
        std::printf("semaphore_pingpong: %u hops: player %u word %u is %u, expected %u\n", num_hops, i, w,
                    records[i * 4 + w], want[w]);
        ok = false;
      }
  }
  return ok;
}

} // namespace

int main() {
  try {
    IDevice* device = CreateDevice(0);
    CommandQueue& cq = device->command_queue();
    const std::array<CoreCoord, 2> players = {CoreCoord{0, 0}, CoreCoord{1, 0}};
    constexpr uint32_t record_bytes = 16;

    std::shared_ptr<Buffer> results = CreateBuffer(InterleavedBufferConfig{
        .device = device, .size = 2 * record_bytes, .page_size = record_bytes, .buffer_type = BufferType::DRAM});
    const std::vector<uint32_t> poison(2 * record_bytes / 4, 0xdeadbeefu);

    Program program = CreateProgram();
    const CoreRangeSet both({CoreRange(players[0]), CoreRange(players[1])});
    constexpr uint32_t mailbox_bytes = 64;
    CreateCircularBuffer(program, both,
                         CircularBufferConfig(mailbox_bytes, {{tt::CBIndex::c_0, tt::DataFormat::UInt32}})
                             .set_page_size(tt::CBIndex::c_0, mailbox_bytes));
    const uint32_t sem_id = CreateSemaphore(program, both, 0);
    std::vector<uint32_t> compile_args;
    TensorAccessorArgs(*results).append_to(compile_args);
    compile_args.push_back(sem_id);
    KernelHandle kernel = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "semaphore_pingpong/kernels/pingpong.cpp", both,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                          .noc = NOC::RISCV_0_default,
                                                          .compile_args = compile_args});
    constexpr uint32_t first_hops = 101, second_hops = 40;
    for (uint32_t i = 0; i < 2; ++i) {
      const CoreCoord peer = device->worker_core_from_logical_core(players[1 - i]);
      SetRuntimeArgs(program, kernel, players[i],
                     {peer.x, peer.y, first_hops, i == 0 ? 1u : 0u, results->address(), i});
    }

    bool ok = true;
    std::vector<uint32_t> records;
    for (uint32_t hops : {first_hops, second_hops}) {
      for (const CoreCoord& player : players)
        GetRuntimeArgs(program, kernel, player)[2] = hops;
      EnqueueWriteBuffer(cq, results, poison, false);
      EnqueueProgram(cq, program, false);
      EnqueueReadBuffer(cq, results, records, true);
      ok = check(records, hops) && ok;
    }
    CloseDevice(device);

    if (!ok) {
      std::printf("semaphore_pingpong: FAILED\n");
      return 1;
    }
    std::printf("semaphore_pingpong: %u then %u hops between (0,0) and (1,0): every payload and count matches\n",
                first_hops, second_hops);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "semaphore_pingpong: %s\n", e.what());
    return 1;
  }
}
