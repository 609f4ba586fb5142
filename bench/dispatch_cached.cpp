// dispatch_cached: an Operation with a runtime resource factory, dispatched
// again and again on all 120 cores of Blackhole with new per-core words each
// call (every call a program-cache hit): host µs per dispatch and where they
// go (factory, validation, planning, key + lookup + word writes, enqueue and
// the simulated run of null kernels). Reference in the same run: enqueueing
// the cached Program directly with its words changed in place (the
// `dispatch` benchmark's path).
#include <chrono>
#include <string>
#include <vector>

#include "bench.hpp"
#include "tessel/tessel.hpp"

namespace tessel::bench {

namespace {
constexpr const char* kNullKernel = R"(
#include "api/dataflow/dataflow_api.h"
void kernel_main() {}
)";
} // namespace

void run_dispatch_cached() {
  auto device = Device::open({"blackhole"});
  const CoreCoord g = device->grid();
  const CoreRange all({0, 0}, {g.x - 1, g.y - 1});
  Operation op("null");
  op.add_kernel(OperationKernel{.kernel = KernelKind::DataMovement, .source = kNullKernel, .source_is_path = false});
  uint32_t call = 0;
  const std::vector<CoreCoord> cores = all.cores();
  RuntimeResourceFactory factory = [&](const std::vector<std::shared_ptr<Buffer>>&, const CoreRangeSet&, uint32_t) {
    std::vector<CoreRuntimeArgs> args;
    args.reserve(cores.size());
    for (CoreCoord c : cores)
      args.emplace_back(c, std::vector<uint32_t>{call, c.x, c.y});
    std::vector<KernelRuntimeResources> entries; // moved, not copied from an initializer list
    entries.emplace_back(KernelKind::DataMovement, std::move(args));
    return ProgramRuntimeResources({}, std::move(entries));
  };
  op.run(*device, {}, all, factory); // compile: the one miss

  const int iterations = 2000;
  OperationTimings sum;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    ++call;
    op.run(*device, {}, all, factory);
    const OperationTimings& t = op.last_timings();
    sum.factory += t.factory, sum.validate += t.validate, sum.plan += t.plan, sum.lookup += t.lookup;
    sum.execute += t.execute;
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Reference: the cached program enqueued directly, words changed in place.
  Program& program = device->program_cache().get(op.plan({}, all, factory({}, all, 0)));
  std::vector<std::span<uint32_t>> slots;
  for (CoreCoord c : cores)
    slots.push_back(program.runtime_args(0, c));
  auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    for (auto& s : slots)
      s[0] = uint32_t(i);
    device->command_queue().enqueue_program(program);
  }
  const double direct = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();

  const double us = total / iterations * 1e6;
  figure("dispatch_cached_us", us, "us");
  figure("dispatch_cached_factory_share", sum.factory / total, "share");
  figure("dispatch_cached_validate_share", sum.validate / total, "share");
  figure("dispatch_cached_plan_share", sum.plan / total, "share");
  figure("dispatch_cached_lookup_and_words_share", sum.lookup / total, "share");
  figure("dispatch_cached_enqueue_and_run_share", sum.execute / total, "share");
  figure("dispatch_cached_direct_enqueue_us", direct / iterations * 1e6, "us");
  figure("dispatch_cached_ratio_to_direct", total / direct, "x");
  figure("dispatch_cached_cache_entries", double(device->program_cache().entries()), "entries");
  figure("dispatch_cached_cache_hits", double(device->program_cache().hits()), "hits");
}

} // namespace tessel::bench
