// eltwise: C = A + B on bf16 tiles through the full reader -> compute ->
// writer pipeline (the eltwise_binary example's program) on every core of
// the 12x10 Blackhole grid, one host thread. The reference is the pipeline
// copy (copy_multi_core's program) of the same number of 2 KiB tiles per core
// in the same process: the ratio says what the compute stage and the second
// input add to moving the tiles.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"
#include "example.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::bench {

namespace {
void measure(const std::string& label, uint32_t tiles_per_core) {
  auto device = Device::open({"blackhole"});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t cores = grid.x * grid.y;
  const uint32_t tiles = cores * tiles_per_core;
  const uint32_t page = tile_size(DataFormat::Float16_b);
  auto make = [&] { return Buffer::create(device, {uint64_t(tiles) * page, page, BufferType::DRAM}); };
  auto a = make(), b = make(), c = make();
  std::vector<float> values(size_t(tiles) * kTileHW);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(int(i % 61) - 30) * 0.125f;
  const std::vector<uint8_t> packed = pack_tiles(values, DataFormat::Float16_b);
  cq.enqueue_write_buffer(*a, packed);
  cq.enqueue_write_buffer(*b, packed);

  Program add = examples::make_eltwise_binary_program(grid, *a, *b, *c, tiles, "add_tiles");
  Program copy = examples::make_copy_program(grid, *a, *c, tiles_per_core, 4);
  cq.enqueue_program(add); // warm-up: compile, touch pages
  std::vector<uint8_t> out;
  cq.enqueue_read_buffer(*c, out);
  const std::vector<float> sums = unpack_tiles(out, DataFormat::Float16_b);
  for (size_t i = 0; i < values.size(); ++i)
    if (sums[i] != values[i] * 2) {
      std::printf("%s_error tile value %zu is %g, expected %g\n", label.c_str(), i, double(sums[i]),
                  double(values[i] * 2));
      return;
    }
  cq.enqueue_program(copy);

  const int repeats = std::max(7, int(40000 / tiles));
  double t_add = 1e30, t_copy = 1e30;
  for (int round = 0; round < 3; ++round) { // interleaved, so drift hits both alike
    t_add = std::min(t_add, best_run_seconds(cq, add, repeats));
    t_copy = std::min(t_copy, best_run_seconds(cq, copy, repeats));
  }
  figure(label + "_tiles", tiles, "tiles");
  figure(label + "_add_tiles_per_s", tiles / t_add, "tiles/s");
  figure(label + "_copy_tiles_per_s", tiles / t_copy, "tiles/s");
  figure(label + "_ratio_to_copy", t_add / t_copy, "x");
  figure(label + "_ns_per_tile", t_add / tiles * 1e9, "ns");
}
} // namespace

// Two sizes, as the pipeline benchmark: 8 tiles per core (each buffer 2 MB,
// cache-resident: the simulator's own per-tile costs) and 32 (7.5 MB each:
// the two input streams and the output stream are host-memory bound).
void run_eltwise() {
  measure("eltwise_small", 8);
  measure("eltwise", 32);
}

} // namespace tessel::bench
