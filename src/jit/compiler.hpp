// Running the host compiler on one kernel: the command line, the process
// (posix_spawn, no shell, output captured), the compiler's identity and the
// depfile it writes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessel::jit {

// Which compiler and kernel headers to use: TESSEL_KERNEL_CXX and
// TESSEL_KERNEL_INCLUDE_DIR from the environment, else the values the runtime
// was configured with.
struct CompilerConfig {
  std::string cxx;
  std::string include_dir;
};
CompilerConfig compiler_config_from_environment();

// First line of `<cxx> --version`, run once per compiler per process.
// Throws tessel::ProgramError if the compiler cannot be run.
const std::string& compiler_identity(const std::string& cxx);

// How the shared object is linked; see kFastLinkFlags in compiler.cpp.
enum class LinkMode {
  Minimal, // no default libraries: undefined symbols resolve against the host process
  Full,    // the driver's default libraries (libstdc++, libm, libc, libgcc)
};

// Flags that do not depend on the request (part of the cache key).
const std::vector<std::string>& fixed_compile_flags();

struct CompileJob {
  std::string cxx;
  std::string include_dir;
  std::string working_dir;  // empty: the process's current directory
  std::string source_arg;   // as passed to the compiler (becomes __FILE__)
  std::string display_name; // for messages
  std::string output_path;  // absolute
  std::string depfile_path; // absolute
  std::vector<std::string> request_flags;
  LinkMode link_mode = LinkMode::Minimal;
};

std::vector<std::string> compile_command(const CompileJob& job);

// One of the process's std::thread::hardware_concurrency() compiler slots,
// held for its lifetime (blocks until one is free). Every kernel compiler the
// JIT runs, for the host or for the size estimate (cross_build.hpp), holds one.
class CompilerSlot {
public:
  CompilerSlot();
  ~CompilerSlot();
  CompilerSlot(const CompilerSlot&) = delete;
  CompilerSlot& operator=(const CompilerSlot&) = delete;
};

// Runs the compiler in a CompilerSlot. Throws tessel::ProgramError
// "kernel <display name> failed to compile:\n<compiler output>" on failure.
void run_compile(const CompileJob& job);

// Prerequisites listed in a Makefile-syntax depfile (the first rule only),
// made absolute against `base_dir` when relative.
std::vector<std::string> parse_depfile(std::string_view text, const std::string& base_dir);

} // namespace tessel::jit
