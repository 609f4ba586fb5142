// Operations with runtime resources: a two-core operation whose captured
// data-movement Kernel gets per-core words and a caller semaphore runs, then
// runs again with new factory values (new outputs, a cache hit, no rebuild),
// over bf16 and fp32 tensors, with and without core specialisation; every
// validation rule with its exact message, and an invalid result changing
// nothing; lifetimes replaced on success and kept on failure; runtime-owned
// words after the caller's.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/ops_kernel.hpp"
#include "tessel/operation.hpp"
#include "tessel/program_cache.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

// Core role 0 copies its tile, then raises the peer's semaphore; role 1 waits
// for it, then copies. Runtime args: [semaphore id, src tile, dst tile, peer
// NoC x, peer NoC y, role]. Compile args: [variant], then the accessors of
// the input and output tensors; common args: their addresses.
const char* const kCollectiveSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t sem = get_arg_val<uint32_t>(0), src = get_arg_val<uint32_t>(1), dst = get_arg_val<uint32_t>(2);
  const uint32_t peer_x = get_arg_val<uint32_t>(3), peer_y = get_arg_val<uint32_t>(4), role = get_arg_val<uint32_t>(5);
  constexpr auto in_args = TensorAccessorArgs<1>();
  constexpr auto out_args = TensorAccessorArgs<in_args.next_compile_time_args_offset()>();
  const uint32_t page = get_tile_size(0);
  const auto in = TensorAccessor(in_args, get_common_arg_val<uint32_t>(0), page);
  const auto out = TensorAccessor(out_args, get_common_arg_val<uint32_t>(1), page);
  volatile uint32_t* flag = reinterpret_cast<volatile uint32_t*>(get_semaphore(sem));
  if (role == 1) noc_semaphore_wait(flag, 1);
  cb_reserve_back(0, 1);
  const uint32_t l1 = get_write_ptr(0);
  noc_async_read_tile(src, in, l1);
  noc_async_read_barrier();
  noc_async_write_tile(dst, out, l1);
  noc_async_write_barrier();
  if (role == 0) {
    noc_semaphore_inc(get_noc_addr(peer_x, peer_y, get_semaphore(sem)), 1);
    noc_async_atomic_barrier();
  }
}
)KERNEL";

struct Fixture {
  std::shared_ptr<Device> device = open_device("blackhole", 2, 1);
  Kernel sender{KernelKind::DataMovement, "sender"};
  Operation op{"collective"};

  Fixture(DataFormat format, bool specialise) {
    OperationKernel k;
    k.kernel = sender;
    k.source = kCollectiveSource;
    k.source_is_path = false;
    k.compile_args = {0};
    if (specialise) k.specializations = {{CoreCoord{1, 0}, {1}}};
    op.add_kernel(std::move(k));
    op.add_circular_buffer(tile_size(format), {{0, format, tile_size(format)}});
  }

  // The factory: core (0,0) copies src0 -> dst0 and signals core (1,0), which copies src1 -> dst1.
  RuntimeResourceFactory factory(uint32_t src0, uint32_t dst0, uint32_t src1, uint32_t dst1,
                                 std::shared_ptr<int> owner = nullptr) {
    return [=, this](const std::vector<std::shared_ptr<Buffer>>&, const CoreRangeSet& cores, uint32_t first_free) {
      const CoreCoord peer = device->worker_core_from_logical_core({1, 0});
      return ProgramRuntimeResources(
          {SemaphoreDescriptor{first_free, cores, 0}},
          {KernelRuntimeResources(sender,
                                  {CoreRuntimeArgs({0, 0}, {first_free, src0, dst0, peer.x, peer.y, 0}),
                                   CoreRuntimeArgs({1, 0}, {first_free, src1, dst1, peer.x, peer.y, 1})},
                                  {KernelDefine("COLLECTIVE_2D", "1")})},
          owner ? std::vector<Lifetime>{owner} : std::vector<Lifetime>{});
    };
  }
};

// Four tiles of distinct values in `format`; returns them packed.
std::vector<uint8_t> input_tiles(DataFormat format) {
  std::vector<float> v(4 * kTileHW);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(i / kTileHW + 1) + float(i % 64) / 64.0f;
  return pack_tiles(v, format);
}

class OperationTest : public testing::TestWithParam<std::tuple<DataFormat, bool>> {};

TEST_P(OperationTest, RerunWithNewFactoryValuesHitsTheCache) {
  const auto [format, specialise] = GetParam();
  Fixture f(format, specialise);
  const uint32_t page = tile_size(format);
  auto in = Buffer::create(f.device, {4ull * page, page, BufferType::DRAM});
  auto out = Buffer::create(f.device, {4ull * page, page, BufferType::DRAM});
  const std::vector<uint8_t> tiles = input_tiles(format);
  in->write(tiles.data(), tiles.size());
  auto tile = [&](const std::vector<uint8_t>& bytes, uint32_t t) {
    return std::vector<uint8_t>(bytes.begin() + t * page, bytes.begin() + (t + 1) * page);
  };

  f.op.run(*f.device, {in, out}, CoreRange({0, 0}, {1, 0}), f.factory(0, 2, 1, 3));
  std::vector<uint8_t> got(4 * page);
  out->read(got.data(), got.size());
  EXPECT_EQ(tile(got, 2), tile(tiles, 0));
  EXPECT_EQ(tile(got, 3), tile(tiles, 1));
  ProgramCache& cache = f.device->program_cache();
  EXPECT_EQ(cache.misses(), 1u);

  // New words (and a fresh output buffer): new outputs, the same compiled program.
  auto out2 = Buffer::create(f.device, {4ull * page, page, BufferType::DRAM});
  f.op.run(*f.device, {in, out2}, CoreRange({0, 0}, {1, 0}), f.factory(3, 0, 2, 1));
  out2->read(got.data(), got.size());
  EXPECT_EQ(tile(got, 0), tile(tiles, 3));
  EXPECT_EQ(tile(got, 1), tile(tiles, 2));
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.entries(), 1u);

  // Specialisation: one descriptor per compile-arg group, the define on each.
  const ProgramDescriptor d = f.op.plan({in, out}, CoreRange({0, 0}, {1, 0}), f.factory(0, 1, 2, 3)({}, {}, 0));
  ASSERT_EQ(d.kernels.size(), specialise ? 2u : 1u);
  for (const KernelDescriptor& k : d.kernels) {
    EXPECT_EQ(k.defines.at("COLLECTIVE_2D"), "1");
    EXPECT_EQ(k.common_runtime_args, (std::vector<uint32_t>{uint32_t(in->address()), uint32_t(out->address())}));
  }
  if (specialise) {
    EXPECT_EQ(d.kernels[0].compile_time_args[0], 0u);
    EXPECT_EQ(d.kernels[1].compile_time_args[0], 1u);
    EXPECT_EQ(d.kernels[1].core_ranges, CoreRangeSet(CoreCoord{1, 0}));
  }
}

INSTANTIATE_TEST_SUITE_P(FormatsAndSpecialisation, OperationTest,
                         testing::Combine(testing::Values(DataFormat::Float16_b, DataFormat::Float32), testing::Bool()),
                         [](const auto& info) {
                           return to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_specialised" : "_generic");
                         });

// ---- Validation: one case per rule ----

class OperationValidationTest : public testing::Test {
protected:
  Fixture f{DataFormat::Float16_b, false};
  const CoreRangeSet launch = CoreRange({0, 0}, {1, 0});

  std::string error(const ProgramRuntimeResources& r) {
    return error_from<ValidationError>([&] { f.op.validate(r, launch); });
  }
  static std::vector<uint32_t> words() { return {1, 0, 0, 0, 0, 0}; }
};

TEST_F(OperationValidationTest, KernelNotBoundToThisOperation) {
  Kernel stray(KernelKind::DataMovement, "stray");
  EXPECT_EQ(
      error(ProgramRuntimeResources({}, {KernelRuntimeResources(stray)})),
      "Operation 'collective': runtime resources: kernel_resources[0]: Kernel 'stray' (DataMovement) is not bound "
      "to operation 'collective' (no operation declared it)");
  Operation other("other");
  Kernel theirs(KernelKind::DataMovement, "theirs");
  other.add_kernel(OperationKernel{.kernel = theirs, .source = "x.cpp"});
  EXPECT_EQ(error(ProgramRuntimeResources({}, {KernelRuntimeResources(theirs)})),
            "Operation 'collective': runtime resources: kernel_resources[0]: Kernel 'theirs' (DataMovement) is not "
            "bound to operation 'collective' (it belongs to operation 'other')");
}

TEST_F(OperationValidationTest, KernelKindWithoutSuchAKernel) {
  EXPECT_EQ(error(ProgramRuntimeResources({}, {KernelRuntimeResources(KernelKind::Compute)})),
            "Operation 'collective': runtime resources: kernel_resources[0]: operation 'collective' has no logical "
            "kernel KernelKind::Compute (it declares: Kernel 'sender' (DataMovement))");
}

TEST_F(OperationValidationTest, RuntimeArgsOutsideTheWorkerRange) {
  EXPECT_EQ(error(ProgramRuntimeResources({}, {KernelRuntimeResources(f.sender, {CoreRuntimeArgs({0, 1}, words())})})),
            "Operation 'collective': runtime resources: kernel_resources[0] (Kernel 'sender' (DataMovement)): "
            "runtime_args[0] at core (0,1) is outside the operation's worker range {(0,0)-(1,0)}");
}

TEST_F(OperationValidationTest, SemaphoreOutsideTheWorkerRange) {
  EXPECT_EQ(error(ProgramRuntimeResources({SemaphoreDescriptor{0, CoreRange({0, 0}, {2, 0}), 0}})),
            "Operation 'collective': runtime resources: semaphore_descriptors[0] (id 0): core_ranges {(0,0)-(2,0)} "
            "are not inside the operation's worker range {(0,0)-(1,0)}");
}

TEST_F(OperationValidationTest, CoordinateTwiceForOneKernel) {
  EXPECT_EQ(error(ProgramRuntimeResources({}, {KernelRuntimeResources(f.sender, {CoreRuntimeArgs({1, 0}, words()),
                                                                                 CoreRuntimeArgs({1, 0}, words())})})),
            "Operation 'collective': runtime resources: kernel_resources[0] (Kernel 'sender' (DataMovement)): "
            "runtime_args[1] at core (1,0): the core already has runtime_args[0]; give each core one vector per "
            "logical kernel");
}

TEST_F(OperationValidationTest, CallerSemaphoreIdsUniqueAndFree) {
  f.op.add_semaphore(0); // the operation's own: first_free_semaphore_id becomes 1
  EXPECT_EQ(error(ProgramRuntimeResources({SemaphoreDescriptor{0, launch, 0}})),
            "Operation 'collective': runtime resources: semaphore_descriptors[0] (id 0): id is below "
            "first_free_semaphore_id 1; ids below it belong to the operation");
  EXPECT_EQ(error(ProgramRuntimeResources({SemaphoreDescriptor{2, launch, 0}, SemaphoreDescriptor{2, launch, 5}})),
            "Operation 'collective': runtime resources: semaphore_descriptors[1] (id 2): id 2 is also "
            "semaphore_descriptors[0]'s; caller semaphore ids must be unique");
  EXPECT_EQ(error(ProgramRuntimeResources({SemaphoreDescriptor{16, launch, 0}})),
            "Operation 'collective': runtime resources: semaphore_descriptors[0] (id 16): id is out of range; a "
            "program has at most 16 semaphores (ids 0..15)");
}

TEST_F(OperationValidationTest, OneEntryPerLogicalKernel) {
  EXPECT_EQ(error(ProgramRuntimeResources({}, {KernelRuntimeResources(f.sender), KernelRuntimeResources(f.sender)})),
            "Operation 'collective': runtime resources: kernel_resources[1] (Kernel 'sender' (DataMovement)): the "
            "kernel already has resources in kernel_resources[0]; give each logical kernel at most one entry");
}

TEST_F(OperationValidationTest, DefineNamesOnce) {
  EXPECT_EQ(error(ProgramRuntimeResources(
                {}, {KernelRuntimeResources(f.sender, {}, {KernelDefine("A", "1"), KernelDefine("A", "2")})})),
            "Operation 'collective': runtime resources: kernel_resources[0] (Kernel 'sender' (DataMovement)): define "
            "'A' appears twice; give each name once");
}

// A launch range whose rectangles overlap lists a core twice: it is rejected
// before the factory runs, by run() and by validate(), with the rule it
// breaks (not later, by make_program, as kernel core ranges that overlap).
TEST_F(OperationValidationTest, LaunchRectanglesMustNotOverlap) {
  const CoreRangeSet overlapping({CoreRange({0, 0}, {1, 0}), CoreRange({2, 0}), CoreRange({1, 0}, {1, 1})});
  const std::string expected =
      "Operation 'collective': launch range {(0,0)-(1,0), (2,0), (1,0)-(1,1)}: ranges[0] (0,0)-(1,0) and ranges[2] "
      "(1,0)-(1,1) overlap at core (1,0); the rectangles must not overlap: every coordinate must match exactly one "
      "descriptor";
  EXPECT_EQ(error_from<ValidationError>([&] { f.op.validate(ProgramRuntimeResources{}, overlapping); }), expected);
  bool factory_called = false;
  RuntimeResourceFactory factory = [&](const auto&, const CoreRangeSet&, uint32_t) {
    factory_called = true;
    return ProgramRuntimeResources{};
  };
  EXPECT_EQ(error_from<ValidationError>([&] { f.op.run(*f.device, {}, overlapping, factory); }), expected);
  EXPECT_FALSE(factory_called);
  EXPECT_EQ(f.device->program_cache().entries(), 0u);
}

// An invalid factory result changes nothing: no cache entry, no run, the
// previous lifetimes kept; a valid one then replaces them.
TEST_F(OperationValidationTest, InvalidResultChangesNothingAndLifetimesFollowSuccess) {
  const uint32_t page = tile_size(DataFormat::Float16_b);
  auto in = Buffer::create(f.device, {4ull * page, page, BufferType::DRAM});
  auto out = Buffer::create(f.device, {4ull * page, page, BufferType::DRAM});
  auto first = std::make_shared<int>(1);
  f.op.run(*f.device, {in, out}, launch, f.factory(0, 1, 2, 3, first));
  std::weak_ptr<int> first_weak = first;
  first.reset();
  EXPECT_FALSE(first_weak.expired()); // retained by the operation
  const uint64_t entries = f.device->program_cache().entries();

  auto second = std::make_shared<int>(2);
  RuntimeResourceFactory bad = [&](const auto&, const CoreRangeSet&, uint32_t) {
    return ProgramRuntimeResources({}, {KernelRuntimeResources(KernelKind::Compute)}, {second});
  };
  EXPECT_THROW(f.op.run(*f.device, {in, out}, launch, bad), ValidationError);
  EXPECT_FALSE(first_weak.expired()); // kept on failure
  EXPECT_EQ(f.device->program_cache().entries(), entries);

  f.op.run(*f.device, {in, out}, launch, f.factory(0, 1, 2, 3, second));
  EXPECT_TRUE(first_weak.expired()); // replaced on success
  EXPECT_EQ(second.use_count(), 2);
}

// ---- A failed build or run leaves no cache entry ----

// Reads runtime arg 0 (a CB index to reserve a page of: 0 works, 1 is not
// configured) and writes 0x600D at the L1 address in arg 3 of core (arg 1, arg 2).
const char* const kFailableSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t cb = get_arg_val<uint32_t>(0);
  cb_reserve_back(cb, 1);
  cb_push_back(cb, 1);
  noc_inline_dw_write(get_noc_addr(get_arg_val<uint32_t>(1), get_arg_val<uint32_t>(2), get_arg_val<uint32_t>(3)), 0x600D);
  noc_async_write_barrier();
}
)KERNEL";

struct Failable {
  std::shared_ptr<Device> device = open_device("blackhole", 2, 1);
  Recorder rec{device};
  Operation op{"failable"};
  const CoreRangeSet launch = CoreCoord{0, 0};

  // CB 0 of 2048-byte pages; by default one page. With `reach_l1_buffer`,
  // enough pages that the CBs end inside the recorder's L1 buffer (which
  // sits at the top of L1) while still fitting in L1.
  explicit Failable(const char* source = kFailableSource, bool reach_l1_buffer = false) {
    op.add_kernel(OperationKernel{.kernel = KernelKind::DataMovement, .source = source, .source_is_path = false});
    uint32_t cb_bytes = 2048;
    if (reach_l1_buffer) {
      const Device::MemoryStatistics l1 = device->memory_statistics(BufferType::L1);
      cb_bytes = uint32_t((l1.lowest_allocated - l1.begin) / 2048 + 1) * 2048;
      EXPECT_LE(l1.begin + cb_bytes, l1.end);
    }
    op.add_circular_buffer(cb_bytes, {{0, DataFormat::Float16_b, 2048}});
  }
  RuntimeResourceFactory factory(uint32_t cb) const {
    const std::vector<uint32_t> words{cb, rec.noc.x, rec.noc.y, uint32_t(rec.buffer->address())};
    return [=](const auto&, const CoreRangeSet&, uint32_t) {
      return ProgramRuntimeResources(
          {}, {KernelRuntimeResources(KernelKind::DataMovement, {CoreRuntimeArgs({0, 0}, words)})});
    };
  }
  void run(uint32_t cb) { op.run(*device, {}, launch, factory(cb)); }
};

TEST(OperationFailure, AKernelThatDoesNotCompileLeavesNoCacheEntry) {
  Failable f("#include \"api/dataflow/dataflow_api.h\"\nvoid kernel_main() { undeclared_call(); }\n");
  EXPECT_THROW(f.run(0), ProgramError);
  EXPECT_EQ(f.device->program_cache().entries(), 0u);
}

// The program builds and compiles, but its CBs reach an L1 buffer: enqueuing
// it fails, and the entry built for it is dropped.
TEST(OperationFailure, AProgramThatCannotBePlacedLeavesNoCacheEntry) {
  Failable f(kFailableSource, /*reach_l1_buffer=*/true);
  EXPECT_NE(error_from<ValidationError>([&] { f.run(0); }).find("but an L1 buffer starts at offset"),
            std::string::npos);
  EXPECT_EQ(f.device->program_cache().entries(), 0u);
}

// The kernel fails while running a program built for this run: no entry
// stays, and the next (good) run builds it again.
TEST(OperationFailure, AFailedFirstRunLeavesNoCacheEntry) {
  Failable f;
  EXPECT_THROW(f.run(1), KernelError);
  EXPECT_EQ(f.device->program_cache().entries(), 0u);
  f.run(0);
  EXPECT_EQ(f.rec.at(0), 0x600Du);
  EXPECT_EQ(f.device->program_cache().entries(), 1u);
  EXPECT_EQ(f.device->program_cache().misses(), 2u);
}

// A run that fails on a program an earlier run built leaves that entry (and
// the operation's fast path to it) as it was.
TEST(OperationFailure, AFailedRunOfACachedProgramKeepsItsEntry) {
  Failable f;
  f.run(0);
  EXPECT_THROW(f.run(1), KernelError);
  EXPECT_EQ(f.device->program_cache().entries(), 1u);
  f.rec.clear();
  f.run(0);
  EXPECT_EQ(f.rec.at(0), 0x600Du);
  EXPECT_EQ(f.device->program_cache().misses(), 1u);
  EXPECT_EQ(f.device->program_cache().hits(), 2u);
}

// Runtime-owned words follow the caller's; the caller's count is a compile
// arg, so cores with different counts get separate descriptors.
TEST(OperationRuntimeWords, AppendedAfterTheCallersWithTheCountAsACompileArg) {
  auto device = open_device("blackhole", 2, 1);
  Recorder rec(device);
  const char* source = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  constexpr uint32_t n = get_compile_time_arg_val(0);
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), addr = get_arg_val<uint32_t>(2);
  const uint32_t slot = get_arg_val<uint32_t>(3);
  noc_inline_dw_write(get_noc_addr(x, y, addr + 4 * slot), n);
  noc_inline_dw_write(get_noc_addr(x, y, addr + 4 * (slot + 1)), get_arg_val<uint32_t>(n));
  noc_async_write_barrier();
}
)KERNEL";
  Operation op("owned");
  OperationKernel k;
  k.kernel = KernelKind::DataMovement;
  k.source = source;
  k.source_is_path = false;
  k.runtime_words = [](CoreCoord c) { return std::vector<uint32_t>{0xC0DE0000u + c.x}; };
  op.add_kernel(std::move(k));
  const uint32_t addr = uint32_t(rec.buffer->address());
  RuntimeResourceFactory factory = [&](const auto&, const CoreRangeSet&, uint32_t) {
    return ProgramRuntimeResources(
        {}, {KernelRuntimeResources(KernelKind::DataMovement,
                                    {CoreRuntimeArgs({0, 0}, {rec.noc.x, rec.noc.y, addr, 0}),
                                     CoreRuntimeArgs({1, 0}, {rec.noc.x, rec.noc.y, addr, 8, 77})})});
  };
  const CoreRangeSet launch = CoreRange({0, 0}, {1, 0});
  const ProgramDescriptor d = op.plan({}, launch, factory({}, launch, 0));
  ASSERT_EQ(d.kernels.size(), 2u);       // caller counts 4 and 5
  for (int pass = 0; pass < 2; ++pass) { // the second pass takes the cached fast path
    rec.clear();
    op.run(*device, {}, launch, factory);
    const auto w = rec.read();
    EXPECT_EQ(w[0], 4u);          // core (0,0): four caller words
    EXPECT_EQ(w[1], 0xC0DE0000u); // then the runtime's word
    EXPECT_EQ(w[8], 5u);          // core (1,0): five
    EXPECT_EQ(w[9], 0xC0DE0001u);
  }
  EXPECT_EQ(device->program_cache().hits(), 1u);
}

// After the device's cache is cleared, the operation builds again (its fast
// path does not outlive the cached program).
TEST_F(OperationValidationTest, ClearedCacheRebuilds) {
  const uint32_t page = tile_size(DataFormat::Float16_b);
  auto in = Buffer::create(f.device, {4ull * page, page, BufferType::DRAM});
  auto out = Buffer::create(f.device, {4ull * page, page, BufferType::DRAM});
  const std::vector<uint8_t> tiles = input_tiles(DataFormat::Float16_b);
  in->write(tiles.data(), tiles.size());
  f.op.run(*f.device, {in, out}, launch, f.factory(0, 1, 2, 3));
  f.device->program_cache().clear();
  f.op.run(*f.device, {in, out}, launch, f.factory(3, 0, 2, 1));
  EXPECT_EQ(f.device->program_cache().misses(), 1u);
  EXPECT_EQ(f.device->program_cache().entries(), 1u);
  std::vector<uint8_t> got(4 * page);
  out->read(got.data(), got.size());
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + page, tiles.begin() + 3 * page));
}

TEST(OperationDeclaration, ErrorsAtAddKernel) {
  Operation op("decl");
  Kernel k(KernelKind::Compute, "math");
  EXPECT_EQ(error_from<ValidationError>([&] { op.add_kernel(OperationKernel{.kernel = k, .source = "c.cpp"}); }),
            "Operation 'decl': add_kernel(Kernel 'math' (Compute)): a Compute kernel needs a compute config");
  op.add_kernel(OperationKernel{.kernel = KernelKind::DataMovement, .source = "a.cpp"});
  EXPECT_EQ(error_from<ValidationError>(
                [&] { op.add_kernel(OperationKernel{.kernel = KernelKind::DataMovement, .source = "b.cpp"}); }),
            "Operation 'decl': add_kernel(KernelKind::DataMovement): the operation already has its DataMovement "
            "kernel; declare further kernels of a kind with captured Kernel handles");
  op.add_kernel(OperationKernel{.kernel = k, .source = "c.cpp", .config = ComputeConfigDescriptor{}});
  Operation other("other");
  EXPECT_EQ(error_from<ValidationError>([&] {
              other.add_kernel(OperationKernel{.kernel = k, .source = "c.cpp", .config = ComputeConfigDescriptor{}});
            }),
            "Operation 'other': add_kernel(Kernel 'math' (Compute)): this Kernel is already declared by operation "
            "'decl'");
}

} // namespace
} // namespace tessel::test
