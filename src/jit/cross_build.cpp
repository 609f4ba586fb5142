// CrossChecker: the in-process memo, then the on-disk cache, then the
// toolchain (see cross_build.hpp for what is built and why).
//
// Disk protocol, as the host JIT's (kernel_cache.cpp D1-D5) with one record
// file instead of a binary: an entry is `<root>/cross/<hash>/` holding
// report.txt (and thread.elf, published before it); `<root>/cross/<hash>.lock`
// is its flock. <hash> is short_hash(front key).
//  X1 A lookup reads report.txt under the shared lock. On a miss it takes the
//     exclusive lock and looks again (another process may have built the
//     entry meanwhile); only then does it build, still holding it.
//  X2 report.txt is the commit record: the front key, the dependencies with
//     their content hashes, the result, and a closing "end" line. A builder
//     compiles to temporary names in the entry directory, removes report.txt,
//     renames thread.elf into place and writes report.txt last, by rename. A
//     hit needs the whole front to match, every dependency to hash as
//     recorded, and the record to be complete; anything else is rebuilt.
//  X3 Temporary names are created only under the exclusive lock, so a
//     builder removes any it finds (left by a builder that died) first.
#include "jit/cross_build.hpp"

#include "base/env.hpp"
#include "jit/cache_key.hpp"
#include "jit/compiler.hpp"
#include "jit/cross_elf.hpp"
#include "jit/file_io.hpp"
#include "jit/kernel_source.hpp"
#include "jit/process.hpp"
#include "tessel/error.hpp"
#include "tessel/kernel_abi.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace tessel::jit {
namespace {

// Bump when the key text or the record changes meaning.
constexpr std::string_view kKeyFormat = "tessel-cross-key 1";
// Compiler output kept for an error message; the first errors are the useful ones.
constexpr size_t kMaxCompilerOutputBytes = 16 * 1024;
// objdump's whole disassembly is parsed: a generous bound on a thread's.
constexpr size_t kMaxDisassemblyBytes = size_t{256} << 20;
constexpr size_t kMaxToolAnswerBytes = size_t{1} << 20;

constexpr const char* kCompilerPackage = "gcc-riscv64-unknown-elf";
constexpr const char* kBinutilsPackage = "binutils-riscv64-unknown-elf";

struct ThreadTarget {
  const char* thread;         // the report's name
  const char* core;           // the RISC that runs it
  const char* march;          // the thread's target
  const char* mabi;           //
  const char* multilib_march; // the multilib whose libgcc the image links (same ABI)
  const char* trisc;          // the TRISC_* / UCK_CHLKC_* suffix; nullptr for data movement
};

// rv32imf_zve32f has no multilib of its own (the toolchain's multilibs carry
// no vector extension); rv32imf's libgcc has the same ABI (ilp32f).
constexpr ThreadTarget kTargets[] = {
    {"reader", "BRISC", "rv32im", "ilp32", "rv32im", nullptr},
    {"writer", "NCRISC", "rv32im", "ilp32", "rv32im", nullptr},
    {"unpack", "TRISC0", "rv32imf_zve32f", "ilp32f", "rv32imf", "UNPACK"},
    {"math", "TRISC1", "rv32imf_zve32f", "ilp32f", "rv32imf", "MATH"},
    {"pack", "TRISC2", "rv32imf_zve32f", "ilp32f", "rv32imf", "PACK"},
};

// Flags for every thread (part of the key).
//  -ffreestanding: the toolchain has no C library; stdint.h and stddef.h are
//    GCC's own. Nor has it a C++ library: the few C++ headers kernel headers
//    include come from kernel/include/tessel/freestanding (build()).
//  -fno-threadsafe-statics: each core runs one thread and there is no C++
//    runtime to provide __cxa_guard_acquire.
//  -fno-asynchronous-unwind-tables -fno-unwind-tables: kernels are built
//    without exceptions; .eh_frame would only pad the image.
//  -ffunction-sections -fdata-sections with --gc-sections from the entry
//    (tessel_kernel_entry, the prelude's wrapper of kernel_main): the image
//    holds only what the kernel can reach, as a firmware link would.
//  -g1: line tables for addr2line; the code does not change.
//  -nostdlib with libgcc given by path (the thread's multilib): software
//    divide and double arithmetic are counted; C library calls (which no
//    library here provides) stay undefined and are reported
//    (--unresolved-symbols=ignore-all), not counted.
const std::vector<std::string> kFixedFlags = {
    "-std=c++20",
    "-ffreestanding",
    "-fno-exceptions",
    "-fno-rtti",
    "-fno-threadsafe-statics",
    "-fno-asynchronous-unwind-tables",
    "-fno-unwind-tables",
    "-ffunction-sections",
    "-fdata-sections",
    "-g1",
    "-fdiagnostics-color=never",
    "-pipe",
    "-DTESSEL_CROSS_ESTIMATE=1",
    "-nostdlib",
    "-static",
    "-Wl,--gc-sections",
    "-Wl,-e,tessel_kernel_entry",
    "-Wl,--unresolved-symbols=ignore-all",
};

// At most two cross compilers at once in the process (each also holds a
// CompilerSlot, shared with the host JIT).
std::counting_semaphore<2>& cross_compiler_slots() {
  static std::counting_semaphore<2> slots(2);
  return slots;
}

class CrossCompilerSlot {
public:
  CrossCompilerSlot() { cross_compiler_slots().acquire(); }
  ~CrossCompilerSlot() { cross_compiler_slots().release(); }
  CrossCompilerSlot(const CrossCompilerSlot&) = delete;
  CrossCompilerSlot& operator=(const CrossCompilerSlot&) = delete;
};

std::string target_flags(const ThreadTarget& target) {
  return std::string("-march=") + target.march + " -mabi=" + target.mabi;
}

std::vector<std::string> thread_defines(const ThreadTarget& target) {
  if (target.trisc == nullptr) return {};
  return {std::string("-DTRISC_") + target.trisc + "=1", std::string("-DUCK_CHLKC_") + target.trisc + "=1"};
}

bool is_present(const BuildRequest& request) { return !request.source_path.empty() || !request.source_text.empty(); }

[[noreturn]] void throw_missing_tool(const std::string& program, int spawn_error, const char* package,
                                     const char* needed_for) {
  throw ProgramError("the RISC-V toolchain is missing: " + program + " cannot be run (" + std::strerror(spawn_error) +
                     "), and " + needed_for + " needs it; install Debian's " + package +
                     " (scripts/bootstrap installs it)");
}

// First line of a tool's answer, or a ProgramError naming the package when
// the tool is missing or fails.
std::string first_line_of(const std::vector<std::string>& argv, const char* package, const char* needed_for) {
  ProcessResult result = run_process(argv, {}, kMaxToolAnswerBytes, "RISC-V tool");
  if (result.spawn_error != 0) throw_missing_tool(argv[0], result.spawn_error, package, needed_for);
  if (!succeeded(result)) {
    std::string command;
    for (const auto& arg : argv)
      command += (command.empty() ? "" : " ") + arg;
    throw ProgramError("RISC-V tool command `" + command + "` failed:\n" + describe_failure(result, argv[0]) +
                       "\n(the kernel size estimate needs Debian's " + package + ")");
  }
  return result.output.substr(0, result.output.find('\n'));
}

std::string joined(const std::vector<std::string>& flags) {
  std::string text;
  for (const auto& flag : flags) {
    if (!text.empty()) text += ' ';
    text += flag;
  }
  return text;
}

// Record fields are one line each; tabs separate a finding's fields.
std::string field(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

std::optional<uint32_t> parse_u32(std::string_view text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + uint64_t(c - '0');
  }
  if (value > UINT32_MAX) return std::nullopt;
  return uint32_t(value);
}

struct ThreadFinding {
  std::string instruction;
  std::string function;
  std::string file;
  uint32_t line = 0;
};

struct ThreadResult {
  uint32_t text_bytes = 0;
  std::vector<std::string> unresolved_symbols;
  std::vector<ThreadFinding> findings;
};

std::string result_text(const ThreadResult& result) {
  std::string text = "result:\ntext-bytes: " + std::to_string(result.text_bytes) + "\n";
  for (const auto& symbol : result.unresolved_symbols)
    text += "unresolved: " + field(symbol) + "\n";
  for (const auto& finding : result.findings)
    text += "finding: " + field(finding.instruction) + "\t" + field(finding.function) + "\t" + field(finding.file) +
            "\t" + std::to_string(finding.line) + "\n";
  return text + "end\n";
}

std::optional<ThreadResult> parse_result_text(std::string_view text) {
  if (!text.starts_with("result:\n") || !text.ends_with("end\n")) return std::nullopt;
  text.remove_prefix(std::string_view("result:\n").size());
  text.remove_suffix(std::string_view("end\n").size());
  ThreadResult result;
  bool have_size = false;
  while (!text.empty()) {
    size_t end = text.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    if (line.starts_with("text-bytes: ")) {
      auto bytes = parse_u32(line.substr(12));
      if (!bytes || have_size) return std::nullopt;
      result.text_bytes = *bytes;
      have_size = true;
    } else if (line.starts_with("unresolved: ")) {
      result.unresolved_symbols.emplace_back(line.substr(12));
    } else if (line.starts_with("finding: ")) {
      auto parts = split(line.substr(9), '\t');
      if (parts.size() != 4) return std::nullopt;
      auto number = parse_u32(parts[3]);
      if (!number) return std::nullopt;
      result.findings.push_back({std::string(parts[0]), std::string(parts[1]), std::string(parts[2]), *number});
    } else {
      return std::nullopt;
    }
  }
  if (!have_size) return std::nullopt;
  return result;
}

struct EntryPaths {
  std::string dir;
  std::string report;
  std::string elf;
  std::string lock;
};

EntryPaths entry_paths(const std::string& entries_dir, const std::string& hash) {
  std::string dir = entries_dir + "/" + hash;
  return {dir, dir + "/report.txt", dir + "/thread.elf", dir + ".lock"};
}

// The result a record holds, if it is the record of `front` with every
// dependency as it is now (X2).
std::optional<ThreadResult> read_entry(const EntryPaths& entry, const std::string& front) {
  std::optional<std::string> record = read_file(entry.report);
  if (!record || !std::string_view(*record).starts_with(front)) return std::nullopt;
  std::string_view rest = std::string_view(*record).substr(front.size());
  constexpr std::string_view kDependencies = "dependencies:\n";
  if (!rest.starts_with(kDependencies)) return std::nullopt;
  rest.remove_prefix(kDependencies.size());
  size_t result_at = rest.starts_with("result:\n") ? 0 : rest.find("\nresult:\n");
  if (result_at == std::string_view::npos) return std::nullopt;
  if (result_at != 0) ++result_at; // keep the dependencies' last newline
  std::string_view dependencies = rest.substr(0, result_at);
  std::optional<std::vector<std::string>> paths = parse_dependencies_text(dependencies);
  if (!paths) return std::nullopt;
  std::vector<Dependency> now;
  for (const auto& path : *paths) {
    std::optional<std::string> content = read_file(path);
    if (!content) return std::nullopt;
    now.push_back({path, content_hash(*content)});
  }
  if (dependencies_text(now) != dependencies) return std::nullopt;
  return parse_result_text(rest.substr(result_at));
}

} // namespace

struct CrossChecker::Impl {
  Impl(std::string dir, CrossToolchain tools)
      : root(kernel_cache_root(dir)), entries_dir(root + "/cross"), toolchain(std::move(tools)),
        compiler(compiler_config_from_environment()) {}

  // What identifies the toolchain, asked once.
  struct ToolchainInfo {
    std::string compiler_version;
    std::string linker_version;
    std::string libgcc_data_movement; // the rv32im/ilp32 multilib's
    std::string libgcc_compute;       // the rv32imf/ilp32f multilib's
  };
  struct CheckerInfo {
    std::string objdump_version;
    std::string addr2line_version; // "" when addr2line cannot be run: findings have no lines
  };
  const ToolchainInfo& toolchain_info();
  const CheckerInfo& checker_info();

  // One thread image to produce.
  struct Job {
    const ThreadTarget* target = nullptr;
    const PreparedSource* source = nullptr;
    std::vector<std::string> flags; // request flags with the opt level, then the thread's defines
    std::string memo_key;
    std::optional<ThreadResult> result;
    std::exception_ptr error;
  };
  void run(Job& job, bool insn_check);
  std::string front_key(const Job& job, bool insn_check);
  ThreadResult build(const Job& job, const std::string& front, const EntryPaths& entry, bool insn_check);
  std::vector<ThreadFinding> check_instructions(const std::string& elf_path);

  std::string root;
  std::string entries_dir;
  CrossToolchain toolchain;
  CompilerConfig compiler;
  std::once_flag entries_dir_made;

  std::mutex info_mutex;
  std::optional<ToolchainInfo> tool_info;
  std::optional<CheckerInfo> check_info;

  std::atomic<uint64_t> compiles{0};
  std::atomic<uint64_t> disk_hits{0};
  std::atomic<uint64_t> memo_hits{0};

  std::mutex memo_mutex;
  std::unordered_map<std::string, ThreadResult> memo;
};

const CrossChecker::Impl::ToolchainInfo& CrossChecker::Impl::toolchain_info() {
  std::lock_guard lock(info_mutex);
  if (tool_info) return *tool_info;
  const char* needed_for = "the kernel size estimate";
  ToolchainInfo info;
  info.compiler_version = first_line_of({toolchain.cxx, "--version"}, kCompilerPackage, needed_for);
  std::string linker = first_line_of({toolchain.cxx, "-print-prog-name=ld"}, kCompilerPackage, needed_for);
  info.linker_version = first_line_of({linker, "--version"}, kBinutilsPackage, needed_for);
  auto libgcc = [&](const char* march, const char* mabi) {
    std::string path = first_line_of(
        {toolchain.cxx, std::string("-march=") + march, std::string("-mabi=") + mabi, "-print-libgcc-file-name"},
        kCompilerPackage, needed_for);
    std::error_code error;
    if (path.empty() || path[0] != '/' || !std::filesystem::is_regular_file(path, error))
      throw ProgramError("the RISC-V toolchain " + toolchain.cxx + " has no libgcc for -march=" + march +
                         " -mabi=" + mabi + " (it answered '" + path +
                         "'), which the kernel size estimate links; install Debian's " + kCompilerPackage);
    return path;
  };
  info.libgcc_data_movement = libgcc("rv32im", "ilp32");
  info.libgcc_compute = libgcc("rv32imf", "ilp32f");
  return *(tool_info = std::move(info));
}

const CrossChecker::Impl::CheckerInfo& CrossChecker::Impl::checker_info() {
  std::lock_guard lock(info_mutex);
  if (check_info) return *check_info;
  CheckerInfo info;
  info.objdump_version = first_line_of({toolchain.objdump, "--version"}, kBinutilsPackage,
                                       "the instruction check (TESSEL_INSN_CHECK=0 turns it off)");
  ProcessResult addr2line = run_process({toolchain.addr2line, "--version"}, {}, kMaxToolAnswerBytes, "RISC-V tool");
  if (succeeded(addr2line)) info.addr2line_version = addr2line.output.substr(0, addr2line.output.find('\n'));
  return *(check_info = std::move(info));
}

std::string CrossChecker::Impl::front_key(const Job& job, bool insn_check) {
  const ToolchainInfo& tools = toolchain_info();
  const ThreadTarget& target = *job.target;
  std::string text(kKeyFormat);
  text += '\n';
  auto line = [&](std::string_view label, std::string_view value) {
    text += label;
    text += ": ";
    text += value;
    text += '\n';
  };
  line("compiler", toolchain.cxx);
  line("compiler-version", tools.compiler_version);
  line("linker-version", tools.linker_version);
  line("libgcc", target.trisc ? tools.libgcc_compute : tools.libgcc_data_movement);
  line("kernel-abi", std::to_string(TESSEL_KERNEL_ABI_VERSION));
  line("include-dir", compiler.include_dir);
  line("thread", target.thread);
  line("target", target_flags(target));
  line("flags", joined(kFixedFlags));
  for (const auto& flag : job.flags)
    line("arg", flag);
  line("insn-check", insn_check ? "1" : "0");
  if (insn_check) {
    const CheckerInfo& checker = checker_info();
    line("disassembler", toolchain.objdump + " " + checker.objdump_version);
    line("line-info",
         checker.addr2line_version.empty() ? "none" : toolchain.addr2line + " " + checker.addr2line_version);
  }
  line("source-file", job.source->compiled_path);
  line("source-hash", job.source->hash);
  return text;
}

std::vector<ThreadFinding> CrossChecker::Impl::check_instructions(const std::string& elf_path) {
  ProcessResult disassembly = run_process({toolchain.objdump, "-d", "-C", "--no-show-raw-insn", elf_path}, {},
                                          kMaxDisassemblyBytes, "RISC-V tool");
  if (disassembly.spawn_error != 0)
    throw_missing_tool(toolchain.objdump, disassembly.spawn_error, kBinutilsPackage,
                       "the instruction check (TESSEL_INSN_CHECK=0 turns it off)");
  if (!succeeded(disassembly) || disassembly.dropped_bytes != 0)
    throw ProgramError("the instruction check could not disassemble " + elf_path + ":\n" +
                       describe_failure(disassembly, toolchain.objdump));
  std::vector<LackedInstruction> lacked = find_lacked_instructions(disassembly.output);
  std::vector<SourceLine> lines(lacked.size());
  if (!lacked.empty() && !checker_info().addr2line_version.empty()) {
    std::vector<std::string> argv = {toolchain.addr2line, "-e", elf_path};
    for (const auto& instruction : lacked) {
      char address[24];
      std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(instruction.address));
      argv.push_back(address);
    }
    ProcessResult answer = run_process(argv, {}, kMaxDisassemblyBytes, "RISC-V tool");
    // A missing or failing addr2line leaves the lines unknown; the findings stand.
    if (succeeded(answer)) lines = parse_addr2line_output(answer.output, lacked.size());
  }
  std::vector<ThreadFinding> findings;
  for (size_t i = 0; i < lacked.size(); ++i)
    findings.push_back({lacked[i].mnemonic, lacked[i].function, lines[i].file, lines[i].line});
  return findings;
}

ThreadResult CrossChecker::Impl::build(const Job& job, const std::string& front, const EntryPaths& entry,
                                       bool insn_check) {
  const ThreadTarget& target = *job.target;
  const PreparedSource& source = *job.source;
  const ToolchainInfo& tools = toolchain_info();
  make_directories(entry.dir);
  remove_temp_files(entry.dir); // X3

  std::string elf_temp = temp_name_for(entry.elf);
  std::string depfile = temp_name_for(entry.dir + "/thread.d");
  struct Cleanup {
    std::vector<std::string> paths;
    ~Cleanup() {
      for (const auto& path : paths)
        remove_file(path);
    }
  } cleanup{{elf_temp, depfile}};

  // __FILE__ (every API call passes it) names the source without its
  // directory, so figures do not depend on where a checkout lives.
  std::string source_dir = std::filesystem::path(source.compiled_path).parent_path().string();
  std::vector<std::string> argv = {toolchain.cxx, std::string("-march=") + target.march,
                                   std::string("-mabi=") + target.mabi};
  argv.insert(argv.end(), kFixedFlags.begin(), kFixedFlags.end());
  // The toolchain has no C++ library: kernel/include/tessel/freestanding has
  // the few standard headers kernel headers include.
  argv.insert(argv.end(), {"-I" + compiler.include_dir, "-isystem", compiler.include_dir + "/tessel/freestanding",
                           "-include", "tessel/kernel_prelude.h", "-fmacro-prefix-map=" + source_dir + "/=",
                           "-fmacro-prefix-map=" + compiler.include_dir + "/=", "-MD", "-MF", depfile});
  argv.insert(argv.end(), job.flags.begin(), job.flags.end());
  argv.insert(argv.end(), {"-o", elf_temp, "-x", "c++", source.source_arg, "-x", "none",
                           target.trisc ? tools.libgcc_compute : tools.libgcc_data_movement});

  ProcessResult compiled;
  {
    CrossCompilerSlot cross_slot;
    CompilerSlot slot;
    compiled = run_process(argv, source.working_dir, kMaxCompilerOutputBytes, "RISC-V compiler");
  }
  if (compiled.spawn_error != 0)
    throw_missing_tool(toolchain.cxx, compiled.spawn_error, kCompilerPackage, "the kernel size estimate");
  if (!succeeded(compiled))
    throw ProgramError("kernel " + source.name + " does not cross-compile for the size estimate (" + target.thread +
                       " thread on " + target.core + ", " + target_flags(target) + "):\n" +
                       describe_failure(compiled, "compiler"));

  std::optional<std::string> deps = read_file(depfile);
  if (!deps) throw ProgramError("kernel " + source.name + ": the RISC-V compiler wrote no depfile " + depfile);
  std::string base_dir = source.working_dir;
  if (base_dir.empty()) {
    std::error_code error;
    base_dir = std::filesystem::current_path(error).string();
  }
  std::vector<Dependency> dependencies;
  std::unordered_set<std::string> seen = {source.compiled_path};
  for (auto& path : parse_depfile(*deps, base_dir)) {
    if (!seen.insert(path).second) continue;
    std::optional<std::string> content = read_file(path);
    if (!content) throw ProgramError("kernel " + source.name + ": cannot read " + path + ", which it includes");
    dependencies.push_back({std::move(path), content_hash(*content)});
  }

  std::optional<std::string> elf = read_file(elf_temp);
  std::optional<ThreadImage> image = elf ? read_thread_image(*elf) : std::nullopt;
  if (!image)
    throw ProgramError("kernel " + source.name + ": the RISC-V link for the " + target.thread +
                       " thread left no readable ELF32 RISC-V image at " + elf_temp);
  ThreadResult result;
  result.text_bytes = image->text_bytes;
  result.unresolved_symbols = std::move(image->undefined_symbols);
  if (insn_check) result.findings = check_instructions(elf_temp);

  remove_file(entry.report); // X2: the entry is invalid until report.txt is written again
  rename_file(elf_temp, entry.elf);
  write_file_atomic(entry.report, front + "dependencies:\n" + dependencies_text(dependencies) + result_text(result));
  compiles.fetch_add(1, std::memory_order_relaxed);
  return result;
}

void CrossChecker::Impl::run(Job& job, bool insn_check) {
  std::string front = front_key(job, insn_check);
  EntryPaths entry = entry_paths(entries_dir, short_hash(front));
  std::call_once(entries_dir_made, [&] { make_directories(entries_dir); });
  FileLock lock(entry.lock);
  lock.lock_shared();
  if (auto hit = read_entry(entry, front)) {
    disk_hits.fetch_add(1, std::memory_order_relaxed);
    job.result = std::move(hit);
    return;
  }
  lock.unlock(); // X1
  lock.lock_exclusive();
  if (auto hit = read_entry(entry, front)) {
    disk_hits.fetch_add(1, std::memory_order_relaxed);
    job.result = std::move(hit);
    return;
  }
  job.result = build(job, front, entry, insn_check);
}

CrossChecker::CrossChecker(std::string cache_dir, CrossToolchain toolchain)
    : impl_(std::make_unique<Impl>(std::move(cache_dir), std::move(toolchain))) {}

CrossChecker::~CrossChecker() = default;

CrossReport CrossChecker::check(const BuildRequest& reader, const BuildRequest& writer, const BuildRequest& compute,
                                const CrossOptLevels& opt_levels) {
  // Validate everything first.
  const bool insn_check = base::env_flag("TESSEL_INSN_CHECK", true);
  struct Kernel {
    const char* role;
    const BuildRequest& request;
    KernelKind kind;
    const std::string& opt;
  };
  const Kernel kernels[] = {{"reader", reader, KernelKind::DataMovement, opt_levels.reader},
                            {"writer", writer, KernelKind::DataMovement, opt_levels.writer},
                            {"compute", compute, KernelKind::Compute, opt_levels.compute}};
  bool any = false;
  for (const Kernel& kernel : kernels) {
    if (!kernel.opt.empty() && opt_level_of_name(kernel.opt) < 0)
      throw ValidationError(std::string("cross_check: the ") + kernel.role + " kernel's opt level '" + kernel.opt +
                            "' is not one of O0, O1, O2, O3, Os, Ofast, Oz (or empty for the request's own)");
    if (!is_present(kernel.request)) continue;
    any = true;
    validate_request(kernel.request);
    if (kernel.request.kind != kernel.kind)
      throw ValidationError(std::string("cross_check: the ") + kernel.role + " kernel " + source_name(kernel.request) +
                            " is a " + (kernel.request.kind == KernelKind::Compute ? "compute" : "data-movement") +
                            " kernel; expected a " +
                            (kernel.kind == KernelKind::Compute ? "compute" : "data-movement") + " kernel");
  }
  if (!any) throw ValidationError("cross_check: no kernel given (reader, writer and compute all have no source)");

  // One job per thread of a present kernel; the memo serves what it can.
  std::vector<Impl::Job> jobs;
  std::vector<size_t> kernel_of_job;
  for (size_t t = 0; t < std::size(kTargets); ++t) {
    size_t k = t < 2 ? t : 2;
    const Kernel& kernel = kernels[k];
    if (!is_present(kernel.request)) continue;
    Impl::Job job;
    job.target = &kTargets[t];
    const std::string level_flag = kernel.opt.empty() ? opt_flag(kernel.request) : "-" + kernel.opt;
    job.memo_key = std::string(kTargets[t].thread) + '\n' + level_flag + '\n' + (insn_check ? "check" : "no-check") +
                   '\n' + memo_key(kernel.request);
    job.flags = {level_flag};
    jobs.push_back(std::move(job));
    kernel_of_job.push_back(k);
  }
  {
    std::lock_guard lock(impl_->memo_mutex);
    for (auto& job : jobs)
      if (auto it = impl_->memo.find(job.memo_key); it != impl_->memo.end()) {
        job.result = it->second;
        impl_->memo_hits.fetch_add(1, std::memory_order_relaxed);
      }
  }

  std::vector<size_t> pending;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!jobs[i].result) pending.push_back(i);
  std::optional<PreparedSource> sources[3];
  if (!pending.empty()) {
    for (size_t i : pending) {
      size_t k = kernel_of_job[i];
      if (!sources[k]) sources[k] = prepare_kernel_source(kernels[k].request, impl_->root, impl_->compiler.include_dir);
      Impl::Job& job = jobs[i];
      job.source = &*sources[k];
      // request_flags starts with the request's -O; the estimate's level replaces it.
      job.flags.insert(job.flags.end(), sources[k]->flags.begin() + 1, sources[k]->flags.end());
      for (auto& define : thread_defines(*job.target))
        job.flags.push_back(std::move(define));
    }
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t n = next.fetch_add(1); n < pending.size(); n = next.fetch_add(1)) {
        Impl::Job& job = jobs[pending[n]];
        try {
          impl_->run(job, insn_check);
        } catch (...) {
          job.error = std::current_exception();
        }
      }
    };
    std::optional<std::thread> helper;
    if (pending.size() > 1) {
      try {
        helper.emplace(work);
      } catch (const std::system_error&) {
        // one worker only means less parallelism
      }
    }
    work();
    if (helper) helper->join();
    for (size_t i : pending)
      if (jobs[i].error) std::rethrow_exception(jobs[i].error);
    std::lock_guard lock(impl_->memo_mutex);
    for (size_t i : pending)
      impl_->memo.emplace(jobs[i].memo_key, *jobs[i].result);
  }

  CrossReport report;
  report.insn_checked = insn_check;
  for (const auto& job : jobs) {
    report.threads.push_back({job.target->thread, job.result->text_bytes, job.result->unresolved_symbols});
    report.total_bytes += job.result->text_bytes;
    for (const auto& finding : job.result->findings)
      report.findings.push_back(
          {job.target->thread, finding.instruction, finding.function, finding.file, finding.line});
  }
  return report;
}

CrossStats CrossChecker::stats() const {
  return {impl_->compiles.load(std::memory_order_relaxed), impl_->disk_hits.load(std::memory_order_relaxed),
          impl_->memo_hits.load(std::memory_order_relaxed)};
}

const std::string& CrossChecker::directory() const { return impl_->root; }

void CrossChecker::clear_memo() {
  std::lock_guard lock(impl_->memo_mutex);
  impl_->memo.clear();
}

CrossChecker& default_cross_checker() {
  static CrossChecker checker;
  return checker;
}

CrossReport cross_check(const BuildRequest& reader, const BuildRequest& writer, const BuildRequest& compute,
                        const CrossOptLevels& opt_levels) {
  return default_cross_checker().check(reader, writer, compute, opt_levels);
}

} // namespace tessel::jit
