// dispatch_thread: an X280 thread that reduces a region while the grid
// works — the host sends 15 map jobs (each core doubling a bf16 tile) while
// a thread on work cluster 1 sums a region of uint32 values into a second
// region and, after each of its 4 chunks, sends a map job of its own: a
// third source of the dispatcher's one sequence. Checked against the host.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "dispatch_map/map_setup.hpp"
#include "example.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_dispatch_thread(const RunOptions& o) {
  constexpr uint32_t kJobs = 15, kChunks = 4, kValues = 1u << 16;
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  auto device = session->device_ptr();
  const uint32_t cores = device->grid().x * device->grid().y;
  // The host's jobs on the first half of the cores, the thread's on the second.
  const uint32_t group = std::max(1u, std::min(8u, cores / 2)), tiles = (kJobs + kChunks) * group;
  CommandQueue& cq = device->command_queue();
  MapSetup m = map_setup(device, tiles, 3, 8);
  dispatch::ProgramSpec& p = m.program;
  Lcg rng(4);
  std::vector<uint32_t> values(kValues);
  uint64_t expected_total = 0;
  for (uint32_t& v : values)
    expected_total += v = uint32_t(rng.next() >> 32);
  dispatch::X280Region in{"values", std::vector<uint8_t>(values.size() * 4)};
  std::memcpy(in.value.data(), values.data(), in.value.size());
  p.regions = {in, {"total", std::vector<uint8_t>(8)}};
  dispatch::X280ThreadSpec thread;
  thread.cluster = 1;
  thread.sources = {kernel_path("dispatch_thread", "reduce.cpp")};
  thread.regions = {"values", "total"};
  thread.words = {MapSetup::kHandlerMap, cores > 1 ? group : 0, group,  m.src->address(),
                  m.dst->address(),      kJobs * group,         kChunks};
  thread.deadline_s = 30;
  p.threads = {thread};

  const auto t_load = std::chrono::steady_clock::now();
  dispatch::Run& run = session->load(p);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> handles;
  for (uint32_t job = 0; job < kJobs; ++job) {
    const uint32_t args[] = {m.src->address(), m.dst->address(), job * group};
    handles.push_back(run.submit(MapSetup::kHandlerMap, dispatch::Group{0, group}, args));
  }
  run.wait(handles, 10.0);
  const dispatch::X280ThreadResult result = run.thread_result(30.0).at(0);
  run.stop();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  uint64_t total = 0;
  std::memcpy(&total, run.thread_read(1, "total").data(), 8);
  const size_t wrong = m.wrong(cq);
  RunResult r;
  r.passed = result.status == "done" && result.value == kChunks && total == expected_total && wrong == 0;
  char line[320];
  std::snprintf(line, sizeof line,
                "an X280 thread summed %u values in %u chunks (total %s) while the grid ran %u host jobs and %llu of "
                "the thread's on %u cores each (%zu wrong tiles)%s%s",
                kValues, result.value, total == expected_total ? "right" : "WRONG", kJobs,
                (unsigned long long)result.commands, group, wrong, result.error.empty() ? "" : ": ",
                result.error.c_str());
  r.summary = line;
  r.seconds = seconds;
  r.compile_seconds = std::chrono::duration<double>(t0 - t_load).count();
  return r;
}

} // namespace tessel::examples
