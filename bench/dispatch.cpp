// dispatch: re-dispatch of a cached program whose kernels do nothing, with
// new runtime args each time, on 1 core and on all 120 cores of Blackhole.
#include <chrono>

#include "bench.hpp"
#include "tessel/tessel.hpp"

namespace tessel::bench {

namespace {
constexpr const char* kNullKernel = R"(
#include "api/dataflow/dataflow_api.h"
void kernel_main() {}
)";

double us_per_dispatch(const std::shared_ptr<Device>& device, CoreRange cores, int iterations) {
  Program program;
  KernelHandle k = program.add_kernel_from_source(kNullKernel, "null_kernel.cpp", cores, DataMovementConfig{});
  for (CoreCoord c : cores.cores())
    program.set_runtime_args(k, c, {0u, c.x, c.y});
  CommandQueue& cq = device->command_queue();
  cq.enqueue_program(program); // compile and plan
  std::vector<std::span<uint32_t>> args;
  for (CoreCoord c : cores.cores())
    args.push_back(program.runtime_args(k, c));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    for (auto& a : args)
      a[0] = uint32_t(i);
    cq.enqueue_program(program);
  }
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iterations;
}
} // namespace

void run_dispatch() {
  auto device = Device::open({"blackhole"});
  const CoreCoord g = device->grid();
  double one = us_per_dispatch(device, CoreRange({0, 0}, {0, 0}), 50000);
  double all = us_per_dispatch(device, CoreRange({0, 0}, {g.x - 1, g.y - 1}), 5000);
  figure("dispatch_1_core_us", one, "us");
  figure("dispatch_120_cores_us", all, "us");
  figure("dispatch_per_core_ns", all / (g.x * g.y) * 1e3, "ns");
}

} // namespace tessel::bench
