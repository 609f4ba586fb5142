// dispatch_measure: the persistent dispatcher's figures beside silicon's.
#include "dispatch_measure/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "example.hpp"
#include "tessel/device.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/persistent_abi.h"

namespace tessel::examples {

dispatch::ProgramSpec measure_program(uint32_t depth) {
  dispatch::ProgramSpec p;
  p.name = "measure";
  p.reader_path = kernel_path("dispatch_measure", "reader.cpp");
  p.compute_path = kernel_path("dispatch_measure", "compute.cpp");
  p.writer_path = kernel_path("dispatch_measure", "writer.cpp");
  p.depth = depth;
  return p;
}

double measure_host_fed_us(dispatch::Session& session, const HostFedOptions& o) {
  dispatch::LoadOptions lo;
  lo.batch = o.batch;
  lo.host_depth = o.host_depth;
  dispatch::Run& run = session.load(measure_program(o.depth), lo);
  const uint32_t cores = session.grid().x * session.grid().y;
  // Groups of `group` cores, one after the other over the grid.
  std::vector<uint32_t> firsts(o.n);
  for (uint32_t i = 0; i < o.n; ++i)
    firsts[i] = (i * o.group) % (cores - o.group + 1);
  const uint32_t counts[] = {o.group};
  const auto t0 = std::chrono::steady_clock::now();
  run.submit_many(0, firsts, counts, {}, 0);
  run.drain(60.0);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / o.n;
  run.stop();
  return us;
}

double measure_exclusive_period_us(dispatch::Session& session, uint32_t cores) {
  constexpr uint32_t kWarmup = 10, kMeasured = 100;
  dispatch::LoadOptions lo;
  lo.trace = kWarmup + kMeasured;
  dispatch::Run& run = session.load(measure_program(16), lo);
  std::vector<uint64_t> handles;
  for (uint32_t i = 0; i < kWarmup + kMeasured; ++i)
    handles.push_back(run.submit(0, dispatch::Group{0, cores}, {}, dispatch::SubmitFlags{.exclusive = true}));
  run.wait(handles, 30.0);
  run.stop();
  std::vector<double> periods;
  uint32_t previous = 0;
  for (uint32_t i = 0; i < handles.size(); ++i) {
    const uint32_t taken = run.trace(handles[i]).at(0).taken;
    if (i > kWarmup) periods.push_back((taken - previous) / double(KM_TIMER_MHZ));
    previous = taken;
  }
  std::nth_element(periods.begin(), periods.begin() + periods.size() / 2, periods.end());
  return periods[periods.size() / 2];
}

RunResult run_dispatch_measure(const RunOptions& o) {
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  const uint32_t cores = session->grid().x * session->grid().y;
  HostFedOptions hf;
  if (o.size) hf.n = o.size;
  const auto t0 = std::chrono::steady_clock::now(); // the four loads' builds count as running here
  const double host_fed = measure_host_fed_us(*session, hf);
  const uint32_t some = std::min(12u, cores);
  const double one = measure_exclusive_period_us(*session, 1);
  const double twelve = measure_exclusive_period_us(*session, some);
  const double all = measure_exclusive_period_us(*session, cores);
  char line[512];
  std::snprintf(line, sizeof line,
                "%u host-fed NOP commands: %.3f us/command (silicon 1.228: %.2fx); exclusive NOP period 1 core "
                "%.2f us (silicon 1.90: %.2fx), %u cores %.2f us (2.28: %.2fx), %u cores %.2f us (2.27: %.2fx)",
                hf.n, host_fed, host_fed / 1.228, one, one / 1.90, some, twelve, twelve / 2.28, cores, all, all / 2.27);
  RunResult r;
  r.passed = host_fed > 0 && one > 0 && twelve > 0 && all > 0;
  r.summary = line;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

} // namespace tessel::examples
