// Emitted runners: emit + load round trip (every manifest field), a run from
// the artifact alone equal to the original operation's, a re-run with new
// factory values (new outputs, a program-cache hit), KernelKind selection,
// nothing of a factory's result in the artifact, every emit error with its
// exact message, and a failed emit leaving nothing. Load errors:
// runner_load_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "operation_collective/operation_collective.hpp"
#include "runner_fixture.hpp"
#include "sim/ops_kernel.hpp"
#include "tessel/operation.hpp"
#include "tessel/program_cache.hpp"
#include "tessel/runner.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

const char* const kComputeSource = R"KERNEL(#include "api/compute/common.h"
void kernel_main() {}
)KERNEL";

// An operation exercising every manifest field.
struct EveryField {
  Kernel sender{KernelKind::DataMovement, "sender"};
  Kernel odd{KernelKind::DataMovement, "odd \"name\"\twith\\escapes"};
  Operation op{"every field"};
  std::string sender_text = "// sender\n#include \"api/dataflow/dataflow_api.h\"\nvoid kernel_main() {}\n";

  EveryField() {
    OperationKernel a;
    a.kernel = sender;
    a.source = sender_text;
    a.source_is_path = false;
    a.config = DataMovementConfigDescriptor{DataMovementProcessor::RISCV_1, NOC::NOC_0};
    a.compile_args = {7, 0, 4294967295u};
    a.defines = {{"PLAIN", "1"}, {"SPACED", "a b \"c\""}, {"EMPTY", ""}};
    a.specializations = {{CoreRangeSet{CoreRange({1, 0}, {2, 0}), CoreRange({0, 1})}, {9}},
                         {CoreRangeSet{CoreRange({3, 3})}, {}}};
    op.add_kernel(std::move(a));
    OperationKernel b;
    b.kernel = odd;
    b.source = examples::kernel_path("operation_collective", "collective.cpp");
    b.config = WriterConfigDescriptor{};
    op.add_kernel(std::move(b));
    OperationKernel c;
    c.kernel = KernelKind::Compute;
    c.source = kComputeSource;
    c.source_is_path = false;
    ComputeConfigDescriptor cc;
    cc.math_fidelity = MathFidelity::HiFi2;
    cc.fp32_dest_acc_en = true;
    cc.math_approx_mode = true;
    cc.bfp8_pack_precise = true;
    cc.enable_trisc2_rvv = true;
    cc.unpack_to_dest_mode = {UnpackToDestMode::Default, UnpackToDestMode::UnpackToDestFp32};
    c.config = cc;
    c.compile_args = {3};
    op.add_kernel(std::move(c));
    op.add_circular_buffer(4096, {{0, DataFormat::Float16_b, 2048}});
    op.add_circular_buffer(8192, {{16, DataFormat::Float32, 4096}, {24, DataFormat::Bfp8_b, 1088}});
    op.add_semaphore(0);
    op.add_semaphore(5);
  }
};

bool same_config(const KernelDescriptor::Config& a, const KernelDescriptor::Config& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<DataMovementConfigDescriptor>(&a)) {
    const auto& y = std::get<DataMovementConfigDescriptor>(b);
    return x->processor == y.processor && x->noc == y.noc;
  }
  if (const auto* x = std::get_if<ComputeConfigDescriptor>(&a)) {
    const auto& y = std::get<ComputeConfigDescriptor>(b);
    return x->math_fidelity == y.math_fidelity && x->fp32_dest_acc_en == y.fp32_dest_acc_en &&
           x->dst_full_sync_en == y.dst_full_sync_en && x->unpack_to_dest_mode == y.unpack_to_dest_mode &&
           x->bfp8_pack_precise == y.bfp8_pack_precise && x->math_approx_mode == y.math_approx_mode &&
           x->enable_trisc2_rvv == y.enable_trisc2_rvv;
  }
  return true;
}

TEST_F(RunnerTest, EmitLoadRoundTripKeepsEveryField) {
  EveryField f;
  const fs::path dir = scratch / "every";
  emit_runner(f.op, dir.string());
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"kernel0-sender.cpp", "kernel1-odd__name__with_escapes.cpp",
                                                    "kernel2-Compute.cpp", "manifest.txt"}));
  EXPECT_EQ(entries(scratch), (std::vector<std::string>{"every"})); // no temporary left behind

  const Runner runner = Runner::load(dir.string());
  const Operation& op = runner.operation();
  EXPECT_EQ(runner.directory(), fs::absolute(dir).string());
  EXPECT_EQ(op.name(), "every field");
  ASSERT_EQ(op.kernels().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const OperationKernel& want = f.op.kernels()[i];
    const OperationKernel& got = op.kernels()[i];
    SCOPED_TRACE("kernel " + std::to_string(i));
    EXPECT_EQ(got.kernel.index(), want.kernel.index());
    EXPECT_EQ(describe(got.kernel), describe(want.kernel));
    EXPECT_TRUE(got.source_is_path);
    EXPECT_EQ(fs::path(got.source).parent_path(), fs::absolute(dir));
    EXPECT_EQ(read_text(got.source), want.source_is_path ? read_text(want.source) : want.source);
    EXPECT_TRUE(same_config(got.config, want.config));
    EXPECT_EQ(got.compile_args, want.compile_args);
    EXPECT_EQ(got.defines, want.defines);
    EXPECT_EQ(got.specializations, want.specializations);
    EXPECT_FALSE(got.runtime_words);
  }
  ASSERT_EQ(op.circular_buffers().size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const CBDescriptor& want = f.op.circular_buffers()[i];
    const CBDescriptor& got = op.circular_buffers()[i];
    EXPECT_EQ(got.total_size, want.total_size);
    ASSERT_EQ(got.format_descriptors.size(), want.format_descriptors.size());
    for (size_t j = 0; j < got.format_descriptors.size(); ++j) {
      EXPECT_EQ(got.format_descriptors[j].buffer_index, want.format_descriptors[j].buffer_index);
      EXPECT_EQ(got.format_descriptors[j].data_format, want.format_descriptors[j].data_format);
      EXPECT_EQ(got.format_descriptors[j].page_size, want.format_descriptors[j].page_size);
    }
  }
  EXPECT_EQ(op.own_semaphores(), (std::vector<uint32_t>{0, 5}));

  // The rebuilt captured Kernels are selected by name, and belong to the runner's operation only.
  EXPECT_EQ(runner.kernel("sender").name(), "sender");
  EXPECT_EQ(runner.kernel("sender").kind(), KernelKind::DataMovement);
  EXPECT_EQ(runner.kernel("sender"), std::get<Kernel>(op.kernels()[0].kernel));
  EXPECT_FALSE(runner.kernel("sender") == f.sender);
  EXPECT_EQ(runner.kernel(f.odd.name()).name(), f.odd.name());
  EXPECT_EQ(error_from<ValidationError>([&] { runner.kernel("receiver"); }),
            "Runner '" + runner.directory() +
                "': operation 'every field' has no captured Kernel named 'receiver' (it declares: Kernel 'sender' "
                "(DataMovement), Kernel 'odd \"name\"\twith\\escapes' (DataMovement), KernelKind::Compute)");

  // Emitting the loaded runner again gives the same manifest.
  emit_runner(op, (scratch / "again").string());
  EXPECT_EQ(read_text(scratch / "again" / "manifest.txt"), read_text(dir / "manifest.txt"));
}

TEST_F(RunnerTest, ManifestIsTheDocumentedText) {
  EveryField f;
  emit_runner(f.op, (scratch / "every").string());
  EXPECT_EQ(read_text(scratch / "every" / "manifest.txt"),
            "# tessel emitted runner: the structure of operation 'every field'; the runtime resource factory "
            "supplies everything else on every run\n"
            "tessel-runner 1\n"
            "operation \"every field\"\n"
            "kernel captured \"sender\" DataMovement\n"
            "  source \"kernel0-sender.cpp\"\n"
            "  config data_movement RISCV_1 NOC_0\n"
            "  compile_args 7 0 4294967295\n"
            "  define \"EMPTY\" \"\"\n"
            "  define \"PLAIN\" \"1\"\n"
            "  define \"SPACED\" \"a b \\\"c\\\"\"\n"
            "  specialization {(1,0)-(2,0),(0,1)} 9\n"
            "  specialization {(3,3)}\n"
            "kernel captured \"odd \\\"name\\\"\\twith\\\\escapes\" DataMovement\n"
            "  source \"kernel1-odd__name__with_escapes.cpp\"\n"
            "  config writer\n"
            "  compile_args\n"
            "kernel kind Compute\n"
            "  source \"kernel2-Compute.cpp\"\n"
            "  config compute HiFi2 fp32_dest_acc_en=1 dst_full_sync_en=0 math_approx_mode=1 bfp8_pack_precise=1 "
            "unpack_to_dest_mode=Default,UnpackToDestFp32 enable_trisc2_rvv=1\n"
            "  compile_args 3\n"
            "cb 4096 0:Float16_b:2048\n"
            "cb 8192 16:Float32:4096 24:Bfp8_b:1088\n"
            "semaphore 0\n"
            "semaphore 5\n"
            "topology 1\n"
            "end\n");
}

// Found by tests/fuzz/runner_manifest_fuzz: the header comment spelled the
// name raw, so a name with a newline ended the comment early and the rest of
// the name became the manifest's first field.
TEST_F(RunnerTest, NamesWithEveryEscapeRoundTrip) {
  OperationKernel k;
  k.kernel = Kernel(KernelKind::DataMovement, "line\nbreak");
  k.source = "void kernel_main() {}\n";
  k.source_is_path = false;
  k.defines = {{"TWO\nLINES", "a\nb\t\"c\"\\"}};
  Operation op("two\nlines \"quoted\"\t\\");
  op.add_kernel(std::move(k));
  op.add_fabric_claim(FabricManagerClaim("claim\nname", find_captured_kernel(op, "line\nbreak")));
  emit_runner(op, (scratch / "names").string());
  const std::string manifest = read_text(scratch / "names" / "manifest.txt");
  EXPECT_EQ(manifest.substr(0, manifest.find('\n') + 1),
            "# tessel emitted runner: the structure of operation 'two\\nlines \\\"quoted\\\"\\t\\\\'; the runtime "
            "resource factory supplies everything else on every run\n");
  const Runner runner = Runner::load((scratch / "names").string());
  EXPECT_EQ(runner.operation().name(), op.name());
  EXPECT_EQ(runner.kernel("line\nbreak").name(), "line\nbreak");
  EXPECT_EQ(runner.operation().kernels()[0].defines, op.kernels()[0].defines);
  EXPECT_EQ(runner.claim("claim\nname").name(), "claim\nname");
}

// ---- Running from the artifact ----

constexpr uint32_t kTiles = 4;

struct Tensors {
  std::shared_ptr<Buffer> in, out;
  std::vector<uint8_t> input;
};

Tensors make_tensors(const std::shared_ptr<Device>& device) {
  const uint32_t page = tile_size(DataFormat::Float16_b);
  Tensors t;
  std::vector<float> v(kTiles * kTileHW);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(i / kTileHW + 1) + float(i % 64) / 64.0f;
  t.input = pack_tiles(v, DataFormat::Float16_b);
  t.in = Buffer::create(device, {kTiles * page, page, BufferType::DRAM});
  t.in->write(t.input.data(), t.input.size());
  t.out = Buffer::create(device, {kTiles * page, page, BufferType::DRAM});
  const std::vector<uint8_t> zeros(t.input.size(), 0);
  t.out->write(zeros.data(), zeros.size());
  return t;
}

std::vector<uint8_t> contents(const Buffer& b) {
  std::vector<uint8_t> v(b.size());
  b.read(v.data(), v.size());
  return v;
}

TEST_F(RunnerTest, RunFromTheArtifactEqualsTheOriginalThenRerunsFromTheCache) {
  const CoreRangeSet launch = CoreRange({0, 0}, {1, 0});
  const uint32_t page = tile_size(DataFormat::Float16_b);

  // The original operation on one device.
  Operation original = examples::make_collective_operation();
  auto device_a = open_device("blackhole", 2, 1);
  Tensors a = make_tensors(device_a);
  const CoreCoord receiver_a = device_a->worker_core_from_logical_core({1, 0});
  original.run(*device_a, {a.in, a.out}, launch,
               examples::make_collective_factory(find_captured_kernel(original, "sender"), receiver_a, {2, 0, 3}));

  // The artifact, run on another device with the same inputs.
  emit_runner(original, (scratch / "collective").string());
  Runner runner = Runner::load((scratch / "collective").string());
  auto device_b = open_device("blackhole", 2, 1);
  Tensors b = make_tensors(device_b);
  const CoreCoord receiver_b = device_b->worker_core_from_logical_core({1, 0});
  runner.run(*device_b, {b.in, b.out}, launch,
             examples::make_collective_factory(runner.kernel("sender"), receiver_b, {2, 0, 3}));
  const std::vector<uint8_t> got = contents(*b.out);
  EXPECT_EQ(got, contents(*a.out));
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + page, a.input.begin() + 2 * page));   // out[0] = in[2]
  EXPECT_TRUE(std::equal(got.begin() + 3 * page, got.end(), a.input.begin() + 2 * page)); // out[3] = in[2]
  ProgramCache& cache = device_b->program_cache();
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.hits(), 0u);

  // New factory values into a fresh output: new outputs, the same compiled program.
  auto out2 = Buffer::create(device_b, {kTiles * page, page, BufferType::DRAM});
  const std::vector<uint8_t> zeros(kTiles * page, 0);
  out2->write(zeros.data(), zeros.size());
  runner.run(*device_b, {b.in, out2}, launch,
             examples::make_collective_factory(runner.kernel("sender"), receiver_b, {1, 2, 0}));
  const std::vector<uint8_t> got2 = contents(*out2);
  EXPECT_TRUE(
      std::equal(got2.begin() + 2 * page, got2.begin() + 3 * page, b.input.begin() + 1 * page)); // out2[2] = in[1]
  EXPECT_TRUE(std::equal(got2.begin(), got2.begin() + page, b.input.begin() + 1 * page));        // out2[0] = in[1]
  EXPECT_TRUE(std::all_of(got2.begin() + page, got2.begin() + 2 * page, [](uint8_t x) { return x == 0; }));
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.entries(), 1u);

  // The factory is required on every call.
  EXPECT_EQ(error_from<ValidationError>([&] {
              runner.run(*device_b, {b.in, b.out}, launch, {});
            }),
            "Runner '" + runner.directory() +
                "' (operation 'collective'): run needs the runtime resource factory on every call; the runner "
                "holds no dispatch values or owners");
  // A handle from the original operation does not select the runner's kernel.
  EXPECT_EQ(error_from<ValidationError>([&] {
              runner.run(
                  *device_b, {b.in, b.out}, launch,
                  examples::make_collective_factory(find_captured_kernel(original, "sender"), receiver_b, {0, 1, 2}));
            }),
            "Operation 'collective': runtime resources: kernel_resources[0]: Kernel 'sender' (DataMovement) is not "
            "bound to operation 'collective' (it belongs to another operation of the same name)");
  EXPECT_EQ(cache.entries(), 1u);
}

// The example's own check drives a runner as it drives the operation, under several policies.
TEST_F(RunnerTest, ExampleChecksPassThroughARunner) {
  emit_runner(examples::make_collective_operation(DataFormat::Float32), (scratch / "collective").string());
  for (const std::string& policy : policies()) {
    Runner runner = Runner::load((scratch / "collective").string());
    examples::RunOptions o;
    o.grid_x = 2;
    o.grid_y = 1;
    o.policy = policy;
    const examples::RunResult r = examples::run_collective_twice(
        o, runner.operation(), runner.kernel("sender"),
        [&](Device& d, const auto& tensors, const CoreRangeSet& launch, const RuntimeResourceFactory& factory) {
          runner.run(d, tensors, launch, factory);
        });
    EXPECT_TRUE(r.passed) << policy << ": " << r.summary;
    EXPECT_NE(r.summary.find("4 Float32 tiles"), std::string::npos) << r.summary;
  }
}

// A kernel selected by KernelKind, selected the same way through the runner.
// Each core records its words into the recorder: [x, y, addr, slot, value].
const char* const kRecordSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), addr = get_arg_val<uint32_t>(2);
  const uint32_t slot = get_arg_val<uint32_t>(3);
  noc_inline_dw_write(get_noc_addr(x, y, addr + 4 * slot), get_arg_val<uint32_t>(4) + RECORD_BIAS);
  noc_async_write_barrier();
}
)KERNEL";

Operation make_record_operation() {
  Operation op("record");
  OperationKernel k;
  k.kernel = KernelKind::DataMovement;
  k.source = kRecordSource;
  k.source_is_path = false;
  op.add_kernel(std::move(k));
  return op;
}

RuntimeResourceFactory record_factory(const Recorder& rec, uint32_t value, std::shared_ptr<int> owner = nullptr) {
  const uint32_t addr = uint32_t(rec.buffer->address());
  const CoreCoord noc = rec.noc;
  return [=](const std::vector<std::shared_ptr<Buffer>>&, const CoreRangeSet&, uint32_t) {
    return ProgramRuntimeResources(
        {},
        {KernelRuntimeResources(KernelKind::DataMovement,
                                {CoreRuntimeArgs({0, 0}, {noc.x, noc.y, addr, 0, value}),
                                 CoreRuntimeArgs({1, 0}, {noc.x, noc.y, addr, 1, value + 1})},
                                {KernelDefine("RECORD_BIAS", "0x100000u")})},
        owner ? std::vector<Lifetime>{owner} : std::vector<Lifetime>{});
  };
}

// Fabric claims and the topology travel in the manifest; the runner's claim
// (bound to its rebuilt kernel) is what the factory binds.
TEST_F(RunnerTest, FabricClaimsAndTopologyRoundTrip) {
  Operation op = make_record_operation();
  op.add_fabric_claim(FabricManagerClaim("ring", KernelKind::DataMovement));
  op.set_fabric_topology(FabricTopology{2, {{0, 1, 0}, {1, 0, 0}, {0, 1, 1}}, {{0, 1, 1}}});
  emit_runner(op, (scratch / "fabric").string());
  const std::string manifest = read_text(scratch / "fabric" / "manifest.txt");
  EXPECT_NE(manifest.find("claim \"ring\" kind DataMovement\ntopology 2\nlink 0 1 0\nlink 1 0 0\nlink 0 1 1\n"
                          "generated 0 1 1\nend\n"),
            std::string::npos)
      << manifest;
  Runner runner = Runner::load((scratch / "fabric").string());
  ASSERT_EQ(runner.operation().fabric_claims().size(), 1u);
  EXPECT_EQ(runner.operation().fabric_topology().num_devices, 2u);
  EXPECT_EQ(runner.operation().fabric_topology().generated, (std::vector<FabricLink>{{0, 1, 1}}));
  auto device = open_device("blackhole", 2, 1);
  Recorder rec(device);
  const CoreRangeSet launch = CoreRange({0, 0}, {1, 0});
  RuntimeResourceFactory base = record_factory(rec, 5);
  const FabricManagerClaim claim = runner.claim("ring");
  runner.run(*device, {}, launch, [&](const auto& tensors, const CoreRangeSet& cores, uint32_t first) {
    const ProgramRuntimeResources r = base(tensors, cores, first);
    return ProgramRuntimeResources(r.semaphore_descriptors(), r.kernel_resources(), r.lifetimes(),
                                   {FabricConnectionBinding(claim, {{0, 1, launch, 0}, {1, 0, launch, 0}}, "ring-v1")});
  });
  EXPECT_EQ(rec.at(0), 0x100005u);
  EXPECT_EQ(error_from<ValidationError>([&] { runner.claim("line"); }),
            "Runner '" + (scratch / "fabric").string() +
                "': operation 'record' has no fabric claim named 'line' (it declares: 'ring')");
  // A factory without the binding is rejected: the claim came back with the runner.
  EXPECT_THROW(runner.run(*device, {}, launch, base), ValidationError);
}

TEST_F(RunnerTest, KernelKindSelectionAndNothingOfTheFactoryInTheArtifact) {
  auto device = open_device("blackhole", 2, 1);
  Recorder rec(device);
  auto tensor = Buffer::create(device, {2048, 2048, BufferType::DRAM});
  auto tensor2 = Buffer::create(device, {2048, 2048, BufferType::DRAM});
  const CoreRangeSet launch = CoreRange({0, 0}, {1, 0});
  Operation op = make_record_operation();
  auto owner = std::make_shared<int>(42);
  const uint32_t distinctive = 0x5EC7E7u; // 6211559
  op.run(*device, {tensor2}, launch, record_factory(rec, distinctive, owner));
  ASSERT_EQ(op.lifetimes().size(), 2u); // the owner and the tensor, retained by the operation
  EXPECT_EQ(rec.at(0), distinctive + 0x100000u);

  emit_runner(op, (scratch / "record").string());
  const std::string artifact = artifact_text(scratch / "record");
  for (const std::string& absent :
       {std::to_string(distinctive), std::to_string(distinctive + 1), std::string("5ec7e7"), std::string("5EC7E7"),
        std::string("RECORD_BIAS \""), std::string("\"RECORD_BIAS\""), std::string("0x100000u"),
        std::to_string(rec.buffer->address()), std::to_string(tensor2->address()), std::string("semaphore"),
        std::string("lifetime")})
    EXPECT_EQ(artifact.find(absent), std::string::npos) << "'" << absent << "' is in the artifact:\n" << artifact;
  ASSERT_GT(tensor2->address(), 0u);

  Runner runner = Runner::load((scratch / "record").string());
  EXPECT_TRUE(runner.operation().lifetimes().empty());
  rec.clear();
  runner.run(*device, {tensor2}, launch, record_factory(rec, 11));
  EXPECT_EQ(rec.at(0), 11u + 0x100000u);
  EXPECT_EQ(rec.at(1), 12u + 0x100000u);
  const uint64_t misses = device->program_cache().misses();
  runner.run(*device, {tensor}, launch, record_factory(rec, 21));
  EXPECT_EQ(rec.at(0), 21u + 0x100000u);
  EXPECT_EQ(rec.at(1), 22u + 0x100000u);
  EXPECT_EQ(device->program_cache().misses(), misses);
  EXPECT_EQ(device->program_cache().hits(), 1u);
  EXPECT_EQ(error_from<ValidationError>([&] { runner.kernel("sender"); }),
            "Runner '" + runner.directory() +
                "': operation 'record' has no captured Kernel named 'sender' (it declares: "
                "KernelKind::DataMovement)");
}

// ---- Emit errors ----

TEST_F(RunnerTest, EmitErrorsNameTheKernelAndWriteNothing) {
  const fs::path dir = scratch / "out";
  {
    Operation op("unnamed");
    op.add_kernel(OperationKernel{.kernel = Kernel(KernelKind::DataMovement), .source = "x", .source_is_path = false});
    EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, dir.string()); }),
              "emit_runner: operation 'unnamed': kernel 0 (Kernel '(unnamed)' (DataMovement)) is a captured Kernel "
              "without a name; a runner re-identifies captured Kernels by name, so give it one (Kernel(kind, "
              "\"name\"))");
  }
  {
    Operation op("words");
    OperationKernel k;
    k.kernel = KernelKind::DataMovement;
    k.source = kRecordSource;
    k.source_is_path = false;
    k.runtime_words = [](CoreCoord) { return std::vector<uint32_t>{1}; };
    op.add_kernel(std::move(k));
    EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, dir.string()); }),
              "emit_runner: operation 'words': kernel 0 (KernelKind::DataMovement) has runtime_words (a host "
              "function), which cannot be written out; supply those words through the runtime resource factory "
              "instead");
  }
  {
    Operation op("twins");
    op.add_kernel(
        OperationKernel{.kernel = Kernel(KernelKind::DataMovement, "k"), .source = "x", .source_is_path = false});
    op.add_kernel(
        OperationKernel{.kernel = Kernel(KernelKind::DataMovement, "k"), .source = "x", .source_is_path = false});
    EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, dir.string()); }),
              "emit_runner: operation 'twins': kernel 1 (Kernel 'k' (DataMovement)) has the same name as kernel 0; "
              "captured Kernel names must be unique within an operation");
  }
  {
    Operation op("lost");
    op.add_kernel(OperationKernel{.kernel = KernelKind::DataMovement, .source = "/no/such/kernel.cpp"});
    EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, dir.string()); }),
              "emit_runner: operation 'lost': kernel 0 (KernelKind::DataMovement): kernel file '/no/such/kernel.cpp' "
              "not found; tried: /no/such/kernel.cpp");
  }
  {
    Operation op("empty");
    EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, dir.string()); }),
              "emit_runner: operation 'empty' declares no kernels; expected at least one");
  }
  EXPECT_TRUE(entries(scratch).empty()); // nothing was created
}

TEST_F(RunnerTest, EmitErrorsForPathsThatCannotHoldARunner) {
  Operation op = make_record_operation();
  write_text(scratch / "file", "not a directory");
  EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, (scratch / "file" / "runner").string()); }),
            "emit_runner: cannot create directory '" + (scratch / "file").string() +
                "': Not a directory; expected a writable path");
  EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, (scratch / "file").string()); }),
            "emit_runner: '" + (scratch / "file").string() +
                "' exists and is not a directory; expected a new path or a runner directory");
  fs::create_directories(scratch / "busy");
  write_text(scratch / "busy" / "notes.txt", "mine");
  EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, (scratch / "busy").string()); }),
            "emit_runner: '" + (scratch / "busy").string() +
                "' exists and is not an emitted runner (no manifest.txt); expected a new path, an empty directory or "
                "an earlier runner to replace");
  EXPECT_EQ(read_text(scratch / "busy" / "notes.txt"), "mine");
  EXPECT_EQ(error_from<ValidationError>([&] { emit_runner(op, ""); }),
            "emit_runner: operation 'record': the directory is empty; expected a path to write the runner to");
  EXPECT_EQ(entries(scratch), (std::vector<std::string>{"busy", "file"}));
}

// An earlier runner (or an empty directory) at the path is replaced whole.
TEST_F(RunnerTest, EmitReplacesAnEarlierRunner) {
  const fs::path dir = scratch / "r";
  EveryField f;
  emit_runner(f.op, dir.string());
  emit_runner(make_record_operation(), dir.string() + "/");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"kernel0-DataMovement.cpp", "manifest.txt"}));
  EXPECT_EQ(Runner::load(dir.string()).operation().name(), "record");
  EXPECT_EQ(entries(scratch), (std::vector<std::string>{"r"}));
  fs::create_directories(scratch / "empty");
  emit_runner(make_record_operation(), (scratch / "empty").string());
  EXPECT_EQ(Runner::load((scratch / "empty").string()).operation().name(), "record");
}

} // namespace
} // namespace tessel::test
