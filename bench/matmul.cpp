// matmul: C = A B in bf16 (Float16_b tiles, HiFi4) through the
// matmul_multicore_reuse_mcast example's program on the 12x10 Blackhole grid,
// one host thread, against the host BLAS's single-precision GEMM
// (cblas_sgemm from OpenBLAS) on the same sizes in the same process: with
// one BLAS thread (the reference for the ratio, like for like with the
// simulator's one thread) and with BLAS's default thread count. GFLOP/s =
// 2 M N K / seconds; each figure is the best of several runs, the simulator
// and one-thread BLAS taken in paired rounds (paired_rounds).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench.hpp"
#include "example.hpp"
#include "host_blas.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::bench {

namespace {
using Clock = std::chrono::steady_clock;

double blas_seconds(uint32_t n, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
                    int threads, int repeats) {
  host_blas::set_threads(threads);
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    host_blas::sgemm(n, a.data(), b.data(), c.data());
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

void measure(uint32_t n, int rounds) {
  const std::string label = "matmul_" + std::to_string(n);
  auto device = Device::open({"blackhole"});
  CommandQueue& cq = device->command_queue();
  const uint32_t tiles = n / 32;
  const DataFormat fmt = DataFormat::Float16_b;
  const uint32_t page = tile_size(fmt);
  // Row-major bf16 values in [-1, 1).
  std::vector<float> a(size_t(n) * n), b(a.size()), c_blas(a.size());
  examples::Lcg rng(0x853c49e6748fea9bull);
  auto next = [&] { return bf16_to_float(float_to_bf16(float(rng.uniform(-1.0, 1.0)))); };
  for (float& v : a)
    v = next();
  for (float& v : b)
    v = next();
  auto make = [&] { return Buffer::create(device, {uint64_t(tiles) * tiles * page, page, BufferType::DRAM}); };
  auto a_buf = make(), b_buf = make(), c_buf = make();
  cq.enqueue_write_buffer(*a_buf, pack_tiles(tilize(a, n, n), fmt));
  cq.enqueue_write_buffer(*b_buf, pack_tiles(tilize(b, n, n), fmt));
  Program program = examples::make_matmul_mcast_program(device->grid(), *a_buf, *b_buf, *c_buf, tiles, tiles, tiles,
                                                        fmt, MathFidelity::HiFi4);
  cq.enqueue_program(program); // warm-up: compile, touch pages

  const PairedRounds p = paired_rounds(
      rounds, [&] { return best_run_seconds(cq, program, 1); }, [&] { return blas_seconds(n, a, b, c_blas, 1, 1); });
  const double sim = p.a, blas1 = p.b;
  const double blas_all = blas_seconds(n, a, b, c_blas, 0, 2 * rounds); // 0: OpenBLAS's default
  host_blas::set_threads(1); // park BLAS's worker threads before the next simulated run

  // The simulated result must match BLAS's (PCC over the whole matrix).
  std::vector<uint8_t> out;
  cq.enqueue_read_buffer(*c_buf, out);
  const std::vector<float> c_sim = untilize(unpack_tiles(out, fmt), n, n);
  double sxy = 0, sxx = 0, syy = 0, sx = 0, sy = 0;
  for (size_t i = 0; i < c_sim.size(); ++i) {
    const double x = c_sim[i], y = c_blas[i];
    sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
  }
  const double m = double(c_sim.size());
  const double pcc = (sxy - sx * sy / m) / std::sqrt((sxx - sx * sx / m) * (syy - sy * sy / m));
  const double flops = 2.0 * n * n * n;
  figure(label + "_sim_gflops", flops / sim / 1e9, "GFLOP/s");
  figure(label + "_blas_1thread_gflops", flops / blas1 / 1e9, "GFLOP/s");
  figure(label + "_blas_default_threads_gflops", flops / blas_all / 1e9, "GFLOP/s");
  figure(label + "_ratio_to_blas_1thread", blas1 / sim, "x");
  figure(label + "_ratio_to_blas_1thread_median_round", p.median_b_over_a, "x");
  figure(label + "_ratio_to_blas_default_threads", blas_all / sim, "x");
  figure(label + "_sim_ms", sim * 1e3, "ms");
  figure(label + "_pcc_vs_blas", pcc, "pcc");
}
} // namespace

void run_matmul() {
  host_blas::note_reference();
  measure(1024, 4);
  measure(2048, 3);
}

} // namespace tessel::bench
