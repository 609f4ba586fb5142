#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "bench.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "example.hpp"
#include "tessel/tile.hpp"

#include "tessel/command_queue.hpp"
#include "tessel/program.hpp"

namespace tessel::bench {

void run_pipeline();
void run_dispatch();
void run_dispatch_persistent();
void run_jit();
void run_eltwise();
void run_matmul();
void run_trace_replay();
void run_dispatch_cached();
void run_memory_check();
void run_parallel();
void run_event_trace();
void run_checked_noc();
void run_timing();
void run_timing_overhead();
void run_fabric();
void run_fabric_rank_hop();

namespace {
const Benchmark kBenchmarks[] = {
    {"pipeline", "2 KiB tiles reader -> CB -> writer on all 120 cores vs a plain copy loop", run_pipeline},
    {"dispatch", "re-dispatch of a cached null-kernel program with new runtime args", run_dispatch},
    {"dispatch_persistent",
     "persistent dispatch: host-fed NOP, exclusive NOP periods on 1/12/120 cores, broadcast per job, vs silicon",
     run_dispatch_persistent},
    {"dispatch_cached", "an Operation with a factory re-dispatched on 120 cores, cache hits, new words each call",
     run_dispatch_cached},
    {"jit", "kernel compile: cold, warm disk cache, in-process memo", run_jit},
    {"matmul", "bf16 C = A B (1024^3, 2048^3) through matmul_multicore_reuse_mcast on 120 cores vs host BLAS sgemm",
     run_matmul},
    {"eltwise", "bf16 add through reader -> compute -> writer on all 120 cores vs the pipeline copy", run_eltwise},
    {"trace_replay",
     "null-kernel launches replayed from a trace vs direct enqueues of the same programs (1 core, 120 cores, "
     "100 programs on 120 cores)",
     run_trace_replay},
    {"memory_check", "the pipeline copy and the eltwise add on 120 cores with the device-memory checker vs without",
     run_memory_check},
    {"parallel",
     "the parallel policy (2 threads, every host core) vs deterministic: pipeline, eltwise, mcast matmul 1024^3 and "
     "2048^3, and the 2048^3 matmul vs sgemm on every host core",
     run_parallel},
    {"event_trace",
     "the pipeline copy and the eltwise add on 120 cores traced (streamed to a file, and a ring) vs untraced",
     run_event_trace},
    {"checked_noc", "the pipeline copy and the eltwise add on 120 cores in the checked NoC mode vs the eager one",
     run_checked_noc},
    {"timing",
     "the cycle estimate vs published silicon: matmul per core at each fidelity, DRAM GB/s, NoC B/cycle, null programs",
     run_timing},
    {"fabric",
     "the fabric: link bandwidth and hop latency of the cycle estimate vs published Ethernet figures, host cost per "
     "packet in one process and across MPI ranks, a 32-chip all-reduce in 1, 2 and 4 ranks",
     run_fabric},
    {"fabric_rank_hop", "(run by fabric under mpirun -np 2) packets between two ranks", run_fabric_rank_hop},
    {"timing_overhead", "the pipeline copy and a 512^3 mcast matmul on 120 cores timed vs untimed (host CPU time)",
     run_timing_overhead},
};
} // namespace

std::span<const Benchmark> all_benchmarks() { return kBenchmarks; }

const Benchmark* find_benchmark(const std::string& name) {
  for (const Benchmark& b : kBenchmarks)
    if (name == b.name) return &b;
  return nullptr;
}

void figure(const std::string& name, double value, const char* unit) {
  // Every line has its three fields (a unit-less count or ratio says what it counts).
  if (unit == nullptr || *unit == '\0') throw std::logic_error("bench figure " + name + " has no unit");
  std::printf("%s %.4g %s\n", name.c_str(), value, unit);
  std::fflush(stdout);
}

void note(const std::string& text) {
  std::printf("# %s\n", text.c_str());
  std::fflush(stdout);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

PairedRounds paired_rounds(int rounds, const std::function<double()>& a, const std::function<double()>& b,
                           const std::function<void()>& after_b) {
  PairedRounds p{1e30, 1e30, 0};
  std::vector<double> ratios;
  for (int i = 0; i < rounds; ++i) {
    double t_a = 1e30, t_b = 1e30;
    for (int j = 0; j < 2; ++j) {
      const bool a_turn = (i + j) % 2 == 0;
      for (int r = 0; r < 2; ++r)
        if (a_turn)
          t_a = std::min(t_a, a());
        else
          t_b = std::min(t_b, b());
      if (!a_turn && after_b) after_b();
    }
    p.a = std::min(p.a, t_a);
    p.b = std::min(p.b, t_b);
    ratios.push_back(t_b / t_a);
  }
  p.median_b_over_a = median(std::move(ratios));
  return p;
}

double best_run_seconds(CommandQueue& cq, Program& program, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    cq.enqueue_program(program);
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

void compare_setups(const std::string& label, ProgramSetup& a, const char* a_name, ProgramSetup& b, const char* b_name,
                    uint32_t tiles, int repeats) {
  double t_a = 1e30, t_b = 1e30;
  for (int round = 0; round < 3; ++round) {
    t_a = std::min(t_a, best_run_seconds(a.device->command_queue(), a.program, repeats));
    t_b = std::min(t_b, best_run_seconds(b.device->command_queue(), b.program, repeats));
  }
  figure(label + "_" + a_name + "_ns_per_tile", t_a / tiles * 1e9, "ns");
  figure(label + "_" + b_name + "_ns_per_tile", t_b / tiles * 1e9, "ns");
  figure(label + "_" + a_name + "_over_" + b_name, t_a / t_b, "x");
}

ProgramSetup make_program_setup(const DeviceConfig& config, bool eltwise, uint32_t tiles_per_core) {
  ProgramSetup s{Device::open(config), {}, {}, {}, {}};
  const CoreCoord grid = s.device->grid();
  const uint32_t tiles = grid.x * grid.y * tiles_per_core;
  const uint32_t page = tile_size(DataFormat::Float16_b);
  auto make = [&] { return Buffer::create(s.device, {uint64_t(tiles) * page, page, BufferType::DRAM}); };
  s.a = make(), s.b = make(), s.c = make();
  std::vector<uint8_t> bytes(s.a->size(), 0x3c);
  s.device->command_queue().enqueue_write_buffer(*s.a, bytes);
  s.device->command_queue().enqueue_write_buffer(*s.b, bytes);
  s.program = eltwise ? examples::make_eltwise_binary_program(grid, *s.a, *s.b, *s.c, tiles, "add_tiles")
                      : examples::make_copy_program(grid, *s.a, *s.c, tiles_per_core, 4);
  s.device->command_queue().enqueue_program(s.program); // warm-up: compile, touch pages
  return s;
}

} // namespace tessel::bench
