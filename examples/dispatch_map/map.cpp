// dispatch_map: the persistent-dispatch spec's opening snippet in C++ — 15
// jobs of 8 cores, each core doubling one bf16 tile (reader -> compute ->
// writer in one handler), wait, stop, the trace — checked against the host.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "example.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/tensor_accessor_args.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

RunResult run_dispatch_map(const RunOptions& o) {
  constexpr uint32_t kJobs = 15, kHandlerMap = 1, kTileBytes = 2048;
  dispatch::SessionConfig sc;
  sc.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  auto session = dispatch::Session::open(sc);
  auto device = session->device_ptr();
  const uint32_t cores = device->grid().x * device->grid().y;
  const uint32_t kGroup = std::min(8u, cores); // 8 as the spec's snippet; a small grid's whole grid
  const uint32_t tiles = kJobs * kGroup;
  CommandQueue& cq = device->command_queue();

  // The input: tiles x 32 rows of 32 bf16 values, tilized, one tile a page.
  Lcg rng(7);
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
  dispatch::LoadOptions lo;
  lo.trace = 64;

  const auto t0 = std::chrono::steady_clock::now();
  dispatch::Run& run = session->load(p, lo);
  std::vector<uint64_t> handles;
  for (uint32_t job = 0; job < kJobs; ++job) {
    const uint32_t args[] = {src->address(), dst->address(), job * kGroup};
    const uint32_t first = (job * kGroup) % (cores - kGroup + 1);
    handles.push_back(run.submit(p.handler("map"), dispatch::Group{first, kGroup}, args));
  }
  run.wait(handles, 5.0);
  run.stop();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<uint8_t> out(packed.size());
  cq.enqueue_read_buffer(*dst, out.data(), out.size());
  const std::vector<float> y = untilize(unpack_tiles(out, DataFormat::Float16_b), tiles * 32, 32);
  size_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i)
    wrong += y[i] != 2 * x[i];
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
  return r;
}

} // namespace tessel::examples
