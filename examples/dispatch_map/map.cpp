// dispatch_map: the persistent-dispatch spec's opening snippet in C++ — 15
// jobs of 8 cores, each core doubling one bf16 tile (reader -> compute ->
// writer in one handler), wait, stop, the trace — checked against the host.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "dispatch_map/map_setup.hpp"
#include "example.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_dispatch_map(const RunOptions& o) {
  constexpr uint32_t kJobs = 15;
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  auto device = session->device_ptr();
  const uint32_t cores = device->grid().x * device->grid().y;
  const uint32_t kGroup = std::min(8u, cores); // 8 as the spec's snippet; a small grid's whole grid
  const uint32_t tiles = kJobs * kGroup;
  CommandQueue& cq = device->command_queue();
  const MapSetup m = map_setup(device, tiles, 7);
  const dispatch::ProgramSpec& p = m.program;
  dispatch::LoadOptions lo;
  lo.trace = 64;

  const auto t_load = std::chrono::steady_clock::now();
  dispatch::Run& run = session->load(p, lo);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> handles;
  for (uint32_t job = 0; job < kJobs; ++job) {
    const uint32_t args[] = {m.src->address(), m.dst->address(), job * kGroup};
    const uint32_t first = (job * kGroup) % (cores - kGroup + 1);
    handles.push_back(run.submit(p.handler("map"), dispatch::Group{first, kGroup}, args));
  }
  run.wait(handles, 5.0);
  run.stop();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const size_t wrong = m.wrong(cq);
  const std::vector<dispatch::TraceEntry> last = run.trace(handles.back());
  uint32_t first_take = ~0u, last_sent = 0;
  for (const dispatch::TraceEntry& t : last) {
    first_take = std::min(first_take, t.taken);
    last_sent = std::max(last_sent, t.written);
  }
  RunResult r;
  r.passed = wrong == 0 && last.size() == kGroup;
  char line[256];
  std::snprintf(line, sizeof line,
                "%u jobs of %u cores doubled %u bf16 tiles on %s %ux%u (%zu wrong); the last job's cores finished "
                "within %.1f us of its first take",
                kJobs, kGroup, tiles, device->arch_name().c_str(), device->grid().x, device->grid().y, wrong,
                (last_sent - first_take) / 50.0);
  r.summary = line;
  r.seconds = seconds;
  r.compile_seconds = std::chrono::duration<double>(t0 - t_load).count();
  return r;
}

} // namespace tessel::examples
