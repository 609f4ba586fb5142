// operation_collective: see operation_collective.hpp.
#include "operation_collective/operation_collective.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "tessel/runner.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {
constexpr CoreCoord kSenderCore{0, 0}, kReceiverCore{1, 0};
} // namespace

Operation make_collective_operation(DataFormat format) {
  Operation op("collective");
  OperationKernel k;
  k.kernel = Kernel(KernelKind::DataMovement, "sender");
  k.source = kernel_path("operation_collective", "collective.cpp");
  k.config = ReaderConfigDescriptor{};
  k.compile_args = {0};
  k.specializations = {{kReceiverCore, {1}}};
  k.defines = {{"COLLECTIVE_CB", "0"}};
  op.add_kernel(std::move(k));
  op.add_circular_buffer(tile_size(format), {{0, format, tile_size(format)}});
  return op;
}

RuntimeResourceFactory make_collective_factory(const Kernel& sender, CoreCoord receiver_noc, CollectiveTiles tiles) {
  return [=](const std::vector<std::shared_ptr<Buffer>>&, const CoreRangeSet& cores, uint32_t first_free) {
    const uint32_t sem = first_free;
    return ProgramRuntimeResources(
        {SemaphoreDescriptor{sem, cores, 0}},
        {KernelRuntimeResources(sender, {CoreRuntimeArgs(kSenderCore, {sem, tiles.first_src, tiles.first_dst,
                                                                       receiver_noc.x, receiver_noc.y}),
                                         CoreRuntimeArgs(kReceiverCore, {sem, tiles.first_dst, tiles.second_dst,
                                                                         receiver_noc.x, receiver_noc.y})})});
  };
}

RunResult run_collective_twice(const RunOptions& o, const Operation& op, const Kernel& sender,
                               const OperationRun& run) {
  using Clock = std::chrono::steady_clock;
  const uint32_t num_tiles = o.size ? o.size : 4;
  if (num_tiles < 3)
    throw ValidationError("operation_collective needs at least 3 tiles per tensor, got --size " +
                          std::to_string(num_tiles));
  if (op.circular_buffers().empty() || op.circular_buffers()[0].format_descriptors.empty())
    throw ValidationError("operation '" + op.name() +
                          "' has no CB 0; expected an operation built like make_collective_operation");
  const CBFormatDescriptor cb = op.circular_buffers()[0].format_descriptors[0];
  const uint32_t page = cb.page_size;

  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  if (device->grid().x < 2)
    throw ValidationError("operation_collective needs cores (0,0) and (1,0), but the " + device->arch_name() +
                          " grid is " + std::to_string(device->grid().x) + "x" + std::to_string(device->grid().y) +
                          "; run it on a grid of at least 2x1 (e.g. --grid 2x1)");
  const CoreRangeSet launch = CoreRange(kSenderCore, kReceiverCore);
  const CoreCoord receiver_noc = device->worker_core_from_logical_core(kReceiverCore);

  // Distinct values per tile; outputs start as a poison pattern.
  std::vector<float> values(size_t(num_tiles) * kTileHW);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(i / kTileHW + 1) + float(i % 64) / 64.0f;
  const std::vector<uint8_t> input = pack_tiles(values, cb.data_format);
  const std::vector<uint8_t> poison(input.size(), 0xA5);
  auto in = Buffer::create(device, {uint64_t(num_tiles) * page, page, BufferType::DRAM});
  in->write(input.data(), input.size());

  RunResult r;
  r.passed = true;
  std::string detail;
  const CollectiveTiles runs[2] = {{0, 1, num_tiles - 1}, {num_tiles - 1, 0, num_tiles - 2}};
  for (int n = 0; n < 2; ++n) {
    const CollectiveTiles t = runs[n];
    auto out = Buffer::create(device, {uint64_t(num_tiles) * page, page, BufferType::DRAM});
    out->write(poison.data(), poison.size());
    const auto t0 = Clock::now();
    run(*device, {in, out}, launch, make_collective_factory(sender, receiver_noc, t));
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.seconds += op.last_timings().execute;
    r.compile_seconds += seconds - op.last_timings().execute;

    std::vector<uint8_t> got(input.size());
    out->read(got.data(), got.size());
    for (uint32_t tile = 0; tile < num_tiles; ++tile) {
      const bool copied = tile == t.first_dst || tile == t.second_dst;
      const uint8_t* want = copied ? input.data() + size_t(t.first_src) * page : poison.data();
      if (!std::equal(want, want + page, got.begin() + size_t(tile) * page)) {
        r.passed = false;
        detail += "; run " + std::to_string(n + 1) + " output tile " + std::to_string(tile) +
                  (copied ? " is not input tile " + std::to_string(t.first_src) : std::string(" was overwritten"));
      }
    }
  }
  const ProgramCache& cache = device->program_cache();
  if (cache.misses() != 1 || cache.hits() != 1) {
    r.passed = false;
    detail += "; program cache: " + std::to_string(cache.misses()) + " misses and " + std::to_string(cache.hits()) +
              " hits, expected 1 and 1";
  }
  auto chain = [](const CollectiveTiles& t) {
    return "tile " + std::to_string(t.first_src) + " -> " + std::to_string(t.first_dst) + " -> " +
           std::to_string(t.second_dst);
  };
  r.summary = "2 runs of operation '" + op.name() + "' on cores (0,0) and (1,0) (" + device->arch_name() + "), " +
              std::to_string(num_tiles) + " " + to_string(cb.data_format) + " tiles: run 1 " + chain(runs[0]) +
              ", run 2 " + chain(runs[1]) +
              " with a program-cache hit: " + (r.passed ? "every tile matches" : "MISMATCH" + detail);
  return r;
}

RunResult run_operation_collective(const RunOptions& o) {
  Operation op = make_collective_operation(o.format.empty() ? DataFormat::Float16_b : parse_data_format(o.format));
  const Kernel sender = find_captured_kernel(op, "sender");
  return run_collective_twice(o, op, sender,
                              [&](Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors,
                                  const CoreRangeSet& launch,
                                  const RuntimeResourceFactory& factory) { op.run(device, tensors, launch, factory); });
}

} // namespace tessel::examples
