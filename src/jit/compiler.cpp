#include "jit/compiler.hpp"

#include "jit/file_io.hpp"
#include "jit/process.hpp"

#include "tessel/error.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <semaphore>
#include <thread>

namespace tessel::jit {
namespace {

// Compiler output kept for an error message; the first errors are the useful ones.
constexpr size_t kMaxOutputBytes = 16 * 1024;

// Flags for every kernel.
//  -fno-gnu-unique: g++ gives inline variables and statics of inline functions
//    STB_GNU_UNIQUE binding, which glibc resolves to one definition across all
//    loaded objects; per-core copies of a kernel would then share them (and
//    the objects could never be unloaded).
//  -fno-semantic-interposition: kernels are loaded RTLD_LOCAL and nothing
//    interposes on their symbols, so calls inside a kernel may bind directly.
//  Unwind tables stay on (no -fno-asynchronous-unwind-tables): the simulator
//    unwinds and symbolises through kernel frames when it reports a fault.
//  -pipe: saves the temporary assembler file (measured ~5 ms per kernel).
//  -fno-optimize-sibling-calls: a call in tail position keeps the kernel's
//    frame, so a crash inside a library call is blamed on its line.
//  --wrap: the kernel's calls that would end the process go to the prelude's
//    replacements (kernel_prelude.h), which stop the kernel with a report.
const std::vector<std::string> kFixedFlags = {
    "-std=c++20",
    "-fPIC",
    "-shared",
    "-g1",
    "-fno-exceptions",
    "-fno-rtti",
    "-fno-gnu-unique",
    "-fno-semantic-interposition",
    // Frames larger than the fiber stack's guard page must still hit it.
    "-fstack-clash-protection",
    "-fno-optimize-sibling-calls",
    "-fdiagnostics-color=never",
    "-pipe",
    "-Wl,--wrap=abort,--wrap=exit,--wrap=_exit,--wrap=_Exit,--wrap=quick_exit,--wrap=__assert_fail,"
    "--wrap=_ZSt9terminatev,--wrap=__stack_chk_fail,--wrap=pthread_exit",
};

// Linking. Measured with g++ 12 on a one-line kernel (compile + link, mean of
// 30 runs): g++ default link 80 ms; `gcc -x c++` (no libstdc++) 60 ms;
// `-nodefaultlibs -lgcc` 48 ms; with -pipe 40 ms; -fuse-ld=lld or gold were
// slower. Opening libstdc++.so and libc.so in the linker is most of the
// difference, and the host process has both loaded already, so the default
// link is Minimal: crt start files and static libgcc only, with libc and
// libstdc++ symbols (memcpy, operator new, __cxa_guard_acquire, ...) bound at
// dlopen against the host's global scope. g++ 12 has no -nostdlib++. If a
// host lacks one of them in its global scope (e.g. a Python extension loaded
// RTLD_LOCAL), dlopen reports an undefined symbol and the cache relinks that
// kernel with LinkMode::Full.
const std::vector<std::string> kMinimalLinkFlags = {"-nodefaultlibs"};
const std::vector<std::string> kMinimalLinkLibraries = {"-lgcc"};

std::counting_semaphore<>& compiler_slots() {
  static std::counting_semaphore<> slots(std::max<std::ptrdiff_t>(1, std::thread::hardware_concurrency()));
  return slots;
}

ProcessResult run_compiler_process(const std::vector<std::string>& argv, const std::string& working_dir) {
  ProcessResult result = run_process(argv, working_dir, kMaxOutputBytes, "kernel compiler");
  if (result.spawn_error != 0)
    throw ProgramError("kernel compiler " + argv[0] + " could not be started: " + std::strerror(result.spawn_error) +
                       " (set TESSEL_KERNEL_CXX to a C++20 compiler)");
  return result;
}

std::string environment_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// g++ before 14 refuses `#pragma GCC unroll N` whose N depends on a template
// parameter ("requires an assignment-expression that evaluates to a
// non-negative integral constant"); kernels written for tt-metal's newer
// toolchain use it (conv's readers, in headers of their own). The pragma is an
// optimisation hint, so such a kernel is built again without it: preprocessed
// once (writing the depfile, so the cache still tracks every header), the
// unroll pragmas whose count is not a literal dropped (the line kept blank, so
// diagnostics keep their lines), and the result compiled. Kernels that build
// the first time never take this path.
bool refuses_dependent_unroll(const std::string& output) {
  return output.find("unroll") != std::string::npos &&
         output.find("requires an assignment-expression that evaluates to a non-negative integral constant") !=
             std::string::npos;
}

// Whether every error of a failed compile is a pointer cast to a 32-bit
// integer ("(uint32_t)packet_header"): code written for the RISC-V cores,
// whose pointers are 32 bits, where the cast is exact. Kernel pointers into
// L1 are below 4 GiB here too, so such a kernel is rebuilt with -fpermissive
// (which makes exactly those casts warnings; the compile had no other error).
bool only_pointer_truncations(const std::string& output) {
  size_t errors = 0, truncations = 0;
  for (size_t at = output.find("error: "); at != std::string::npos; at = output.find("error: ", at + 7)) {
    ++errors;
    const size_t end = output.find('\n', at);
    const std::string_view line(output.data() + at, (end == std::string::npos ? output.size() : end) - at);
    if (line.find("cast from ") != std::string_view::npos && line.find("loses precision") != std::string_view::npos)
      ++truncations;
  }
  return errors > 0 && errors == truncations;
}

bool is_literal_unroll_count(std::string_view count) {
  while (!count.empty() && (count.back() == ' ' || count.back() == '\t' || count.back() == '\r'))
    count.remove_suffix(1);
  return !count.empty() && std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string without_dependent_unroll(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  constexpr std::string_view kPragma = "pragma GCC unroll";
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end == std::string_view::npos ? text.size() : end + 1);
    text.remove_prefix(line.size());
    size_t first = line.find_first_not_of(" \t");
    bool drop = false;
    if (first != std::string_view::npos && line[first] == '#') {
      std::string_view rest = line.substr(first + 1);
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
      if (rest.substr(0, kPragma.size()) == kPragma) {
        std::string_view count = rest.substr(kPragma.size());
        if (!count.empty() && count.back() == '\n') count.remove_suffix(1);
        count.remove_prefix(std::min(count.size(), count.find_first_not_of(" \t")));
        drop = !is_literal_unroll_count(count);
      }
    }
    out.append(drop ? std::string_view("\n") : line);
  }
  return out;
}

// The compiler's command line for one stage of a kernel's build: the whole
// build (Build), or the fallback's two steps (compile_without_dependent_unroll below): the
// source preprocessed into `preprocessed`, writing the depfile (Preprocess),
// then that file built (BuildPreprocessed).
enum class Stage { Build, Preprocess, BuildPreprocessed };

std::vector<std::string> kernel_command(const CompileJob& job, Stage stage, const std::string& preprocessed = {}) {
  const bool links = stage != Stage::Preprocess;
  const bool minimal = links && job.link_mode == LinkMode::Minimal;
  std::vector<std::string> argv = {job.cxx};
  if (!links) argv.push_back("-E");
  argv.insert(argv.end(), kFixedFlags.begin(), kFixedFlags.end());
  if (minimal) argv.insert(argv.end(), kMinimalLinkFlags.begin(), kMinimalLinkFlags.end());
  if (stage != Stage::BuildPreprocessed) {
    argv.push_back("-I" + job.include_dir);
    argv.insert(argv.end(), {"-include", "tessel/kernel_prelude.h", "-MD", "-MF", job.depfile_path});
    if (stage == Stage::Preprocess) argv.insert(argv.end(), {"-MT", job.output_path});
  }
  argv.insert(argv.end(), job.request_flags.begin(), job.request_flags.end());
  // The source is C++ whatever its name ends in (a kernel given as text is
  // written under its display name); the link inputs after it are not.
  if (stage == Stage::Preprocess)
    argv.insert(argv.end(), {"-o", preprocessed, "-x", "c++", job.source_arg});
  else if (stage == Stage::BuildPreprocessed)
    argv.insert(argv.end(), {"-o", job.output_path, "-x", "c++-cpp-output", preprocessed, "-x", "none"});
  else
    argv.insert(argv.end(), {"-o", job.output_path, "-x", "c++", job.source_arg, "-x", "none"});
  if (minimal) argv.insert(argv.end(), kMinimalLinkLibraries.begin(), kMinimalLinkLibraries.end());
  return argv;
}

ProcessResult compile_without_dependent_unroll(const CompileJob& job) {
  const std::string preprocessed = job.output_path + ".unroll.ii";
  struct Cleanup {
    const std::string& path;
    ~Cleanup() { std::remove(path.c_str()); }
  } cleanup{preprocessed};
  ProcessResult result;
  {
    CompilerSlot slot;
    result = run_compiler_process(kernel_command(job, Stage::Preprocess, preprocessed), job.working_dir);
  }
  if (!succeeded(result)) return result;
  std::optional<std::string> text = read_file(preprocessed);
  if (!text) return result;
  write_file_atomic(preprocessed, without_dependent_unroll(*text));
  CompilerSlot slot;
  return run_compiler_process(kernel_command(job, Stage::BuildPreprocessed, preprocessed), job.working_dir);
}

} // namespace

CompilerConfig compiler_config_from_environment() {
  // Relative paths are made absolute now: the compiler of a text kernel runs
  // in another directory. A bare compiler name is looked up in PATH.
  std::string cxx = environment_or("TESSEL_KERNEL_CXX", TESSEL_CXX_COMPILER);
  if (cxx.find('/') != std::string::npos) cxx = std::filesystem::absolute(cxx).lexically_normal().string();
  std::string include_dir = environment_or("TESSEL_KERNEL_INCLUDE_DIR", TESSEL_KERNEL_INCLUDE_DIR);
  include_dir = std::filesystem::absolute(include_dir).lexically_normal().string();
  std::error_code ec;
  if (const char* set = std::getenv("TESSEL_KERNEL_INCLUDE_DIR");
      set && *set && !std::filesystem::is_regular_file(include_dir + "/tessel/kernel_prelude.h", ec))
    throw ValidationError(std::string("TESSEL_KERNEL_INCLUDE_DIR='") + set +
                          "' is not valid: it holds no tessel/kernel_prelude.h (expected tessel's kernel/include "
                          "directory)");
  return {std::move(cxx), std::move(include_dir)};
}

const std::string& compiler_identity(const std::string& cxx) {
  static std::mutex mutex;
  static std::map<std::string, std::string> identities; // node-based: references stay valid
  std::lock_guard lock(mutex);
  if (auto it = identities.find(cxx); it != identities.end()) return it->second;
  ProcessResult result = run_compiler_process({cxx, "--version"}, {});
  if (!succeeded(result))
    throw ProgramError("kernel compiler " + cxx + " --version failed:\n" + describe_failure(result, "compiler") +
                       "\n(set TESSEL_KERNEL_CXX to a C++20 compiler)");
  std::string first_line = result.output.substr(0, result.output.find('\n'));
  return identities.emplace(cxx, std::move(first_line)).first->second;
}

CompilerSlot::CompilerSlot() { compiler_slots().acquire(); }
CompilerSlot::~CompilerSlot() { compiler_slots().release(); }

const std::vector<std::string>& fixed_compile_flags() { return kFixedFlags; }

std::vector<std::string> compile_command(const CompileJob& job) { return kernel_command(job, Stage::Build); }

void run_compile(const CompileJob& job) {
  std::vector<std::string> argv = compile_command(job);
  ProcessResult result;
  {
    CompilerSlot slot;
    result = run_compiler_process(argv, job.working_dir);
  }
  if (!succeeded(result) && refuses_dependent_unroll(result.output)) result = compile_without_dependent_unroll(job);
  if (!succeeded(result) && only_pointer_truncations(result.output)) {
    CompileJob permissive = job;
    permissive.request_flags.push_back("-fpermissive");
    CompilerSlot slot;
    result = run_compiler_process(compile_command(permissive), job.working_dir);
  }
  if (!succeeded(result))
    throw ProgramError("kernel " + job.display_name + " failed to compile:\n" + describe_failure(result, "compiler"));
}

std::vector<std::string> parse_depfile(std::string_view text, const std::string& base_dir) {
  // Skip the target: up to the first ':' followed by white space.
  size_t colon = 0;
  while (true) {
    colon = text.find(':', colon);
    if (colon == std::string_view::npos) return {};
    if (colon + 1 >= text.size() || text[colon + 1] == ' ' || text[colon + 1] == '\n' || text[colon + 1] == '\t') break;
    ++colon;
  }
  std::vector<std::string> paths;
  std::string current;
  auto flush = [&] {
    if (current.empty()) return;
    if (current[0] != '/') current = base_dir + "/" + current;
    paths.push_back(std::move(current));
    current.clear();
  };
  for (size_t i = colon + 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      char next = text[i + 1];
      if (next == '\n') { // line continuation
        flush();
        ++i;
        continue;
      }
      if (next == ' ' || next == '#' || next == '\\') {
        current += next;
        ++i;
        continue;
      }
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      current += '$';
      ++i;
      continue;
    }
    if (c == '\n') break; // end of the first rule
    if (c == ' ' || c == '\t' || c == '\r') {
      flush();
      continue;
    }
    current += c;
  }
  flush();
  return paths;
}

} // namespace tessel::jit
