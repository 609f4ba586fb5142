// timing_overhead: what the cycle estimate (docs/timing.md) costs the host.
// The pipeline copy (copy_multi_core's program) and the mcast matmul
// (512^3 bf16) on all 120 cores of a Blackhole, each on two devices in the
// same process, one timed and one not, their runs alternating one by one so
// that drift (a shared host's bursts last longer than a run) hits both
// alike. The figure is the best process CPU time per run, timed over
// untimed (the target is at most 1.15), beside the median of the
// neighbouring pairs' ratios.
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench.hpp"
#include "example.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::bench {

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double cpu_seconds_of_run(ProgramSetup& s) {
  const double t0 = cpu_seconds();
  s.device->command_queue().enqueue_program(s.program);
  return cpu_seconds() - t0;
}

ProgramSetup matmul_setup(bool timing, uint32_t n) {
  DeviceConfig config;
  config.timing = timing;
  ProgramSetup s{Device::open(config), {}, {}, {}, {}};
  const DataFormat fmt = DataFormat::Float16_b;
  const uint32_t page = tile_size(fmt), tiles = (n / 32) * (n / 32);
  auto make = [&] { return Buffer::create(s.device, {uint64_t(tiles) * page, page, BufferType::DRAM}); };
  s.a = make(), s.b = make(), s.c = make();
  std::vector<uint8_t> bytes(s.a->size(), 0x3c);
  s.device->command_queue().enqueue_write_buffer(*s.a, bytes);
  s.device->command_queue().enqueue_write_buffer(*s.b, bytes);
  s.program = examples::make_matmul_mcast_program(s.device->grid(), *s.a, *s.b, *s.c, n / 32, n / 32, n / 32, fmt,
                                                  MathFidelity::HiFi4);
  s.device->command_queue().enqueue_program(s.program); // warm-up: compile, touch pages
  return s;
}

void measure(const std::string& label, ProgramSetup off, ProgramSetup on, int pairs) {
  double t_off = 1e30, t_on = 1e30;
  std::vector<double> ratios;
  ratios.reserve(size_t(pairs));
  for (int i = 0; i < pairs; ++i) {
    // Which goes first alternates too, so that neither always follows the other.
    const bool timed_first = i % 2 != 0;
    const double first = cpu_seconds_of_run(timed_first ? on : off);
    const double second = cpu_seconds_of_run(timed_first ? off : on);
    const double untimed = timed_first ? second : first, timed = timed_first ? first : second;
    t_off = std::min(t_off, untimed);
    t_on = std::min(t_on, timed);
    ratios.push_back(timed / untimed);
  }
  figure(label + "_untimed_cpu_ms", t_off * 1e3, "ms");
  figure(label + "_timed_cpu_ms", t_on * 1e3, "ms");
  figure(label + "_timed_over_untimed", t_on / t_off, "x");
  figure(label + "_timed_over_untimed_median_pair", median(ratios), "x");
  figure(label + "_estimated_device_us", on.device->last_run_timing().device_us(), "us");
}

} // namespace

void run_timing_overhead() {
  DeviceConfig off, on;
  on.timing = true;
  measure("timing_overhead_pipeline", make_program_setup(off, false, 32), make_program_setup(on, false, 32), 400);
  measure("timing_overhead_matmul_512", matmul_setup(false, 512), matmul_setup(true, 512), 40);
}

} // namespace tessel::bench
