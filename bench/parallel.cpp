// parallel: the parallel policy against the deterministic one on the same
// device and program in the same process, runs interleaved so that drift
// hits both alike: the pipeline copy and the element-wise add on all 120
// cores of a Blackhole, and the mcast matmul at 1024^3 and 2048^3 bf16. The
// figure is deterministic time over parallel time (the speed-up); each
// policy's output must be byte-identical to the deterministic one's. The
// pipeline's is also set against a plain copy loop's speed-up on two
// threads (the host's memory bandwidth bounds both). The
// matmul under `parallel` is also set against OpenBLAS's sgemm on every
// host core, in paired rounds (paired_rounds).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench.hpp"
#include "example.hpp"
#include "host_blas.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::bench {

namespace {

enum class Kind { Pipeline, Eltwise, Matmul };

struct Setup {
  std::shared_ptr<Device> device;
  std::shared_ptr<Buffer> a, b, c;
  Program program;
  uint64_t flops = 0;
};

Setup make_setup(Kind kind, uint32_t size) {
  Setup s{Device::open({"blackhole"}), {}, {}, {}, {}};
  const CoreCoord grid = s.device->grid();
  const DataFormat fmt = DataFormat::Float16_b;
  const uint32_t page = tile_size(fmt);
  const uint32_t tiles = kind == Kind::Matmul ? (size / 32) * (size / 32) : grid.x * grid.y * size;
  auto make = [&] { return Buffer::create(s.device, {uint64_t(tiles) * page, page, BufferType::DRAM}); };
  s.a = make(), s.b = make(), s.c = make();
  std::vector<float> values(size_t(tiles) * 1024);
  examples::Lcg rng(0x9e3779b97f4a7c15ull);
  for (float& v : values)
    v = float(rng.uniform(-1.0, 1.0));
  const std::vector<uint8_t> bytes = pack_tiles(values, fmt);
  s.device->command_queue().enqueue_write_buffer(*s.a, bytes);
  s.device->command_queue().enqueue_write_buffer(*s.b, bytes);
  switch (kind) {
  case Kind::Pipeline: s.program = examples::make_copy_program(grid, *s.a, *s.c, size, 4); break;
  case Kind::Eltwise:
    s.program = examples::make_eltwise_binary_program(grid, *s.a, *s.b, *s.c, tiles, "add_tiles");
    break;
  case Kind::Matmul:
    s.program = examples::make_matmul_mcast_program(grid, *s.a, *s.b, *s.c, size / 32, size / 32, size / 32, fmt,
                                                    MathFidelity::HiFi4);
    s.flops = 2ull * size * size * size;
    break;
  }
  s.device->command_queue().enqueue_program(s.program); // warm-up: compile, touch pages
  return s;
}

std::vector<uint8_t> output(Setup& s) {
  std::vector<uint8_t> out;
  s.device->command_queue().enqueue_read_buffer(*s.c, out);
  return out;
}

// One n^3 sgemm on every host core (OpenBLAS's default thread count); BLAS
// is set back to one thread before it returns. Its idle workers still spin
// for a while (OpenBLAS's thread timeout, about 0.1 s) before they sleep,
// taking a host core from a simulated run that starts at once: a run waits
// kBlasSettleMs after BLAS's.
constexpr int kBlasSettleMs = 300;

double sgemm_all_threads_seconds(uint32_t n, const std::vector<float>& a, const std::vector<float>& b,
                                 std::vector<float>& c) {
  host_blas::set_threads(0);
  const auto t0 = std::chrono::steady_clock::now();
  host_blas::sgemm(n, a.data(), b.data(), c.data());
  const double t = seconds_since(t0);
  host_blas::set_threads(1);
  return t;
}

// The matmul under `parallel` against sgemm on every core, in paired rounds
// (paired_rounds); each sgemm pair ends with kBlasSettleMs of settle.
void against_sgemm(const std::string& label, Setup& s, uint32_t n, int rounds) {
  std::vector<float> a(size_t(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size());
  sgemm_all_threads_seconds(n, a, b, c); // warm-up: BLAS starts its threads
  s.device->set_policy("parallel");
  const PairedRounds p = paired_rounds(
      rounds, [&] { return best_run_seconds(s.device->command_queue(), s.program, 1); },
      [&] { return sgemm_all_threads_seconds(n, a, b, c); },
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(kBlasSettleMs)); });
  s.device->set_policy("deterministic");
  figure(label + "_parallel_gflops", double(s.flops) / p.a / 1e9, "GFLOP/s");
  figure(label + "_sgemm_all_threads_gflops", double(s.flops) / p.b / 1e9, "GFLOP/s");
  figure(label + "_parallel_ratio_to_sgemm_all_threads", p.b / p.a, "x");
  figure(label + "_parallel_ratio_to_sgemm_all_threads_median_round", p.median_b_over_a, "x");
}

void measure(const std::string& label, Kind kind, uint32_t size, int repeats, int rounds = 3) {
  Setup s = make_setup(kind, size);
  const std::vector<uint8_t> expected = output(s);
  const char* const policies[] = {"deterministic", "parallel:2", "parallel"};
  double best[3] = {1e30, 1e30, 1e30};
  for (int round = 0; round < rounds; ++round)
    for (int i = 0; i < 3; ++i) {
      s.device->set_policy(policies[i]);
      best[i] = std::min(best[i], best_run_seconds(s.device->command_queue(), s.program, repeats));
      if (round == 0 && output(s) != expected) {
        std::printf("%s_error output under %s differs from deterministic\n", label.c_str(), policies[i]);
        return;
      }
    }
  s.device->set_policy("deterministic");
  figure(label + "_deterministic_ms", best[0] * 1e3, "ms");
  figure(label + "_parallel_2_ms", best[1] * 1e3, "ms");
  figure(label + "_parallel_ms", best[2] * 1e3, "ms");
  figure(label + "_parallel_2_speedup", best[0] / best[1], "x");
  figure(label + "_parallel_speedup", best[0] / best[2], "x");
  if (kind == Kind::Pipeline) {
    // What the host's memory gives the same copies done by a plain loop on
    // two threads: the pipeline moves 4 KiB per tile and computes nothing,
    // so its speed-up cannot pass this one.
    const double one = native_copy_seconds(*s.device, *s.a, *s.c, size, 4, repeats, 1);
    const double two = native_copy_seconds(*s.device, *s.a, *s.c, size, 4, repeats, 2);
    figure(label + "_native_copy_2_threads_speedup", one / two, "x");
    figure(label + "_parallel_2_speedup_over_native_copy_2_threads", (best[0] / best[1]) / (one / two), "x");
  }
  if (s.flops) against_sgemm(label, s, size, size >= 2048 ? 5 : 8);
}

} // namespace

void run_parallel() {
  std::printf("host_cores %u cores\n", std::max(1u, uint32_t(std::thread::hardware_concurrency())));
  measure("parallel_pipeline", Kind::Pipeline, 32, 10);
  measure("parallel_pipeline_large", Kind::Pipeline, 256, 3);
  measure("parallel_eltwise", Kind::Eltwise, 32, 5);
  measure("parallel_matmul_1024", Kind::Matmul, 1024, 2);
  measure("parallel_matmul_2048", Kind::Matmul, 2048, 1, 6);
  host_blas::note_reference(); // last: loading BLAS starts its threads, which spin for a while
}

} // namespace tessel::bench
