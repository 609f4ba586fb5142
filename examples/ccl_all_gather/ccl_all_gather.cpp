// ccl_all_gather: every chip of a group (ccl_common.hpp) ends with every
// group chip's input, in slot order, moved over the fabric by one worker core
// per chip (kernels/all_gather.cpp): each page goes out in multicasts,
// forward and backward along a line or a ring (half the peers each way), or
// in one 2D multicast over the whole mesh. The host checks every chip's
// output against the concatenated inputs and prints a checksum of all
// outputs (FNV-1a, 64 bits), so runs compare.
#include <chrono>
#include <string>
#include <vector>

#include "ccl_common.hpp"

namespace tessel::examples {

namespace {
// The gather's ranges from the chip at `slot` of a group of n: how many
// peers it reaches forward and backward (2D: all, "forward").
std::pair<uint32_t, uint32_t> ccl_gather_ranges(const CclMesh& m, uint32_t slot, uint32_t n) {
  if (m.fabric == FabricConfig::Fabric2D) return {n - 1, 0};
  if (m.ring) return {n / 2, (n - 1) / 2};
  return {n - 1 - slot, slot};
}
} // namespace

// The gather's BRISC kernel on `chip`, from `input` into slot order of `output`.
void add_ccl_gather(const CclMesh& m, uint32_t chip, Program& program, const Buffer& input, const Buffer& output,
                    uint32_t pages, uint32_t sem) {
  const CclPlace place = ccl_place(m, chip);
  const uint32_t n = uint32_t(place.group.size());
  const uint32_t page_bytes = tile_size(DataFormat::Float16_b);
  program.add_circular_buffer(CoreRangeSet(CoreRange(kCclWorker)),
                              CircularBufferConfig(page_bytes, {{0, DataFormat::Float16_b}}).set_page_size(0, page_bytes));
  std::vector<uint32_t> compile_args;
  TensorAccessorArgs(input).append_to(compile_args);
  TensorAccessorArgs(output).append_to(compile_args);
  KernelHandle k = add_ccl_kernel(m, program, "ccl_all_gather", "all_gather.cpp", compile_args);
  const auto [forward, backward] = ccl_gather_ranges(m, place.slot, n);
  std::vector<uint32_t> args = {input.address(), output.address(), page_bytes, pages, place.slot, forward, backward,
                                sem, n};
  if (m.fabric == FabricConfig::Fabric2D) {
    const Mesh& mesh = *m.mesh;
    const uint32_t r = chip / mesh.cols(), c = chip % mesh.cols();
    args.insert(args.end(), {mesh.cols() - 1 - c, c, r, mesh.rows() - 1 - r, chip});
  }
  append_ccl_connections(m, chip, forward > 0, backward > 0, program, args);
  program.set_runtime_args(k, CoreRangeSet(CoreRange(kCclWorker)), args);
}

RunResult run_ccl_all_gather(const RunOptions& o) {
  const CclMesh m = open_ccl_mesh(o, "ccl_all_gather");
  Mesh& mesh = *m.mesh;
  const uint32_t pages = o.size ? o.size : 8;
  const uint32_t page_bytes = tile_size(DataFormat::Float16_b);
  const uint32_t words_per_chip = pages * page_bytes / 4;
  const uint32_t first = mesh.first_local_chip(), last = first + mesh.local_chip_count();
  constexpr uint64_t kSeed = 0xa11ca7e5ull;

  std::vector<std::shared_ptr<Buffer>> in_buffers(mesh.size()), out_buffers(mesh.size());
  std::vector<Program> programs(mesh.size());
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t chip = first; chip < last; ++chip) {
    auto device = mesh.device_ptr(chip);
    const uint32_t n = uint32_t(ccl_place(m, chip).group.size());
    in_buffers[chip] = Buffer::create(device, {uint64_t(pages) * page_bytes, page_bytes, BufferType::DRAM});
    out_buffers[chip] = Buffer::create(device, {uint64_t(n) * pages * page_bytes, page_bytes, BufferType::DRAM});
    device->command_queue().enqueue_write_buffer(*in_buffers[chip], ccl_random_words(kSeed, chip, words_per_chip), true);
    const uint32_t sem = programs[chip].add_semaphore(CoreRangeSet(CoreRange(kCclWorker)), 0);
    add_ccl_gather(m, chip, programs[chip], *in_buffers[chip], *out_buffers[chip], pages, sem);
  }
  run_ccl_programs(m, programs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  CclCheck check(m);
  for (uint32_t chip = first; chip < last; ++chip) {
    const std::vector<uint32_t>& got = check.read(chip, *out_buffers[chip]);
    const CclPlace place = ccl_place(m, chip);
    for (uint32_t s = 0; s < place.group.size(); ++s) {
      const std::vector<uint32_t> want = ccl_random_words(kSeed, place.group[s], words_per_chip);
      for (uint32_t i = 0; i < words_per_chip; ++i)
        if (got[size_t(s) * words_per_chip + i] != want[i])
          check.mismatch("device " + std::to_string(chip) + " slot " + std::to_string(s) + " word " +
                         std::to_string(i));
    }
  }
  return check.result("all-gather of " + std::to_string(pages) + " pages of " + std::to_string(page_bytes) +
                          " B per chip",
                      seconds);
}

} // namespace tessel::examples
