// ccl_reduce_scatter: each chip of a group (ccl_common.hpp) ends with one
// slice of the element-wise sum of the group's inputs: chip j's output is
// the sum, in slot order, of slice j of every chip's input (bfloat16 tiles
// of small integers, so the sums are exact). Slices travel over the fabric
// (kernels/scatter.cpp); the chip that owns a slice sums what arrived
// (ccl_common's reduction on NCRISC and compute). The host checks every
// output and prints a checksum of all of them (FNV-1a, 64 bits).
#include <chrono>
#include <string>
#include <vector>

#include "ccl_common.hpp"

namespace tessel::examples {

RunResult run_ccl_reduce_scatter(const RunOptions& o) {
  const CclMesh m = open_ccl_mesh(o, "ccl_reduce_scatter");
  Mesh& mesh = *m.mesh;
  const uint32_t slice = o.size ? o.size : 2; // tiles per chip of the output
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint32_t first = mesh.first_local_chip(), last = first + mesh.local_chip_count();
  constexpr uint64_t kSeed = 0x5ca77e25ull;

  std::vector<std::shared_ptr<Buffer>> buffers;
  std::vector<std::shared_ptr<Buffer>> outputs(mesh.size());
  std::vector<Program> programs(mesh.size());
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t chip = first; chip < last; ++chip) {
    auto device = mesh.device_ptr(chip);
    const CclPlace place = ccl_place(m, chip);
    const uint32_t n = uint32_t(place.group.size());
    auto in = Buffer::create(device, {uint64_t(n) * slice * tile_bytes, tile_bytes, BufferType::DRAM});
    auto staging = Buffer::create(device, {uint64_t(n) * slice * tile_bytes, tile_bytes, BufferType::DRAM});
    outputs[chip] = Buffer::create(device, {uint64_t(slice) * tile_bytes, tile_bytes, BufferType::DRAM});
    device->command_queue().enqueue_write_buffer(*in, ccl_integer_tiles(kSeed, chip, n * slice), true);
    buffers.insert(buffers.end(), {in, staging});

    Program& program = programs[chip];
    const CoreRangeSet worker{CoreRange(kCclWorker)};
    program.add_circular_buffer(worker,
                                CircularBufferConfig(tile_bytes, {{0, DataFormat::Float16_b}}).set_page_size(0, tile_bytes));
    const uint32_t sem = program.add_semaphore(worker, 0);
    std::vector<uint32_t> compile_args;
    TensorAccessorArgs(*in).append_to(compile_args);
    TensorAccessorArgs(*staging).append_to(compile_args);
    KernelHandle k = add_ccl_kernel(m, program, "ccl_reduce_scatter", "scatter.cpp", compile_args);
    std::vector<uint32_t> args = {in->address(), staging->address(), tile_bytes, slice, place.slot, n, m.ring, sem,
                                  place.group.front()};
    const bool forward = m.fabric == FabricConfig::Fabric2D || m.ring || place.slot + 1 < n;
    const bool backward = m.fabric != FabricConfig::Fabric2D && (m.ring || place.slot > 0);
    append_ccl_connections(m, chip, forward && n > 1, backward && n > 1, program, args);
    program.set_runtime_args(k, worker, args);
    add_ccl_sum(program, *staging, *outputs[chip], slice, n, sem, n);
  }
  run_ccl_programs(m, programs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  CclCheck check(m);
  const size_t values = size_t(slice) * 1024;
  for (uint32_t chip = first; chip < last; ++chip) {
    check.read(chip, *outputs[chip]);
    const CclPlace place = ccl_place(m, chip);
    const uint32_t n = uint32_t(place.group.size());
    std::vector<std::vector<uint32_t>> inputs;
    for (uint32_t q : place.group)
      inputs.push_back(ccl_integer_tiles(kSeed, q, n * slice));
    check.check_sums(chip, inputs, place.slot * values, values);
  }
  return check.result("reduce-scatter of " + std::to_string(slice) + " bfloat16 tiles per chip", seconds);
}

} // namespace tessel::examples
