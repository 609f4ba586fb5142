// dispatch_stream: a stream that submits a pipeline of commands and reports
// its progress with EVENTs — 24 jobs of up to 8 cores (each core doubling a
// bf16 tile, the map example's kernels) enqueued by the card with no host
// step between them, a WAIT and an EVENT after every 4th job — checked
// against the host.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "example.hpp"
#include "tessel/dispatch/engines.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/engine_abi.h"
#include "tessel/tensor_accessor_args.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_dispatch_stream(const RunOptions& o) {
  constexpr uint32_t kJobs = 24, kEvery = 4, kHandlerMap = 1, kTileBytes = 2048;
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  auto device = session->device_ptr();
  const uint32_t group = std::min(8u, device->grid().x * device->grid().y), tiles = kJobs * group;
  CommandQueue& cq = device->command_queue();
  Lcg rng(2);
  std::vector<float> x(size_t(tiles) * 1024);
  for (float& v : x)
    v = bf16_to_float(float_to_bf16(float(rng.uniform(-4, 4))));
  const std::vector<uint8_t> packed = pack_tiles(tilize(x, tiles * 32, 32), DataFormat::Float16_b);
  auto src = Buffer::create(device, {packed.size(), kTileBytes, BufferType::DRAM});
  auto dst = Buffer::create(device, {packed.size(), kTileBytes, BufferType::DRAM});
  cq.enqueue_write_buffer(*src, packed.data(), packed.size());

  dispatch::ProgramSpec p;
  p.name = "map";
  p.reader_path = kernel_path("dispatch_map", "reader.cpp");
  p.compute_path = kernel_path("dispatch_map", "compute.cpp");
  p.writer_path = kernel_path("dispatch_map", "writer.cpp");
  p.buffers = {{0, "bfloat16", kTileBytes, 2}, {16, "bfloat16", kTileBytes, 2}};
  TensorAccessorArgs(*src).append_to(p.reader_compile_args);
  TensorAccessorArgs(*dst).append_to(p.writer_compile_args);
  p.handlers = {{"map", kHandlerMap}};
  p.depth = 8;

  // r0 jobs done, r1 the job's first tile, r2 scratch, r3 the job count (a binding).
  using A = dispatch::Stream::Arg;
  dispatch::Stream s(2, 10000000);
  const auto done = dispatch::Stream::reg(0), tile = dispatch::Stream::reg(1), scratch = dispatch::Stream::reg(2),
             count = dispatch::Stream::reg(3);
  const auto top = s.label(), skip = s.label();
  s.place(top);
  s.submit(kHandlerMap, {false, 0, group}, {A::word(src->address()), A::word(dst->address()), A::reg(tile)}, 0,
           std::nullopt, true);
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

  const auto t0 = std::chrono::steady_clock::now();
  dispatch::Run& run = session->load(p);
  auto handle = run.start(run.upload(s.encode(), "stream"), {0, 0, 0, kJobs});
  const dispatch::EngineEvent end = run.wait_engine(handle, 20.0);
  run.stop();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<uint8_t> out(packed.size());
  cq.enqueue_read_buffer(*dst, out.data(), out.size());
  const std::vector<float> y = untilize(unpack_tiles(out, DataFormat::Float16_b), tiles * 32, 32);
  size_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i)
    wrong += y[i] != 2 * x[i];
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
  return r;
}

} // namespace tessel::examples
