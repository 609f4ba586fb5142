// trace_replay: launches of null-kernel programs replayed from a trace,
// against direct enqueues of the same programs in the same order: one
// program on 1 core and on all 120 cores of Blackhole, and a sequence of 100
// programs on 120 cores (each launch then reads its own dispatch values, in
// both modes). Rounds alternate the two modes and keep each one's best, so
// drift on a shared machine hits both alike.
#include <algorithm>
#include <chrono>
#include <vector>

#include "bench.hpp"
#include "tessel/tessel.hpp"

namespace tessel::bench {

namespace {
constexpr const char* kNullKernel = R"(
#include "api/dataflow/dataflow_api.h"
void kernel_main() {}
)";

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0, int launches) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / launches;
}

struct Figures {
  double direct_us = 1e30, replay_us = 1e30, capture_us = 0;
};

Figures us_per_launch(const std::shared_ptr<Device>& device, CoreRange cores, int programs, int repeats, int rounds) {
  std::vector<Program> sequence(static_cast<size_t>(programs));
  CommandQueue& cq = device->command_queue();
  for (int i = 0; i < programs; ++i) {
    Program& program = sequence[size_t(i)];
    KernelHandle k = program.add_kernel_from_source(kNullKernel, "null_kernel.cpp", cores, DataMovementConfig{});
    for (CoreCoord c : cores.cores())
      program.set_runtime_args(k, c, {uint32_t(i), c.x, c.y});
    cq.enqueue_program(program); // compile and plan
  }

  Figures f;
  auto t0 = Clock::now();
  const uint32_t trace = cq.begin_trace_capture();
  for (Program& program : sequence)
    cq.enqueue_program(program);
  cq.end_trace_capture(trace);
  f.capture_us = us_since(t0, programs);

  const int launches = programs * repeats;
  for (int r = 0; r < rounds; ++r) {
    t0 = Clock::now();
    for (int i = 0; i < repeats; ++i)
      for (Program& program : sequence)
        cq.enqueue_program(program, false);
    cq.finish();
    f.direct_us = std::min(f.direct_us, us_since(t0, launches));
    t0 = Clock::now();
    for (int i = 0; i < repeats; ++i)
      cq.replay_trace(trace, false);
    cq.finish();
    f.replay_us = std::min(f.replay_us, us_since(t0, launches));
  }
  cq.release_trace(trace);
  return f;
}

void print(const std::string& prefix, const Figures& f) {
  figure(prefix + "_direct_us", f.direct_us, "us");
  figure(prefix + "_replay_us", f.replay_us, "us");
  figure(prefix + "_replay_vs_direct", f.replay_us / f.direct_us, "x");
  figure(prefix + "_capture_us", f.capture_us, "us");
}
} // namespace

void run_trace_replay() {
  auto device = Device::open({"blackhole"});
  const CoreCoord g = device->grid();
  const CoreRange all({0, 0}, {g.x - 1, g.y - 1});
  print("trace_1_core", us_per_launch(device, CoreRange({0, 0}, {0, 0}), 1, 20000, 5));
  print("trace_120_cores", us_per_launch(device, all, 1, 2000, 5));
  print("trace_120_cores_100_programs", us_per_launch(device, all, 100, 20, 5));
}

} // namespace tessel::bench
