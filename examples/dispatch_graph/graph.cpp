// dispatch_graph: the persistent-dispatch spec's examples/06_graph in C++ —
// a kept graph (step on every row's core, left and right on halves, norm,
// then a cpu node counting iterations while error < limit) started, then
// restarted with other bindings and no new upload, then released; both
// state tensors checked against the same loop on the host.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "example.hpp"
#include "tessel/dispatch/engines.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/engine_abi.h"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {

constexpr uint32_t kWords = 16, kRowBytes = kWords * 4;

struct Model {
  std::vector<uint32_t> x;
  uint32_t iteration = 0, error = 0, rounds = 0;
};

// The graph's loop on the host.
Model model(std::vector<uint32_t> x, uint32_t rows, uint32_t iteration, uint32_t limit) {
  Model m;
  const uint32_t half = rows / 2;
  for (;;) {
    uint64_t sum = 0;
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t j = 0; j < kWords; ++j) {
        uint32_t& v = x[r * kWords + j];
        v += iteration + 1;
        v = r < half ? v * 2 : v + v / 2;
        sum += v;
      }
    m.error = uint32_t(std::min<uint64_t>(sum, 0xFFFFFFFFu));
    ++iteration;
    ++m.rounds;
    if (!(m.error < limit)) break;
  }
  m.x = std::move(x);
  m.iteration = iteration;
  return m;
}

} // namespace

RunResult run_dispatch_graph(const RunOptions& o) {
  constexpr uint32_t kStep = 1, kLeft = 2, kRight = 3, kNorm = 4, kReq = 6;
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  auto device = session->device_ptr();
  const uint32_t rows = std::min(60u, device->grid().x * device->grid().y), half = rows / 2;
  CommandQueue& cq = device->command_queue();
  Lcg rng(6);
  std::vector<uint32_t> x0(rows * kWords), y0(rows * kWords);
  for (uint32_t& v : x0)
    v = uint32_t(rng.next() >> 58);
  for (uint32_t& v : y0)
    v = uint32_t(rng.next() >> 58);
  auto x = Buffer::create(device, {x0.size() * 4, kRowBytes, BufferType::DRAM});
  auto y = Buffer::create(device, {y0.size() * 4, kRowBytes, BufferType::DRAM});
  cq.enqueue_write_buffer(*x, x0.data(), x0.size() * 4);
  cq.enqueue_write_buffer(*y, y0.data(), y0.size() * 4);

  dispatch::ProgramSpec p;
  p.name = "graph";
  p.reader_path = kernel_path("dispatch_graph", "reader.cpp");
  p.compute_path = kernel_path("dispatch_graph", "compute.cpp");
  p.writer_path = kernel_path("dispatch_graph", "writer.cpp");
  p.buffers = {{0, "uint32", kRowBytes, 1}};
  p.handlers = {{"step", kStep}, {"left", kLeft}, {"right", kRight}, {"norm", kNorm}};

  auto graph = std::make_shared<dispatch::Graph>(200000, 50, kReq, true);
  const auto state = graph->binding("state"), iteration = graph->binding("iteration"), limit = graph->binding("limit");
  const auto error = graph->add_register();
  const auto step = graph->command(kStep, {0, rows}, {state, iteration});
  const auto left = graph->command(kLeft, {0, half}, {state}, {step});
  const auto right = graph->command(kRight, {half, rows - half}, {state}, {step});
  const auto norm = graph->command(kNorm, {0, rows}, {state, graph->constant(rows)}, {left, right}, error);
  const auto cpu = graph->cpu({norm});
  graph->op_imm(cpu, KM_OP_ADD, iteration, iteration, 1);
  graph->op(cpu, KM_OP_LT, graph->again(), error, limit); // go round again while error < limit

  const auto t_load = std::chrono::steady_clock::now();
  dispatch::Run& run = session->load(p);
  const auto t0 = std::chrono::steady_clock::now();
  auto upload = run.upload(graph->encode(), "graph", graph);
  auto first =
      run.start(upload, graph->binding_values({{"state", x->address()}, {"iteration", 0}, {"limit", 1000000}}));
  run.wait_engine(first, 10.0);
  const auto t1 = std::chrono::steady_clock::now();
  auto second =
      run.restart(kReq, graph->binding_values({{"state", y->address()}, {"iteration", 3}, {"limit", 10000000}}));
  const dispatch::EngineEvent end = run.wait_engine(second, 10.0);
  const auto t2 = std::chrono::steady_clock::now();
  run.release(upload);
  run.stop();

  std::vector<uint32_t> xs(x0.size()), ys(y0.size());
  cq.enqueue_read_buffer(*x, xs.data(), xs.size() * 4);
  cq.enqueue_read_buffer(*y, ys.data(), ys.size() * 4);
  const Model mx = model(x0, rows, 0, 1000000), my = model(y0, rows, 3, 10000000);
  const auto rounds = [](const dispatch::EngineHandle& h) {
    return uint32_t(std::count_if(h.events.begin(), h.events.end(), [](const auto& e) { return e.kind == "round"; })) +
           1;
  };
  const uint32_t r1 = rounds(*first), r2 = rounds(*second);
  RunResult r;
  r.passed = xs == mx.x && ys == my.x && r1 == mx.rounds && r2 == my.rounds && end.registers.first == my.iteration &&
             end.registers.second == my.error && upload->state == "released";
  const double us2 = std::chrono::duration<double, std::micro>(t2 - t1).count() / r2;
  char line[320];
  std::snprintf(line, sizeof line,
                "graph on %u rows (%s %ux%u): started, %u rounds; restarted, %u rounds (%.0f us a round), iteration "
                "%u, error %u; released; state tensors %s the host's loop",
                rows, device->arch_name().c_str(), device->grid().x, device->grid().y, r1, r2, us2, end.registers.first,
                end.registers.second, r.passed ? "match" : "DIFFER from");
  r.summary = line;
  r.seconds = std::chrono::duration<double>(t2 - t0).count();
  r.compile_seconds = std::chrono::duration<double>(t0 - t_load).count();
  return r;
}

} // namespace tessel::examples
