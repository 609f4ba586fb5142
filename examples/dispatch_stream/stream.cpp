// dispatch_stream: a stream that submits a pipeline of commands and reports
// its progress with EVENTs — 24 jobs of up to 8 cores (each core doubling a
// bf16 tile, the map example's kernels) enqueued by the card with no host
// step between them, a WAIT and an EVENT after every 4th job — checked
// against the host.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "dispatch_map/map_setup.hpp"
#include "example.hpp"
#include "tessel/dispatch/engines.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/engine_abi.h"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_dispatch_stream(const RunOptions& o) {
  constexpr uint32_t kJobs = 24, kEvery = 4;
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  auto device = session->device_ptr();
  const uint32_t group = std::min(8u, device->grid().x * device->grid().y), tiles = kJobs * group;
  CommandQueue& cq = device->command_queue();
  const MapSetup m = map_setup(device, tiles, 2, 8);
  const dispatch::ProgramSpec& p = m.program;

  // r0 jobs done, r1 the job's first tile, r2 scratch, r3 the job count (a binding).
  using A = dispatch::Stream::Arg;
  dispatch::Stream s(2, 10000000);
  const auto done = dispatch::Stream::reg(0), tile = dispatch::Stream::reg(1), scratch = dispatch::Stream::reg(2),
             count = dispatch::Stream::reg(3);
  const auto top = s.label(), skip = s.label();
  s.place(top);
  s.submit(MapSetup::kHandlerMap, {false, 0, group},
           {A::word(m.src->address()), A::word(m.dst->address()), A::reg(tile)}, 0, std::nullopt, true);
  s.alu_imm(KM_OP_ADD, tile, tile, group);
  s.alu_imm(KM_OP_ADD, done, done, 1);
  s.alu_imm(KM_OP_AND, scratch, done, kEvery - 1);
  s.bnz(scratch, skip);
  s.wait();
  s.event(done);
  s.place(skip);
  s.alu(KM_OP_LT, scratch, done, count);
  s.bnz(scratch, top);
  s.wait();
  s.halt(done);

  const auto t_load = std::chrono::steady_clock::now();
  dispatch::Run& run = session->load(p);
  const auto t0 = std::chrono::steady_clock::now();
  auto handle = run.start(run.upload(s.encode(), "stream"), {0, 0, 0, kJobs});
  const dispatch::EngineEvent end = run.wait_engine(handle, 20.0);
  run.stop();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const size_t wrong = m.wrong(cq);
  std::string progress;
  uint32_t expected = kEvery;
  bool in_order = true;
  for (const dispatch::EngineEvent& e : handle->events)
    if (e.kind == "event") {
      progress += (progress.empty() ? "" : ",") + std::to_string(e.value);
      in_order &= e.value == expected;
      expected += kEvery;
    }
  RunResult r;
  r.passed = wrong == 0 && end.value == kJobs && in_order && expected == kJobs + kEvery;
  char line[256];
  std::snprintf(line, sizeof line,
                "a stream enqueued %u jobs of %u cores (%u bf16 tiles doubled, %zu wrong) with progress events %s",
                end.value, group, tiles, wrong, progress.c_str());
  r.summary = line;
  r.seconds = seconds;
  r.compile_seconds = std::chrono::duration<double>(t0 - t_load).count();
  return r;
}

} // namespace tessel::examples
