// semaphore_pingpong: two neighbouring cores hand a token back and forth with
// program semaphores. Each hop writes the hop number into the peer's L1
// (noc_async_write + write barrier) and then noc_semaphore_inc's the peer's
// semaphore; the receiver waits on its own semaphore (noc_semaphore_wait_min
// on one core, noc_semaphore_wait + reset on the other) and checks the word.
// Peers find each other through NoC coordinates the host passes as runtime
// args (worker_core_from_logical_core). Each core finally writes a record
// (last value received, tokens received, mismatches, semaphore value) to a
// DRAM buffer that the host checks exactly.
#include <array>
#include <string>
#include <vector>

#include "example.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {

// The two players: (0,0) and (1,0), or (0,0) and (0,1) on a one-column grid.
std::array<CoreCoord, 2> pick_players(CoreCoord grid, const std::string& arch) {
  if (grid.x >= 2) return {CoreCoord{0, 0}, CoreCoord{1, 0}};
  if (grid.y >= 2) return {CoreCoord{0, 0}, CoreCoord{0, 1}};
  throw ValidationError("semaphore_pingpong needs two cores, but the " + arch + " grid is " + std::to_string(grid.x) +
                        "x" + std::to_string(grid.y) + "; run it on a grid of at least 2x1 (e.g. --grid 2x1)");
}

// One player's end-of-run record, as the kernel writes it to DRAM.
struct PlayerRecord {
  uint32_t last_received = 0; // hop number of the last token received
  uint32_t tokens_received = 0;
  uint32_t mismatches = 0; // tokens whose payload was not the hop number
  uint32_t final_semaphore = 0;
  friend bool operator==(const PlayerRecord&, const PlayerRecord&) = default;
};

// What a player must report after num_hops hops (the starter makes odd hops).
PlayerRecord expected_record(uint32_t num_hops, bool is_starter) {
  PlayerRecord r;
  r.tokens_received = is_starter ? num_hops / 2 : (num_hops + 1) / 2;
  r.last_received = r.tokens_received == 0 ? 0 : (is_starter ? 2 * r.tokens_received : 2 * r.tokens_received - 1);
  r.final_semaphore = is_starter ? r.tokens_received : 0; // the responder resets after each token
  return r;
}

std::string record_text(const PlayerRecord& r) {
  return "last " + std::to_string(r.last_received) + ", received " + std::to_string(r.tokens_received) +
         ", mismatches " + std::to_string(r.mismatches) + ", semaphore " + std::to_string(r.final_semaphore);
}

} // namespace

RunResult run_semaphore_pingpong(const RunOptions& o) {
  const uint32_t num_hops = o.size ? o.size : 1000;
  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const std::array<CoreCoord, 2> players = pick_players(device->grid(), device->arch_name());
  const uint32_t record_bytes = sizeof(PlayerRecord);
  static_assert(sizeof(PlayerRecord) == 16, "the kernel writes four words per player");

  // One 16-byte page per player; poisoned so a player that never writes is caught.
  auto results = Buffer::create(device, {2 * record_bytes, record_bytes, BufferType::DRAM});
  const std::vector<uint32_t> poison(2 * record_bytes / 4, 0xdeadbeefu);
  cq.enqueue_write_buffer(*results, poison, false);

  const CoreRangeSet both{CoreRange(players[0]), CoreRange(players[1])};
  Program program;
  const uint32_t mailbox_bytes = 64; // inbox, outbox, result record (see the kernel)
  program.add_circular_buffer(
      both, CircularBufferConfig(mailbox_bytes, {{0, DataFormat::UInt32}}).set_page_size(0, mailbox_bytes));
  const uint32_t sem_id = program.add_semaphore(both, 0);
  std::vector<uint32_t> compile_args;
  TensorAccessorArgs(*results).append_to(compile_args);
  compile_args.push_back(sem_id);
  KernelHandle k =
      program.add_kernel(kernel_path("semaphore_pingpong", "pingpong.cpp"), both,
                         DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, compile_args});
  for (uint32_t i = 0; i < 2; ++i) {
    const CoreCoord peer = device->worker_core_from_logical_core(players[1 - i]);
    program.set_runtime_args(k, players[i], {peer.x, peer.y, num_hops, i == 0 ? 1u : 0u, results->address(), i});
  }

  const Timing timing = compile_and_run(cq, program);

  std::vector<PlayerRecord> records;
  cq.enqueue_read_buffer(*results, records, true);
  RunResult r;
  r.passed = true;
  std::string detail;
  for (uint32_t i = 0; i < 2; ++i) {
    const PlayerRecord want = expected_record(num_hops, i == 0);
    if (records[i] == want) continue;
    r.passed = false;
    detail += "; core " + players[i].str() + " reported " + record_text(records[i]) + ", expected " + record_text(want);
  }
  r.seconds = timing.run_seconds;
  r.compile_seconds = timing.compile_seconds;
  r.summary = std::to_string(num_hops) + " hops between cores " + players[0].str() + " and " + players[1].str() + " (" +
              device->arch_name() + "), " + std::to_string(expected_record(num_hops, true).tokens_received) + " + " +
              std::to_string(expected_record(num_hops, false).tokens_received) +
              " tokens received: " + (r.passed ? "every payload and count matches" : "MISMATCH" + detail);
  return r;
}

} // namespace tessel::examples
