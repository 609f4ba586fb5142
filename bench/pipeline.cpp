// pipeline: 2 KiB tiles flow DRAM -> reader (BRISC) -> CB -> writer (NCRISC)
// -> DRAM on every core of the 12x10 Blackhole grid, one host thread. The
// reference is a plain loop doing the same copies (same interleaved
// addresses, through a per-core L1 staging slot) in the same process.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "bench.hpp"
#include "example.hpp"
#include "runtime/device_state.hpp"
#include "tessel/tessel.hpp"

namespace tessel::bench {

namespace {
using Clock = std::chrono::steady_clock;

// The same data movement as the kernels, done directly on the simulated memory.
void copy_cores(Device& device, const Buffer& src, const Buffer& dst, uint32_t tiles_per_core, uint32_t cb_pages,
                uint32_t first_core, uint32_t end_core) {
  auto& st = device.state();
  auto& mem = st.chip->memory();
  const uint32_t banks = st.arch.dram_banks;
  const uint32_t page = src.page_size();
  const uint32_t stride = src.aligned_page_size();
  for (uint32_t c = first_core; c < end_core; ++c) {
    uint8_t* l1 = mem.l1(c) + 0x4000;
    for (uint32_t i = 0; i < tiles_per_core; ++i) {
      const uint32_t p = c * tiles_per_core + i;
      uint8_t* slot = l1 + (i % cb_pages) * page;
      std::memcpy(slot, mem.dram(p % banks) + src.address() + uint64_t(p / banks) * stride, page);
      std::memcpy(mem.dram(p % banks) + dst.address() + uint64_t(p / banks) * stride, slot, page);
    }
  }
}
} // namespace

double native_copy_seconds(Device& device, const Buffer& src, const Buffer& dst, uint32_t tiles_per_core,
                           uint32_t cb_pages, int repeats, uint32_t threads) {
  const uint32_t cores = device.state().arch.core_count();
  threads = std::max(1u, std::min(threads, cores));
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    std::vector<std::thread> helpers;
    for (uint32_t t = 1; t < threads; ++t)
      helpers.emplace_back([&, t] {
        copy_cores(device, src, dst, tiles_per_core, cb_pages, t * cores / threads, (t + 1) * cores / threads);
      });
    copy_cores(device, src, dst, tiles_per_core, cb_pages, 0, cores / threads);
    for (std::thread& h : helpers)
      h.join();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

namespace {
// One measurement: `tiles_per_core` tiles on each of the 120 cores; figures
// are prefixed with `label`.
void measure(const std::string& label, uint32_t tiles_per_core) {
  auto device = Device::open({"blackhole"});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t cores = grid.x * grid.y;
  const uint32_t page = 2048, cb_pages = 4;
  const uint32_t tiles = cores * tiles_per_core;
  auto src = Buffer::create(device, {uint64_t(tiles) * page, page, BufferType::DRAM});
  auto dst = Buffer::create(device, {uint64_t(tiles) * page, page, BufferType::DRAM});
  std::vector<uint8_t> input(src->size());
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = uint8_t(i * 131 + 7);
  cq.enqueue_write_buffer(*src, input);

  // The copy_multi_core example's program.
  Program program = examples::make_copy_program(grid, *src, *dst, tiles_per_core, cb_pages);
  cq.enqueue_program(program); // warm-up: compile, touch pages
  std::vector<uint8_t> output;
  cq.enqueue_read_buffer(*dst, output);
  if (output != input) {
    std::printf("%s_error output differs from input\n", label.c_str());
    return;
  }
  const int repeats = std::max(5, int(40000 / tiles)); // short runs repeat more: the best of them is the figure
  const double sim = best_run_seconds(cq, program, repeats);
  double native = native_copy_seconds(*device, *src, *dst, tiles_per_core, cb_pages, repeats, 1);
  figure(label + "_tiles", tiles, "tiles");
  figure(label + "_tiles_per_s", tiles / sim, "tiles/s");
  figure(label + "_native_tiles_per_s", tiles / native, "tiles/s");
  figure(label + "_ratio_to_native", sim / native, "x");
  figure(label + "_ns_per_tile", sim / tiles * 1e9, "ns");
}
} // namespace

// Three sizes, from buffers the host's caches hold (2 MB each: the
// simulator's own per-tile overhead dominates) to 63 MB each (host memory
// bandwidth bound, for the simulator and the plain loop alike).
void run_pipeline() {
  measure("pipeline_small", 8);
  measure("pipeline", 32);
  measure("pipeline_large", 256);
}

} // namespace tessel::bench
