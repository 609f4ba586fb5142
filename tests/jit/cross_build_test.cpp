// Tests of the RISC-V size estimate (src/jit/cross_build.cpp): sizes of real
// example kernels, opt levels, the instruction check and its source lines,
// TESSEL_INSN_CHECK, the disk cache and the memo, and the errors. The RISC-V
// toolchain is a bootstrap dependency (scripts/bootstrap): without it these
// tests fail with the ProgramError that names its Debian package.
#include "jit/cross_build.hpp"
#include "kernel_cache_fixture.hpp"
#include "tessel/error.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace tessel::jit {
namespace {

// The eltwise_binary example's kernels, with the arguments its host program
// gives them (two interleaved DRAM Float16_b buffers in, one out; CBs 0, 1
// and 16 of 2048-byte tiles).
std::string example_kernel(const std::string& name) {
  return std::string(TESSEL_TEST_SOURCE_DIR) + "/examples/eltwise_binary/kernels/" + name;
}

std::vector<uint32_t> eltwise_tile_sizes() {
  std::vector<uint32_t> sizes(64, 0);
  sizes[0] = sizes[1] = sizes[16] = 2048;
  return sizes;
}

BuildRequest eltwise_reader() {
  BuildRequest request;
  request.source_path = example_kernel("reader.cpp");
  request.compile_args = {2, 2048, 2, 2048}; // TensorAccessorArgs of A, then of B: DRAM, interleaved
  request.cb_tile_sizes = eltwise_tile_sizes();
  return request;
}

BuildRequest eltwise_writer() {
  BuildRequest request;
  request.source_path = example_kernel("writer.cpp");
  request.compile_args = {2, 2048};
  request.cb_tile_sizes = eltwise_tile_sizes();
  return request;
}

BuildRequest eltwise_compute() {
  BuildRequest request;
  request.source_path = example_kernel("compute.cpp");
  request.kind = KernelKind::Compute;
  request.defines = {{"ELTWISE_OP", "add_tiles"}, {"ELTWISE_OP_INIT", "add_tiles_init"}};
  return request;
}

const BuildRequest kNone; // an absent kernel

std::vector<std::string> thread_names(const CrossReport& report) {
  std::vector<std::string> names;
  for (const auto& thread : report.threads)
    names.push_back(thread.thread);
  return names;
}

uint32_t size_of(const CrossReport& report, const std::string& thread) {
  for (const auto& entry : report.threads)
    if (entry.thread == thread) return entry.text_bytes;
  ADD_FAILURE() << "no thread " << thread << " in the report";
  return 0;
}

// Every report.txt under the cache's cross/ directory.
std::vector<std::string> records(const std::string& cache_dir) {
  std::vector<std::string> texts;
  for (const auto& entry : fs::directory_iterator(fs::path(cache_dir) / "cross"))
    if (entry.is_directory() && fs::exists(entry.path() / "report.txt"))
      texts.push_back(read_text(entry.path() / "report.txt"));
  return texts;
}

class CrossBuildTest : public KernelCacheTest {};

TEST_F(CrossBuildTest, ExampleKernelsHavePlausibleSizes) {
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(eltwise_reader(), eltwise_writer(), eltwise_compute());
  EXPECT_EQ(thread_names(report), (std::vector<std::string>{"reader", "writer", "unpack", "math", "pack"}));
  uint32_t sum = 0;
  for (const auto& thread : report.threads) {
    // A data-movement loop over the call table is a few hundred bytes to a
    // few KB; the compute kernel's threads likewise.
    EXPECT_GE(thread.text_bytes, 200u) << thread.thread;
    EXPECT_LE(thread.text_bytes, 4096u) << thread.thread;
    EXPECT_TRUE(thread.unresolved_symbols.empty()) << thread.thread << " calls " << thread.unresolved_symbols[0];
    sum += thread.text_bytes;
  }
  EXPECT_EQ(report.total_bytes, sum);
  EXPECT_TRUE(report.insn_checked);
  EXPECT_TRUE(report.findings.empty()) << report.findings[0].instruction << " in " << report.findings[0].function;
  // The reader reads two tiles per iteration, the writer one.
  EXPECT_GT(size_of(report, "reader"), size_of(report, "writer"));
  EXPECT_EQ(checker.stats().compiles, 5u);
}

TEST_F(CrossBuildTest, AbsentKernelsAreLeftOut) {
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(kNone, eltwise_writer(), kNone);
  EXPECT_EQ(thread_names(report), (std::vector<std::string>{"writer"}));
  EXPECT_EQ(report.total_bytes, report.threads[0].text_bytes);
  EXPECT_EQ(checker.stats().compiles, 1u);
}

TEST_F(CrossBuildTest, OptLevelChangesTheImage) {
  CrossChecker checker(cache_dir_);
  uint32_t o2 = checker.check(eltwise_reader(), kNone, kNone).total_bytes;
  uint32_t os = checker.check(eltwise_reader(), kNone, kNone, {"Os", "", ""}).total_bytes;
  EXPECT_NE(o2, os);
  EXPECT_GE(os, 200u);
  EXPECT_EQ(checker.stats().compiles, 2u);
  // The request's own opt_level is honoured too, and -O2 is what the default means.
  BuildRequest o2_explicit = eltwise_reader();
  o2_explicit.opt_level = 2;
  EXPECT_EQ(checker.check(o2_explicit, kNone, kNone).total_bytes, o2);
  std::vector<std::string> texts = records(cache_dir_);
  EXPECT_EQ(std::count_if(texts.begin(), texts.end(),
                          [](const std::string& t) { return t.find("\narg: -Os\n") != std::string::npos; }),
            1);
  EXPECT_EQ(std::count_if(texts.begin(), texts.end(),
                          [](const std::string& t) { return t.find("\narg: -O2\n") != std::string::npos; }),
            1);
  // A request at Os (as a persistent program's opt sets it) builds the Os image.
  BuildRequest os_request = eltwise_reader();
  os_request.opt_level = 4;
  EXPECT_EQ(checker.check(os_request, kNone, kNone).total_bytes, os);
}

// Line 4 divides two floats in a function of its own. (Not in a return
// statement: GCC gives a returned expression the line of the closing brace.)
constexpr const char* kFloatDivideKernel = "#include \"api/compute/common.h\"\n"
                                           "\n"
                                           "__attribute__((noinline)) float ratio(float a, float b) {\n"
                                           "  volatile float q = a / b; // the cores have no fdiv\n"
                                           "  return q;\n"
                                           "}\n"
                                           "\n"
                                           "void kernel_main() {\n"
                                           "  volatile float out = ratio(float(get_arg_val<uint32_t>(0)),\n"
                                           "                             float(get_arg_val<uint32_t>(1)));\n"
                                           "  (void)out;\n"
                                           "}\n";

TEST_F(CrossBuildTest, FloatDivideInComputeIsFoundWithItsLine) {
  BuildRequest compute = request_for("ratio.cpp", kFloatDivideKernel);
  compute.kind = KernelKind::Compute;
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(kNone, kNone, compute);
  ASSERT_TRUE(report.insn_checked);
  ASSERT_EQ(report.findings.size(), 3u); // one per TRISC thread
  const char* threads[] = {"unpack", "math", "pack"};
  for (size_t i = 0; i < 3; ++i) {
    const InstructionFinding& finding = report.findings[i];
    EXPECT_EQ(finding.thread, threads[i]);
    EXPECT_EQ(finding.instruction, "fdiv.s");
    EXPECT_EQ(finding.function, "ratio(float, float)");
    EXPECT_EQ(finding.file, compute.source_path);
    EXPECT_EQ(finding.line, 4u);
  }
}

// The Welford calls take their reciprocal tables as std::array, which the
// toolchain's missing C++ library leaves to tessel/freestanding/array.
TEST_F(CrossBuildTest, WelfordKernelCrossCompiles) {
  BuildRequest compute =
      request_for("welford.cpp", "#include \"api/compute/welford.h\"\n"
                                 "\n"
                                 "void kernel_main() {\n"
                                 "  constexpr std::array<uint32_t, 2> lut = {0x3f800000u, 0x3f000000u};\n"
                                 "  tile_regs_acquire();\n"
                                 "  welford_init();\n"
                                 "  welford_update<2>(0, 0, lut);\n"
                                 "  welford_update_rows<0>(0, 2, 0, 7, {});\n"
                                 "  welford_save_state(1, 0);\n"
                                 "  welford_finalize_to_row<0>(1, 8, {});\n"
                                 "}\n");
  compute.kind = KernelKind::Compute;
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(kNone, kNone, compute);
  EXPECT_EQ(thread_names(report), (std::vector<std::string>{"unpack", "math", "pack"}));
}

TEST_F(CrossBuildTest, FloatDivideInDataMovementIsSoftwareDivision) {
  // rv32im has no float unit: the divide is libgcc's __divsf3, which the image
  // links and counts, and no instruction the core lacks.
  std::string text = kFloatDivideKernel;
  text.replace(text.find("api/compute/common.h"), 20, "api/dataflow/dataflow_api.h");
  BuildRequest reader = request_for("ratio_reader.cpp", text);
  BuildRequest plain = request_for("plain_reader.cpp", "#include \"api/dataflow/dataflow_api.h\"\n"
                                                       "void kernel_main() {\n"
                                                       "  volatile uint32_t out = get_arg_val<uint32_t>(0) + "
                                                       "get_arg_val<uint32_t>(1);\n"
                                                       "  (void)out;\n"
                                                       "}\n");
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(reader, kNone, kNone);
  EXPECT_TRUE(report.findings.empty()) << report.findings[0].instruction;
  EXPECT_TRUE(report.threads[0].unresolved_symbols.empty());
  // __divsf3 is several hundred bytes of integer code.
  EXPECT_GT(report.total_bytes, checker.check(plain, kNone, kNone).total_bytes + 200);
}

TEST_F(CrossBuildTest, CLibraryCallsAreListedNotCounted) {
  // DPRINT formats with snprintf, which no library of the toolchain defines.
  BuildRequest writer = request_for("print.cpp", "#include \"api/dataflow/dataflow_api.h\"\n"
                                                 "void kernel_main() {\n"
                                                 "  DPRINT << \"n=\" << get_arg_val<uint32_t>(0) << ENDL();\n"
                                                 "}\n");
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(kNone, writer, kNone);
  ASSERT_EQ(report.threads.size(), 1u);
  EXPECT_EQ(report.threads[0].unresolved_symbols, (std::vector<std::string>{"snprintf"}));
  EXPECT_GE(report.total_bytes, 200u);
}

TEST_F(CrossBuildTest, VectorDivideSquareRootAndEstimatesAreFound) {
  // Only the math thread has the code (TRISC_MATH is defined one thread at a
  // time); vfmul and vfadd are on the cores and must not be reported.
  BuildRequest compute = request_for("vector.cpp", "#include \"api/compute/common.h\"\n"
                                                   "void kernel_main() {\n"
                                                   "#ifdef TRISC_MATH\n"
                                                   "  asm volatile(\"vsetvli t0, zero, e32, m1, ta, ma\\n"
                                                   "vfmul.vv v1, v2, v3\\n"
                                                   "vfadd.vv v1, v2, v3\\n"
                                                   "vdivu.vx v1, v2, a0\\n"
                                                   "vrem.vv v1, v2, v3\\n"
                                                   "vfdiv.vv v1, v2, v3\\n"
                                                   "vfrdiv.vf v1, v2, fa0\\n"
                                                   "vfsqrt.v v1, v2\\n"
                                                   "vfrsqrt7.v v1, v2\\n"
                                                   "vfrec7.v v1, v2\\n"
                                                   "fsqrt.s fa0, fa1\\n\");\n"
                                                   "#endif\n"
                                                   "}\n");
  compute.kind = KernelKind::Compute;
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(kNone, kNone, compute);
  std::vector<std::string> found;
  for (const auto& finding : report.findings) {
    EXPECT_EQ(finding.thread, "math");
    EXPECT_EQ(finding.function, "kernel_main()");
    EXPECT_EQ(finding.file, compute.source_path);
    EXPECT_EQ(finding.line, 4u);
    found.push_back(finding.instruction);
  }
  EXPECT_EQ(found, (std::vector<std::string>{"vdivu.vx", "vrem.vv", "vfdiv.vv", "vfrdiv.vf", "vfsqrt.v", "vfrsqrt7.v",
                                             "vfrec7.v", "fsqrt.s"}));
  // The other threads' images hold no such code, so they are smaller.
  EXPECT_LT(size_of(report, "unpack"), size_of(report, "math"));
  EXPECT_EQ(size_of(report, "unpack"), size_of(report, "pack"));
}

TEST_F(CrossBuildTest, InsnCheckOffReportsNoFindings) {
  BuildRequest compute = request_for("ratio.cpp", kFloatDivideKernel);
  compute.kind = KernelKind::Compute;
  CrossChecker checker(cache_dir_);
  CrossReport checked = checker.check(kNone, kNone, compute);
  ASSERT_EQ(checked.findings.size(), 3u);
  {
    ScopedEnv off("TESSEL_INSN_CHECK", "0");
    CrossReport unchecked = checker.check(kNone, kNone, compute);
    EXPECT_FALSE(unchecked.insn_checked);
    EXPECT_TRUE(unchecked.findings.empty());
    EXPECT_EQ(unchecked.total_bytes, checked.total_bytes);
  }
  {
    ScopedEnv malformed("TESSEL_INSN_CHECK", "maybe");
    EXPECT_THROW(checker.check(kNone, kNone, compute), ValidationError);
  }
  // Back on: the checked result is still in the memo.
  uint64_t compiles = checker.stats().compiles;
  EXPECT_EQ(checker.check(kNone, kNone, compute).findings.size(), 3u);
  EXPECT_EQ(checker.stats().compiles, compiles);
}

TEST_F(CrossBuildTest, SecondCheckIsServedFromTheCache) {
  CrossReport first;
  {
    CrossChecker checker(cache_dir_);
    first = checker.check(eltwise_reader(), eltwise_writer(), eltwise_compute());
    EXPECT_EQ(checker.stats().compiles, 5u);
    CrossReport again = checker.check(eltwise_reader(), eltwise_writer(), eltwise_compute());
    EXPECT_EQ(again.total_bytes, first.total_bytes);
    EXPECT_EQ(checker.stats().compiles, 5u);
    EXPECT_EQ(checker.stats().memo_hits, 5u);
    EXPECT_EQ(checker.stats().disk_hits, 0u);
  }
  CrossChecker fresh(cache_dir_);
  CrossReport cached = fresh.check(eltwise_reader(), eltwise_writer(), eltwise_compute());
  EXPECT_EQ(fresh.stats().compiles, 0u);
  EXPECT_EQ(fresh.stats().disk_hits, 5u);
  ASSERT_EQ(cached.threads.size(), first.threads.size());
  for (size_t i = 0; i < cached.threads.size(); ++i) {
    EXPECT_EQ(cached.threads[i].thread, first.threads[i].thread);
    EXPECT_EQ(cached.threads[i].text_bytes, first.threads[i].text_bytes);
  }
  EXPECT_EQ(cached.total_bytes, first.total_bytes);
}

TEST_F(CrossBuildTest, CachedFindingsKeepTheirLines) {
  BuildRequest compute = request_for("ratio.cpp", kFloatDivideKernel);
  compute.kind = KernelKind::Compute;
  CrossChecker(cache_dir_).check(kNone, kNone, compute);
  CrossChecker fresh(cache_dir_);
  CrossReport cached = fresh.check(kNone, kNone, compute);
  EXPECT_EQ(fresh.stats().disk_hits, 3u);
  ASSERT_EQ(cached.findings.size(), 3u);
  EXPECT_EQ(cached.findings[1].thread, "math");
  EXPECT_EQ(cached.findings[1].instruction, "fdiv.s");
  EXPECT_EQ(cached.findings[1].function, "ratio(float, float)");
  EXPECT_EQ(cached.findings[1].file, compute.source_path);
  EXPECT_EQ(cached.findings[1].line, 4u);
}

TEST_F(CrossBuildTest, EditedSourceOrHeaderIsAMiss) {
  fs::path header = root_ / "include" / "count.h";
  write_text(header, "#define EXTRA_READS 1\n");
  std::string text = "#include \"api/dataflow/dataflow_api.h\"\n#include \"" + header.string() +
                     "\"\n"
                     "void kernel_main() {\n"
                     "  for (int i = 0; i < EXTRA_READS; ++i) cb_reserve_back(0, 1);\n"
                     "}\n";
  BuildRequest reader = request_for("edited.cpp", text);
  CrossChecker(cache_dir_).check(reader, kNone, kNone);

  write_text(header, "#define EXTRA_READS 2\n");
  CrossChecker after_header(cache_dir_);
  after_header.check(reader, kNone, kNone);
  EXPECT_EQ(after_header.stats().compiles, 1u);
  EXPECT_EQ(after_header.stats().disk_hits, 0u);

  write_source("edited.cpp", text + "// a comment\n");
  CrossChecker after_source(cache_dir_);
  after_source.check(reader, kNone, kNone);
  EXPECT_EQ(after_source.stats().compiles, 1u);

  CrossChecker unchanged(cache_dir_);
  unchanged.check(reader, kNone, kNone);
  EXPECT_EQ(unchanged.stats().compiles, 0u);
  EXPECT_EQ(unchanged.stats().disk_hits, 1u);
}

TEST_F(CrossBuildTest, DamagedRecordIsRebuilt) {
  CrossChecker(cache_dir_).check(kNone, eltwise_writer(), kNone);
  for (const auto& entry : fs::directory_iterator(fs::path(cache_dir_) / "cross"))
    if (entry.is_directory()) {
      std::string text = read_text(entry.path() / "report.txt");
      write_text(entry.path() / "report.txt", text.substr(0, text.size() - 4)); // no closing "end"
    }
  CrossChecker fresh(cache_dir_);
  uint32_t bytes = fresh.check(kNone, eltwise_writer(), kNone).total_bytes;
  EXPECT_EQ(fresh.stats().compiles, 1u);
  EXPECT_GE(bytes, 200u);
}

TEST_F(CrossBuildTest, SyntaxErrorIsAProgramErrorNamingThreadAndTarget) {
  BuildRequest writer;
  writer.source_text = "#include \"api/dataflow/dataflow_api.h\"\n"
                       "void kernel_main() {\n"
                       "  uint32_t x = ;\n"
                       "}\n";
  writer.display_name = "broken_writer.cpp";
  CrossChecker checker(cache_dir_);
  try {
    checker.check(eltwise_reader(), writer, kNone);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    std::string message = error.what();
    EXPECT_EQ(message.rfind("kernel broken_writer.cpp does not cross-compile for the size estimate (writer thread "
                            "on NCRISC, -march=rv32im -mabi=ilp32):\n",
                            0),
              0u)
        << message;
    EXPECT_NE(message.find("broken_writer.cpp:3:"), std::string::npos) << message;
    EXPECT_NE(message.find("error: expected primary-expression"), std::string::npos) << message;
  }
  // The reader's image was built and published all the same.
  EXPECT_EQ(checker.stats().compiles, 1u);
}

TEST_F(CrossBuildTest, MalformedRequestsAreValidationErrors) {
  CrossChecker checker(cache_dir_);
  auto message_of = [&](const BuildRequest& reader, const BuildRequest& writer, const BuildRequest& compute,
                        const CrossOptLevels& opt = {}) -> std::string {
    try {
      checker.check(reader, writer, compute, opt);
    } catch (const ValidationError& error) {
      return error.what();
    }
    return "no ValidationError";
  };
  EXPECT_EQ(message_of(kNone, kNone, kNone),
            "cross_check: no kernel given (reader, writer and compute all have no source)");
  EXPECT_EQ(message_of(eltwise_compute(), kNone, kNone), "cross_check: the reader kernel " +
                                                             example_kernel("compute.cpp") +
                                                             " is a compute kernel; expected a data-movement kernel");
  EXPECT_EQ(message_of(kNone, kNone, eltwise_reader()), "cross_check: the compute kernel " +
                                                            example_kernel("reader.cpp") +
                                                            " is a data-movement kernel; expected a compute kernel");
  EXPECT_EQ(message_of(eltwise_reader(), kNone, kNone, {"O4", "", ""}),
            "cross_check: the reader kernel's opt level 'O4' is not one of O0, O1, O2, O3, Os, Ofast, Oz (or empty "
            "for the request's own)");
  BuildRequest bad_opt = eltwise_reader();
  bad_opt.opt_level = 7;
  EXPECT_NE(message_of(bad_opt, kNone, kNone).find("opt_level 7 is out of range"), std::string::npos);
  EXPECT_EQ(checker.stats().compiles, 0u);
}

TEST_F(CrossBuildTest, MissingCompilerNamesItsPackage) {
  CrossToolchain toolchain;
  toolchain.cxx = (root_ / "bin" / "riscv64-unknown-elf-g++").string();
  CrossChecker checker(cache_dir_, toolchain);
  try {
    checker.check(eltwise_reader(), kNone, kNone);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    EXPECT_EQ(std::string(error.what()), "the RISC-V toolchain is missing: " + toolchain.cxx +
                                             " cannot be run (No such file or directory), and the kernel size "
                                             "estimate needs it; install Debian's gcc-riscv64-unknown-elf "
                                             "(scripts/bootstrap installs it)");
  }
}

TEST_F(CrossBuildTest, MissingObjdumpNamesItsPackageUnlessTheCheckIsOff) {
  CrossToolchain toolchain;
  toolchain.objdump = (root_ / "bin" / "riscv64-unknown-elf-objdump").string();
  CrossChecker checker(cache_dir_, toolchain);
  try {
    checker.check(kNone, eltwise_writer(), kNone);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find(toolchain.objdump + " cannot be run"), std::string::npos) << message;
    EXPECT_NE(message.find("install Debian's binutils-riscv64-unknown-elf"), std::string::npos) << message;
    EXPECT_NE(message.find("TESSEL_INSN_CHECK=0"), std::string::npos) << message;
  }
  ScopedEnv off("TESSEL_INSN_CHECK", "0");
  CrossReport report = checker.check(kNone, eltwise_writer(), kNone);
  EXPECT_FALSE(report.insn_checked);
  EXPECT_GE(report.total_bytes, 200u);
}

TEST_F(CrossBuildTest, MissingAddr2lineKeepsFindingsWithoutLines) {
  CrossToolchain toolchain;
  toolchain.addr2line = (root_ / "bin" / "riscv64-unknown-elf-addr2line").string();
  BuildRequest compute = request_for("ratio.cpp", kFloatDivideKernel);
  compute.kind = KernelKind::Compute;
  CrossChecker checker(cache_dir_, toolchain);
  CrossReport report = checker.check(kNone, kNone, compute);
  ASSERT_EQ(report.findings.size(), 3u);
  for (const auto& finding : report.findings) {
    EXPECT_EQ(finding.instruction, "fdiv.s");
    EXPECT_EQ(finding.function, "ratio(float, float)");
    EXPECT_EQ(finding.file, "");
    EXPECT_EQ(finding.line, 0u);
  }
  // A checker that has addr2line does not take those entries for its own.
  CrossChecker with_lines(cache_dir_);
  EXPECT_EQ(with_lines.check(kNone, kNone, compute).findings[0].line, 4u);
  EXPECT_EQ(with_lines.stats().compiles, 3u);
}

TEST_F(CrossBuildTest, PersistentKernelsCrossCompile) {
  // tessel/persistent.h includes <type_traits> and <utility> and loops over a
  // braced list: the freestanding headers (kernel/include/tessel/freestanding)
  // stand in for the C++ library the toolchain lacks.
  const std::string dir = std::string(TESSEL_TEST_SOURCE_DIR) + "/tests/dispatch/kernels/basic/";
  BuildRequest reader, writer, compute;
  reader.source_path = dir + "reader.cpp";
  writer.source_path = dir + "writer.cpp";
  compute.source_path = dir + "compute.cpp";
  compute.kind = KernelKind::Compute;
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(reader, writer, compute);
  EXPECT_EQ(report.threads.size(), 5u);
  for (const auto& thread : report.threads) {
    EXPECT_GE(thread.text_bytes, 500u) << thread.thread; // the runtime's loop and the handlers
    EXPECT_LE(thread.text_bytes, 8192u) << thread.thread;
  }
  EXPECT_TRUE(report.findings.empty());
}

TEST_F(CrossBuildTest, FreestandingHeadersKeepTheirStandardMeaning) {
  // Checked by the cross compiler itself: a static_assert that fails is a
  // ProgramError.
  BuildRequest writer = request_for("traits.cpp", R"(#include <initializer_list>
#include <type_traits>
#include <utility>
#include "api/dataflow/dataflow_api.h"
struct Functor { int operator()(int) const { return 1; } };
void takes(int);
static_assert(std::is_same_v<std::make_index_sequence<3>, std::index_sequence<0, 1, 2>>);
static_assert(std::make_integer_sequence<uint32_t, 0>::size() == 0);
static_assert(std::is_same_v<std::index_sequence_for<int, char>, std::index_sequence<0, 1>>);
static_assert(std::is_invocable_v<void (*)(int), int> && std::is_invocable_v<Functor, long>);
static_assert(!std::is_invocable_v<void (*)(int)> && !std::is_invocable_v<Functor, int*> && !std::is_invocable_v<int>);
static_assert(std::is_invocable_v<decltype(takes), int>);
static_assert(std::is_same_v<std::remove_cvref_t<const volatile int&>, int> && std::is_void_v<const void>);
static_assert(std::is_same_v<std::conditional_t<false, int, char>, char> && std::is_same_v<std::enable_if_t<true>, void>);
static_assert(std::is_same_v<decltype(std::move(std::declval<int&>())), int&&>);
constexpr int sum(std::initializer_list<int> list) {
  int total = 0;
  for (int v : list) total += v;
  return total;
}
static_assert(sum({1, 2, 3}) == 6 && std::initializer_list<int>{}.size() == 0);
void kernel_main() {
  for (uint32_t cb : {0u, 1u}) cb_push_back(cb, 1);
}
)");
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(kNone, writer, kNone);
  EXPECT_GE(report.total_bytes, 100u); // two calls through the table, over a braced list
}

TEST_F(CrossBuildTest, EachTriscThreadKeepsOnlyItsOwnCode) {
  BuildRequest compute = request_for("per_thread.cpp", "#include \"api/compute/common.h\"\n"
                                                       "void kernel_main() {\n"
                                                       "  UNPACK(asm volatile(\"vfdiv.vv v1, v2, v3\"));\n"
                                                       "  MATH(asm volatile(\"vrem.vv v1, v2, v3\"));\n"
                                                       "  PACK(asm volatile(\"vfsqrt.v v1, v2\"));\n"
                                                       "}\n");
  compute.kind = KernelKind::Compute;
  CrossChecker checker(cache_dir_);
  CrossReport report = checker.check(kNone, kNone, compute);
  ASSERT_EQ(report.findings.size(), 3u);
  EXPECT_EQ(report.findings[0].thread + " " + report.findings[0].instruction, "unpack vfdiv.vv");
  EXPECT_EQ(report.findings[1].thread + " " + report.findings[1].instruction, "math vrem.vv");
  EXPECT_EQ(report.findings[2].thread + " " + report.findings[2].instruction, "pack vfsqrt.v");
  EXPECT_EQ(report.findings[0].line, 3u);
  EXPECT_EQ(report.findings[1].line, 4u);
  EXPECT_EQ(report.findings[2].line, 5u);
}

TEST_F(CrossBuildTest, TheHostBuildStillRunsEveryThreadsCode) {
  // The headers' TESSEL_CROSS_ESTIMATE branches must not reach the host JIT:
  // there, a compute kernel still sees TRISC_MATH and UNPACK/MATH/PACK run
  // their argument.
  BuildRequest compute = request_for("macros.cpp", "#include \"api/compute/common.h\"\n"
                                                   "extern \"C\" int seen() {\n"
                                                   "  int n = 0;\n"
                                                   "  UNPACK(n += 1);\n"
                                                   "  MATH(n += 10);\n"
                                                   "  PACK(n += 100);\n"
                                                   "#ifdef TRISC_MATH\n"
                                                   "  n += 1000;\n"
                                                   "#endif\n"
                                                   "  return n;\n"
                                                   "}\n"
                                                   "void kernel_main() {}\n");
  compute.kind = KernelKind::Compute;
  KernelCache cache(cache_dir_);
  auto binary = cache.build(compute);
  Dl_info info{};
  ASSERT_NE(::dladdr(reinterpret_cast<void*>(binary->instance(0)), &info), 0);
  void* handle = ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  auto seen = reinterpret_cast<int (*)()>(::dlsym(handle, "seen"));
  ::dlclose(handle); // the binary still holds its own reference
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen(), 1111);
}

} // namespace
} // namespace tessel::jit
