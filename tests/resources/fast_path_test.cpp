// The operation's fast path (src/resources/fast_path.cpp): a hit writes the
// dispatch words into a cached program without planning, so everything that
// could make that program the wrong one must be part of what the fast path
// keys on. Each case changes one such thing between two runs whose factory
// results have the same structure, and checks that the second run uses what
// changed (and builds again) instead of the program of the first.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/ops_kernel.hpp"
#include "tessel/buffer.hpp"
#include "tessel/operation.hpp"
#include "tessel/program_cache.hpp"

namespace tessel::test {
namespace {

// Writes one word into the recorder at slot 0. Runtime args: [recorder NoC x,
// y, L1 address, mode]. Mode 0 writes 0xA0; mode 1 the value of semaphore 1;
// mode 2 0xCB once it has CB 0's write pointer.
const char* const kProbeSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), addr = get_arg_val<uint32_t>(2);
  const uint32_t mode = get_arg_val<uint32_t>(3);
  uint32_t value = 0xA0;
  if (mode == 1) value = *reinterpret_cast<volatile uint32_t*>(get_semaphore(1));
  if (mode == 2) value = get_write_ptr(0) != 0 ? 0xCB : 0;
  noc_inline_dw_write(get_noc_addr(x, y, addr), value);
  noc_async_write_barrier();
}
)KERNEL";

// An operation with one captured data-movement kernel, the probe, on core (0,0).
struct Probe {
  std::shared_ptr<Device> device = open_device("blackhole", 2, 1);
  std::unique_ptr<Recorder> rec = std::make_unique<Recorder>(device);
  Kernel probe{KernelKind::DataMovement, "probe"};
  Operation op{"probe"};
  const CoreRangeSet launch = CoreCoord{0, 0};

  Probe() { op.add_kernel(OperationKernel{.kernel = probe, .source = kProbeSource, .source_is_path = false}); }

  // The same structure for every mode: one vector of four words on (0,0).
  RuntimeResourceFactory factory(uint32_t mode) const {
    const CoreCoord noc = rec->noc;
    const uint32_t addr = uint32_t(rec->buffer->address());
    const Kernel k = probe;
    return [=](const auto&, const CoreRangeSet&, uint32_t) {
      return ProgramRuntimeResources(
          {}, {KernelRuntimeResources(k, {CoreRuntimeArgs({0, 0}, {noc.x, noc.y, addr, mode})})});
    };
  }
  // Runs the operation in `mode`; returns the recorder's first `slots` words.
  std::vector<uint32_t> run(uint32_t mode, size_t slots = 1) {
    rec->clear();
    op.run(*device, {}, launch, factory(mode));
    const std::vector<uint32_t> words = rec->read();
    return std::vector<uint32_t>(words.begin(), words.begin() + slots);
  }
};

// A device opened where a destroyed one was (the allocator hands the same
// address back) has its own, empty program cache: the operation's fast path
// must not take the old device's program for it.
TEST(OperationFastPath, ADeviceAtADestroyedDevicesAddressBuildsAgain) {
  Probe p;
  EXPECT_EQ(p.run(0), std::vector<uint32_t>{0xA0u});
  EXPECT_EQ(p.run(0), std::vector<uint32_t>{0xA0u});
  EXPECT_EQ(p.device->program_cache().hits(), 1u);
  const Device* old_address = p.device.get();
  p.rec.reset(); // the recorder's buffer holds the device
  p.device.reset();
  // Take blocks of a Device's size until the allocator hands back the
  // destroyed device's, give that one back just before the next device is
  // made (so it is the next block of that size handed out), then the rest.
  std::vector<void*> taken;
  void* old_block = nullptr;
  while (!old_block && taken.size() < 4096) {
    void* block = ::operator new(sizeof(Device));
    (block == old_address ? old_block : taken.emplace_back()) = block;
  }
  if (old_block) ::operator delete(old_block);
  p.device = open_device("blackhole", 2, 1);
  for (void* block : taken)
    ::operator delete(block);
  if (p.device.get() != old_address)
    GTEST_SKIP() << "the allocator did not hand the destroyed device's address back (a sanitizer's quarantine keeps "
                    "it)";
  p.rec = std::make_unique<Recorder>(p.device);
  EXPECT_EQ(p.run(0), std::vector<uint32_t>{0xA0u});
  EXPECT_EQ(p.device->program_cache().misses(), 1u);
  EXPECT_EQ(p.device->program_cache().hits(), 0u);
  EXPECT_EQ(p.device->program_cache().entries(), 1u);
}

// close() drops the device's programs (its cache is cleared), so the fast
// path has nothing to write into: the run fails as any call on a closed
// device does.
TEST(OperationFastPath, AClosedDeviceIsNotRunFromTheFastPath) {
  Probe p;
  EXPECT_EQ(p.run(0), std::vector<uint32_t>{0xA0u});
  const RuntimeResourceFactory factory = p.factory(0);
  p.device->close();
  EXPECT_EQ(error_from<ValidationError>([&] { p.op.run(*p.device, {}, p.launch, factory); }),
            "compile_program: the device is closed");
}

// ---- The operation's declaration is part of the identity ----

// Writes 0xB0 into the recorder at slot 1. Compile args: [recorder NoC x, y, L1 address].
const char* const kSecondSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  constexpr uint32_t x = get_compile_time_arg_val(0), y = get_compile_time_arg_val(1);
  constexpr uint32_t addr = get_compile_time_arg_val(2);
  noc_inline_dw_write(get_noc_addr(x, y, addr + 4), 0xB0);
  noc_async_write_barrier();
}
)KERNEL";

TEST(OperationFastPath, AKernelDeclaredAfterARunRunsOnTheNext) {
  Probe p;
  EXPECT_EQ(p.run(0, 2), (std::vector<uint32_t>{0xA0u, 0}));
  EXPECT_EQ(p.run(0, 2), (std::vector<uint32_t>{0xA0u, 0}));
  p.op.add_kernel(OperationKernel{.kernel = Kernel(KernelKind::DataMovement, "second"),
                                  .source = kSecondSource,
                                  .source_is_path = false,
                                  .config = WriterConfigDescriptor{},
                                  .compile_args = {p.rec->noc.x, p.rec->noc.y, uint32_t(p.rec->buffer->address())}});
  EXPECT_EQ(p.run(0, 2), (std::vector<uint32_t>{0xA0u, 0xB0u}));
  EXPECT_EQ(p.device->program_cache().misses(), 2u);
  EXPECT_EQ(p.run(0, 2), (std::vector<uint32_t>{0xA0u, 0xB0u})); // and the new declaration has its own fast path
  EXPECT_EQ(p.device->program_cache().hits(), 2u);
}

TEST(OperationFastPath, ACircularBufferDeclaredAfterARunIsConfiguredOnTheNext) {
  Probe p;
  EXPECT_EQ(p.run(0), std::vector<uint32_t>{0xA0u});
  p.op.add_circular_buffer(2048, {{0, DataFormat::Float16_b, 2048}});
  EXPECT_EQ(p.run(2), std::vector<uint32_t>{0xCBu});
  EXPECT_EQ(p.device->program_cache().misses(), 2u);
}

TEST(OperationFastPath, ASemaphoreDeclaredAfterARunIsCreatedOnTheNext) {
  Probe p;
  p.op.add_semaphore(0);
  EXPECT_EQ(p.run(0), std::vector<uint32_t>{0xA0u});
  p.op.add_semaphore(0x5E);
  EXPECT_EQ(p.run(1), std::vector<uint32_t>{0x5Eu});
  EXPECT_EQ(p.device->program_cache().misses(), 2u);
}

// ---- Runtime-owned words are structure by their count ----

// Copies its runtime-owned words into the recorder: the first says how many
// follow. Compile arg 0: the caller's argument count (the runtime's).
const char* const kOwnedSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  constexpr uint32_t n = get_compile_time_arg_val(0);
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), addr = get_arg_val<uint32_t>(2);
  const uint32_t count = get_arg_val<uint32_t>(n);
  for (uint32_t i = 0; i <= count; ++i)
    noc_inline_dw_write(get_noc_addr(x, y, addr + 4 * i), get_arg_val<uint32_t>(n + i));
  noc_async_write_barrier();
}
)KERNEL";

// The runtime's words for a core change in number between runs: the run
// with more words builds a program whose slots hold them all, and is
// called once per core per run.
TEST(OperationFastPath, RuntimeOwnedWordsOfAnotherCountBuildAgain) {
  auto device = open_device("blackhole", 2, 1);
  Recorder rec(device);
  uint32_t count = 1, calls = 0;
  Operation op("owned");
  OperationKernel k;
  k.kernel = KernelKind::DataMovement;
  k.source = kOwnedSource;
  k.source_is_path = false;
  k.runtime_words = [&](CoreCoord c) {
    ++calls;
    std::vector<uint32_t> words{count};
    for (uint32_t i = 1; i <= count; ++i)
      words.push_back(0xE000u + 0x10 * c.x + i);
    return words;
  };
  op.add_kernel(std::move(k));
  const uint32_t addr = uint32_t(rec.buffer->address());
  const CoreRangeSet launch = CoreCoord{0, 0};
  const RuntimeResourceFactory factory = [&](const auto&, const CoreRangeSet&, uint32_t) {
    return ProgramRuntimeResources(
        {},
        {KernelRuntimeResources(KernelKind::DataMovement, {CoreRuntimeArgs({0, 0}, {rec.noc.x, rec.noc.y, addr})})});
  };
  auto run = [&](uint32_t words) {
    count = words;
    calls = 0;
    rec.clear();
    op.run(*device, {}, launch, factory);
    EXPECT_EQ(calls, 1u) << "runtime_words is called once per core per run";
    const std::vector<uint32_t> got = rec.read();
    return std::vector<uint32_t>(got.begin(), got.begin() + 4);
  };
  EXPECT_EQ(run(1), (std::vector<uint32_t>{1, 0xE001u, 0, 0}));
  EXPECT_EQ(run(1), (std::vector<uint32_t>{1, 0xE001u, 0, 0}));
  EXPECT_EQ(device->program_cache().hits(), 1u);
  EXPECT_EQ(run(3), (std::vector<uint32_t>{3, 0xE001u, 0xE002u, 0xE003u}));
  EXPECT_EQ(device->program_cache().misses(), 2u);
  EXPECT_EQ(run(1), (std::vector<uint32_t>{1, 0xE001u, 0, 0})); // the first program again, from the fast path
  EXPECT_EQ(device->program_cache().misses(), 2u);
  EXPECT_EQ(device->program_cache().entries(), 2u);
}

// Writes the L1 bank (logical core index) of its tensor's page 0, as its
// TensorAccessor finds it from the accessor's compile args, to the recorder.
const char* const kPageZeroSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
#include "api/tensor/tensor_accessor.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), addr = get_arg_val<uint32_t>(2);
  constexpr auto args = TensorAccessorArgs<0>();
  const auto tensor = TensorAccessor(args, get_common_arg_val<uint32_t>(0));
  const uint64_t at = tensor.get_noc_addr(0);
  noc_inline_dw_write(get_noc_addr(x, y, addr), uint32_t(at >> 32));
  noc_async_write_barrier();
}
)KERNEL";

// Two sharded tensors with the same page sizes and accessor-arg count but
// their shards on other banks: the accessor's compile args differ, so the
// second run must not reuse the first's program.
TEST(OperationFastPath, TensorsSharedOnOtherBanksBuildAgain) {
  auto device = open_device("blackhole", 2, 1);
  Recorder rec(device);
  Operation op("page_zero");
  Kernel k{KernelKind::DataMovement, "page_zero"};
  op.add_kernel(OperationKernel{.kernel = k, .source = kPageZeroSource, .source_is_path = false});
  const uint32_t addr = uint32_t(rec.buffer->address());
  const RuntimeResourceFactory factory = [&](const auto&, const CoreRangeSet&, uint32_t) {
    return ProgramRuntimeResources(
        {}, {KernelRuntimeResources(k, {CoreRuntimeArgs({0, 0}, {rec.noc.x, rec.noc.y, addr})})});
  };
  auto sharded = [&](std::vector<uint32_t> banks) {
    return Buffer::create(device, {2 * 64, 64, BufferType::L1, ShardSpec{{2}, {1}, std::move(banks)}});
  };
  auto page_zero_noc = [&](const std::shared_ptr<Buffer>& t) {
    rec.clear();
    op.run(*device, {t}, CoreCoord{0, 0}, factory);
    return rec.read()[0];
  };
  const auto on_0 = sharded({0, 1}), on_1 = sharded({1, 0});
  const uint32_t first = page_zero_noc(on_0);
  const uint32_t second = page_zero_noc(on_1);
  EXPECT_NE(first, second) << "page 0 of the second tensor is on bank 1, not bank 0";
  EXPECT_EQ(page_zero_noc(on_0), first);
  EXPECT_EQ(device->program_cache().misses(), 2u);
  EXPECT_EQ(device->program_cache().entries(), 2u);
}

} // namespace
} // namespace tessel::test
