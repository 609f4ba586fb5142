// Loading a runner directory (Runner::load): every malformed or
// inconsistent manifest is a ValidationError with its file, line and exact
// message, and a failed load builds nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "runner_fixture.hpp"
#include "sim/ops_kernel.hpp"
#include "tessel/operation.hpp"
#include "tessel/runner.hpp"

namespace tessel::test {
namespace {

// The kernel file the manifest names (loading reads no source).
const char* const kKernelSource = "void kernel_main() {}\n";

// ---- Load errors: one case each, with the exact message ----

// A valid hand-written manifest; each case breaks one line.
const char* const kManifest = "tessel-runner 1\n"                         // 1
                              "operation \"op\"\n"                        // 2
                              "kernel captured \"sender\" DataMovement\n" // 3
                              "  source \"k.cpp\"\n"                      // 4
                              "  config reader\n"                         // 5
                              "  compile_args 1 2\n"                      // 6
                              "  define \"A\" \"1\"\n"                    // 7
                              "cb 2048 0:Float16_b:2048\n"                // 8
                              "semaphore 0\n"                             // 9
                              "end\n";                                    // 10

class RunnerLoadTest : public RunnerTest {
protected:
  fs::path dir;
  std::string manifest;
  void SetUp() override {
    RunnerTest::SetUp();
    dir = scratch / "r";
    fs::create_directories(dir);
    manifest = (dir / "manifest.txt").string();
    write_text(dir / "k.cpp", kKernelSource);
  }
  // The error loading `text` as the manifest.
  std::string load_error(const std::string& text) {
    write_text(manifest, text);
    return error_from<ValidationError>([&] { Runner::load(dir.string()); });
  }
  // kManifest with line `n` (1-based) replaced by `line` (empty: removed).
  static std::string with_line(size_t n, const std::string& line) {
    std::istringstream in(kManifest);
    std::string out, l;
    for (size_t i = 1; std::getline(in, l); ++i)
      if (i != n)
        out += l + "\n";
      else if (!line.empty())
        out += line + "\n";
    return out;
  }
  std::string at(size_t line) const { return manifest + ":" + std::to_string(line) + ": "; }
};

TEST_F(RunnerLoadTest, TheBaseManifestLoads) {
  write_text(manifest, kManifest);
  const Runner r = Runner::load(dir.string() + "/");
  EXPECT_EQ(r.directory(), fs::absolute(dir).string());
  EXPECT_EQ(r.operation().name(), "op");
  EXPECT_EQ(r.operation().kernels()[0].compile_args, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(r.operation().own_semaphores(), (std::vector<uint32_t>{0}));
}

TEST_F(RunnerLoadTest, MissingDirectoryAndMissingManifest) {
  EXPECT_EQ(error_from<ValidationError>([&] { Runner::load((scratch / "nowhere").string()); }),
            "Runner::load: '" + (scratch / "nowhere").string() +
                "' is not a directory; expected a directory written by emit_runner");
  EXPECT_EQ(error_from<ValidationError>([&] { Runner::load(dir.string()); }),
            "Runner::load: no manifest at '" + manifest + "'; expected a directory written by emit_runner");
}

TEST_F(RunnerLoadTest, HeaderAndVersion) {
  EXPECT_EQ(load_error(with_line(1, "tessel-runner 2")),
            at(1) + "format version 2 is not supported; expected 'tessel-runner 1'");
  EXPECT_EQ(load_error(with_line(1, "")),
            at(1) + "the manifest starts with 'operation'; expected the header 'tessel-runner 1'");
  EXPECT_EQ(load_error("# only a comment\n\n"), at(2) + "the manifest is empty; expected the header 'tessel-runner 1'");
}

TEST_F(RunnerLoadTest, UnknownField) {
  EXPECT_EQ(load_error(with_line(7, "  colour \"blue\"")),
            at(7) + "unknown field 'colour'; expected one of: operation, kernel, source, config, compile_args, define, "
                    "specialization, cb, semaphore, claim, topology, link, generated, end");
}

TEST_F(RunnerLoadTest, MissingKernelFile) {
  fs::remove(dir / "k.cpp");
  EXPECT_EQ(load_error(kManifest), at(4) + "kernel 0 (Kernel 'sender' (DataMovement)): kernel file '" +
                                       (fs::absolute(dir) / "k.cpp").string() +
                                       "' does not exist; expected the source emit_runner wrote");
}

TEST_F(RunnerLoadTest, MalformedLines) {
  EXPECT_EQ(load_error(with_line(6, "  compile_args 1 x")),
            at(6) + "compile_args: value 2 'x' is not an unsigned 32-bit integer; expected 'compile_args <u32>...'");
  EXPECT_EQ(load_error(with_line(6, "  compile_args 4294967296")),
            at(6) + "compile_args: value 1 '4294967296' is not an unsigned 32-bit integer; expected 'compile_args "
                    "<u32>...'");
  EXPECT_EQ(load_error(with_line(2, "operation \"op")), at(2) + "unterminated string (no closing '\"')");
  EXPECT_EQ(load_error(with_line(2, "operation op")),
            at(2) + "operation: the name 'op' is not a quoted string; expected 'operation \"<name>\"'");
  EXPECT_EQ(load_error(with_line(7, "  define \"A\" \"\\q\"")),
            at(7) + "unknown escape '\\q' in a string; expected one of \\\\ \\\" \\n \\t");
  EXPECT_EQ(load_error(with_line(7, "  define \"A\"")),
            at(7) + "define: 1 values; expected 'define \"<name>\" \"<value>\"'");
  EXPECT_EQ(load_error(with_line(3, "kernel captured \"sender\" Dataflow")),
            at(3) + "kernel: kind 'Dataflow' is not Compute or DataMovement; expected 'kernel kind "
                    "<Compute|DataMovement>' or 'kernel captured \"<name>\" <Compute|DataMovement>'");
  EXPECT_EQ(load_error(with_line(5, "  config data_movement RISCV_2 NOC_0")),
            at(5) + "config: processor 'RISCV_2' is not RISCV_0 or RISCV_1; expected 'config reader' or 'config "
                    "writer' or 'config data_movement <RISCV_0|RISCV_1> <NOC_0|NOC_1>' or 'config compute "
                    "<LoFi|HiFi2|HiFi3|HiFi4> fp32_dest_acc_en=<0|1> dst_full_sync_en=<0|1> math_approx_mode=<0|1> "
                    "bfp8_pack_precise=<0|1> unpack_to_dest_mode=<Default|UnpackToDestFp32>[,...] "
                    "[enable_trisc2_rvv=<0|1>]'");
  EXPECT_EQ(load_error(with_line(5, "  config compute HiFi4 fp32_dest_acc_en=0 dst_full_sync_en=0 math_approx_mode=0 "
                                    "bfp8_pack_precise=0 unpack_to_dest_mode=")),
            at(5) + "config: kernel 0 (line 3) is a DataMovement kernel; expected a data-movement config");
  EXPECT_EQ(load_error(with_line(7, "  specialization {(1,0)-(2} 1")),
            at(7) + "specialization: core set '{(1,0)-(2}' is not of the form {(x,y)-(x,y),(x,y)}; expected "
                    "'specialization <cores> <u32>...'");
  EXPECT_EQ(load_error(with_line(8, "cb 2048 0:Float17:2048")),
            at(8) + "cb: " + error_from<ValidationError>([] { parse_data_format("Float17"); }) +
                "; expected 'cb <total_size_bytes> <index>:<DataFormat>:<page_size_bytes>...'");
  EXPECT_EQ(load_error(with_line(8, "cb 2048 0-Float16_b-2048")),
            at(8) + "cb: format '0-Float16_b-2048' is not <index>:<DataFormat>:<page_size_bytes>; expected 'cb "
                    "<total_size_bytes> <index>:<DataFormat>:<page_size_bytes>...'");
  EXPECT_EQ(load_error(with_line(9, "semaphore")), at(9) + "semaphore: 0 values; expected 'semaphore <initial_value>'");
}

TEST_F(RunnerLoadTest, StructureRules) {
  EXPECT_EQ(load_error(with_line(10, "")),
            at(9) + "no 'end' line; expected 'end' as the last line (the manifest may be truncated)");
  EXPECT_EQ(load_error(std::string(kManifest) + "semaphore 1\n"),
            at(11) + "'semaphore' after 'end'; expected 'end' to be the last line");
  EXPECT_EQ(load_error(with_line(4, "")),
            at(3) + "kernel 0 (Kernel 'sender' (DataMovement)) has no 'source' line; expected 'source \"<file "
                    "name>\"' after it");
  EXPECT_EQ(load_error(with_line(6, "")),
            at(3) + "kernel 0 (Kernel 'sender' (DataMovement)) has no 'compile_args' line; expected 'compile_args "
                    "<u32>...'");
  EXPECT_EQ(load_error(with_line(6, "  source \"k.cpp\"")),
            at(6) + "a second 'source' line for kernel 0 (line 3) (the first is on line 4); expected one");
  EXPECT_EQ(load_error(with_line(4, "  source \"../k.cpp\"")),
            at(4) + "source: '../k.cpp' is not a file name inside the runner directory; expected 'source \"<file "
                    "name>\"'");
  EXPECT_EQ(load_error(with_line(9, "  define \"B\" \"2\"")),
            at(9) + "'define' belongs to a kernel; expected it after a 'kernel' line and before the first cb or "
                    "semaphore line");
  EXPECT_EQ(load_error(with_line(9, "kernel kind DataMovement")),
            at(9) + "'kernel' after a cb or semaphore line; expected every kernel before them");
  EXPECT_EQ(load_error(with_line(2, "")),
            at(2) + "'kernel' before the 'operation' line; expected 'operation \"<name>\"' after the header");
  EXPECT_EQ(load_error(with_line(7, "kernel captured \"sender\" DataMovement")),
            at(7) + "a second captured Kernel named 'sender' (the first is on line 3); expected unique names");
  EXPECT_EQ(load_error(with_line(7, "  define \"A\" \"1\"\n  define \"A\" \"2\"")),
            at(8) + "define: 'A' is defined twice for kernel 0 (line 3); expected once");
  EXPECT_EQ(load_error(with_line(7, "  specialization {(0,0)-(1,0)} 1\n  specialization {(1,0)} 2")),
            at(8) + "specialization: cores {(1,0)} overlap specialization 0 of kernel 0 (line 3) ({(0,0)-(1,0)}); "
                    "expected each core in one group");
}

// A failed load builds nothing: the same directory loads once fixed.
TEST_F(RunnerLoadTest, AFailedLoadThenAFixedOneLoads) {
  EXPECT_FALSE(load_error(with_line(6, "  compile_args x")).empty());
  write_text(manifest, kManifest);
  EXPECT_EQ(Runner::load(dir.string()).operation().kernels().size(), 1u);
}

} // namespace
} // namespace tessel::test
