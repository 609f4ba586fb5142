// dispatch_broadcast: the persistent-dispatch spec's examples/03_broadcast
// shape — one core multicasting 16 blocks of 4 pages to a rectangle (the
// whole grid) through the broadcast protocol, window 2, 40 jobs — with every
// core's checksum of every job checked against the host's.
#include <chrono>
#include <cstdio>

#include "example.hpp"
#include "tessel/dispatch/layout.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/persistent_abi.h"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_dispatch_broadcast(const RunOptions& o) {
  constexpr uint32_t kBlocks = 16, kPages = 4, kWindow = 2, kPageBytes = 2048, kHandler = 1;
  const uint32_t jobs = o.size ? o.size : 40;
  const bool check = o.op != "no-check"; // --op no-check: move the blocks only (the spec's timing)
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  auto device = session->device_ptr();
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t cores = grid.x * grid.y;

  const uint32_t words_per_job = kBlocks * kPages * kPageBytes / 4;
  std::vector<uint32_t> input(size_t(jobs) * words_per_job);
  Lcg rng(3);
  for (uint32_t& w : input)
    w = uint32_t(rng.next() >> 32);
  auto in = Buffer::create(device, {input.size() * 4, kPageBytes, BufferType::DRAM});
  auto out = Buffer::create(device, {uint64_t(jobs) * cores * 64, 64, BufferType::DRAM});
  cq.enqueue_write_buffer(*in, input);

  dispatch::ProgramSpec p;
  p.name = "broadcast";
  p.reader_path = kernel_path("dispatch_broadcast", "reader.cpp");
  p.compute_path = kernel_path("dispatch_broadcast", "compute.cpp");
  p.writer_path = kernel_path("dispatch_broadcast", "writer.cpp");
  p.buffers = {{0, "uint32", kPageBytes, kWindow * kPages}, {1, "uint32", 64, 1}};
  TensorAccessorArgs(*in).append_to(p.reader_compile_args);
  TensorAccessorArgs(*out).append_to(p.reader_compile_args);
  p.handlers = {{"broadcast", kHandler}};
  const auto t_load = std::chrono::steady_clock::now();
  dispatch::Run& run = session->load(p);
  const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();

  const std::array<uint32_t, 4> bargs =
      dispatch::broadcast_args(*device, CoreCoord{0, 0}, CoreCoord{grid.x - 1, grid.y - 1}, CoreCoord{0, 0});
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> handles;
  for (uint32_t job = 0; job < jobs; ++job) {
    const uint32_t args[] = {bargs[0],
                             bargs[1],
                             bargs[2],
                             bargs[3],
                             in->address(),
                             out->address(),
                             job,
                             kBlocks,
                             kPages | kWindow << 16,
                             check ? 1u : 0u};
    handles.push_back(run.submit(kHandler, dispatch::Group{0, cores}, args));
  }
  run.wait(handles, 30.0);
  const double run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double us_per_job = run_seconds * 1e6 / jobs;
  run.stop();

  std::vector<uint32_t> sums;
  cq.enqueue_read_buffer(*out, sums);
  size_t wrong = 0;
  for (uint32_t job = 0; job < jobs && check; ++job) {
    uint32_t expected = 0;
    for (uint32_t i = 0; i < words_per_job; ++i)
      expected += input[size_t(job) * words_per_job + i];
    for (uint32_t c = 0; c < cores; ++c)
      wrong += sums[(size_t(job) * cores + c) * 16] != expected;
  }
  RunResult r;
  r.passed = wrong == 0;
  char line[320];
  std::snprintf(line, sizeof line,
                "%u jobs: core (0,0) multicast %u blocks of %u pages (window %u) to %u cores (%s %ux%u), %s; host "
                "time %.1f us per job (silicon 47.9: %.2fx)",
                jobs, kBlocks, kPages, kWindow, cores - 1, device->arch_name().c_str(), grid.x, grid.y,
                check ? (std::to_string(wrong) + " wrong checksums").c_str() : "not checked", us_per_job,
                us_per_job / 47.9);
  r.summary = line;
  r.seconds = run_seconds;
  r.compile_seconds = load_seconds;
  return r;
}

} // namespace tessel::examples
