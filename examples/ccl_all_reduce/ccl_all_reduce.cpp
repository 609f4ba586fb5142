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
  }
  run_ccl_programs(m, programs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  CclCheck check(m);
  for (uint32_t chip = first; chip < last; ++chip) {
    check.read(chip, *outputs[chip]);
    std::vector<std::vector<uint32_t>> inputs;
    for (uint32_t q : ccl_place(m, chip).group)
      inputs.push_back(ccl_integer_tiles(kSeed, q, tiles));
    check.check_sums(chip, inputs, 0, size_t(tiles) * 1024);
  }
  return check.result("all-reduce of " + std::to_string(tiles) + " bfloat16 tiles per chip", seconds);
}

} // namespace tessel::examples
