// ccl_all_reduce: every chip of a group (ccl_common.hpp) ends with the
// element-wise sum of the group's inputs (bfloat16 tiles of small integers,
// so the sums are exact): the inputs are all-gathered over the fabric into a
// staging buffer (ccl_all_gather's kernel), and each chip sums its slots in
// slot order (ccl_common's reduction on NCRISC and compute), so every chip
// computes the same sums in the same order. The host checks every output and
// prints a checksum of all of them (FNV-1a, 64 bits).
#include <chrono>
#include <string>
#include <vector>

#include "ccl_common.hpp"

namespace tessel::examples {

RunResult run_ccl_all_reduce(const RunOptions& o) {
  const CclMesh m = open_ccl_mesh(o, "ccl_all_reduce");
  Mesh& mesh = *m.mesh;
  const uint32_t tiles = o.size ? o.size : 4;
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint32_t first = mesh.first_local_chip(), last = first + mesh.local_chip_count();
  constexpr uint64_t kSeed = 0xa11ed0ceull;

  std::vector<std::shared_ptr<Buffer>> buffers;
  std::vector<std::shared_ptr<Buffer>> outputs(mesh.size());
  std::vector<Program> programs(mesh.size());
  std::vector<Program*> program_ptrs(mesh.size(), nullptr);
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t chip = first; chip < last; ++chip) {
    auto device = mesh.device_ptr(chip);
    const uint32_t n = uint32_t(ccl_place(m, chip).group.size());
    auto in = Buffer::create(device, {uint64_t(tiles) * tile_bytes, tile_bytes, BufferType::DRAM});
    auto staging = Buffer::create(device, {uint64_t(n) * tiles * tile_bytes, tile_bytes, BufferType::DRAM});
    outputs[chip] = Buffer::create(device, {uint64_t(tiles) * tile_bytes, tile_bytes, BufferType::DRAM});
    device->command_queue().enqueue_write_buffer(*in, ccl_integer_tiles(kSeed, chip, tiles), true);
    buffers.insert(buffers.end(), {in, staging});
    const uint32_t sem = programs[chip].add_semaphore(CoreRangeSet(CoreRange(kCclWorker)), 0);
    add_ccl_gather(m, chip, programs[chip], *in, *staging, tiles, sem);
    add_ccl_sum(programs[chip], *staging, *outputs[chip], tiles, n, sem, n);
    program_ptrs[chip] = &programs[chip];
  }
  mesh.run(program_ptrs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<uint64_t> digests(mesh.size(), 0);
  uint64_t wrong = 0;
  std::string first_wrong;
  const size_t values = size_t(tiles) * 1024;
  for (uint32_t chip = first; chip < last; ++chip) {
    std::vector<uint32_t> got;
    mesh.device(chip).command_queue().enqueue_read_buffer(*outputs[chip], got);
    std::vector<std::vector<uint32_t>> inputs;
    for (uint32_t q : ccl_place(m, chip).group)
      inputs.push_back(ccl_integer_tiles(kSeed, q, tiles));
    for (size_t i = 0; i < values; ++i) {
      float want = 0;
      for (const std::vector<uint32_t>& input : inputs)
        want += ccl_bf16_at(input, i);
      if (ccl_bf16_at(got, i) != want && wrong++ == 0)
        first_wrong = "device " + std::to_string(chip) + " value " + std::to_string(i) + " (" +
                      std::to_string(ccl_bf16_at(got, i)) + ", expected " + std::to_string(want) + ")";
    }
    digests[chip] = ccl_fnv1a(kFnvOffset, got);
  }
  const CclTotals totals = ccl_totals(m, digests, wrong, first_wrong);
  RunResult r;
  r.passed = totals.wrong == 0;
  r.seconds = seconds;
  r.summary = "all-reduce of " + std::to_string(tiles) + " bfloat16 tiles per chip on a " + m.description() + ": " +
              totals.text();
  return r;
}

} // namespace tessel::examples
