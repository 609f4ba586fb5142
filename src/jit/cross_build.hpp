// An estimate of what a program's kernels would cost on silicon: each of the
// five RISC threads a Tensix core runs is cross-compiled for its RISC-V
// target with Debian's riscv64-unknown-elf toolchain, linked into a thread
// image, measured, and disassembled to find instructions the core lacks.
// docs/kernel-sizes.md has the targets, the flags and measured figures.
//
// The threads. The reader runs on BRISC and the writer on NCRISC, both
// rv32im (ilp32). The compute kernel runs as three TRISC threads, built three
// times, with TRISC_UNPACK / TRISC_MATH / TRISC_PACK (and tt-metal's
// UCK_CHLKC_* spellings) defined one at a time, for rv32imf_zve32f (ilp32f):
// a float unit and the embedded vector subset with 32-bit floats. Every
// thread sees the kernel the host JIT builds: the same source, defines,
// compile-time arguments and opt level (request_flags), plus
// TESSEL_CROSS_ESTIMATE, which the kernel headers test to leave out what only
// the host needs. The headers lower the API onto the simulator's call table
// (kernel_abi.h), not onto the LLK and NoC registers, so a figure estimates
// silicon's and does not reproduce it.
//
// The report. A thread's text_bytes is its image's loaded sections packed
// (cross_elf.hpp); the findings are every instruction of a group the cores
// lack, with the thread, the enclosing function and, from the debug info, the
// source line. TESSEL_INSN_CHECK=0 turns the check off (insn_checked false,
// no findings).
//
// Caching. Each thread's result is cached on disk under
// `<kernel cache root>/cross/<hash>/` (report.txt, and thread.elf for anyone
// who wants to look at the image), keyed like the host JIT's entries
// (cache_key.hpp): the toolchain's compiler, linker and, when checking,
// disassembler versions, the target and flags, the source's content, every
// header in the compiler's depfile with its content hash, defines,
// compile-time arguments, opt level and whether the check ran. A hit re-hashes
// the headers; it runs no tool. Within a CrossChecker a memo keyed by the
// request (memo_key, source path not content) serves repeats without touching
// the file system, assuming sources do not change while the process runs
// (clear_memo forgets it). Entries are published by rename under a per-entry
// file lock, as the host JIT's are (kernel_cache.cpp, D1-D5).
//
// Processes. A check runs the threads' builds on two workers, and cross
// compilers also take one of the process-wide compiler slots
// (compiler.hpp), so at most two cross compilers run at once per process.
//
// Thread-safety: CrossChecker is safe to call from several threads.
#pragma once

#include "jit/kernel_build.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessel::jit {

// One thread's image: thread is "reader", "writer", "unpack", "math" or "pack".
struct CrossThreadSize {
  std::string thread;
  uint32_t text_bytes = 0;
  // C library functions the image calls but no library the estimate links
  // defines (e.g. __atomic_load_8 for a 64-bit atomic on rv32im): their code
  // is not in text_bytes. Demangled, sorted.
  std::vector<std::string> unresolved_symbols;
};

// An instruction the thread's core lacks. file "" and line 0 when the debug
// info does not say (or the toolchain's addr2line is missing).
struct InstructionFinding {
  std::string thread;
  std::string instruction; // the mnemonic, e.g. "fdiv.s"
  std::string function;    // the enclosing function, demangled, e.g. "kernel_main()"
  std::string file;
  uint32_t line = 0;
};

struct CrossReport {
  std::vector<CrossThreadSize> threads;     // in the order reader, writer, unpack, math, pack; absent kernels left out
  uint32_t total_bytes = 0;                 // sum of the threads' text_bytes
  std::vector<InstructionFinding> findings; // in thread order, then address order
  bool insn_checked = false;                // false when TESSEL_INSN_CHECK=0
};

// Optimisation level per kernel for the estimate, as silicon builds accept
// them: "O0", "O1", "O2", "O3", "Os", "Ofast" or "Oz". Empty keeps the
// request's opt_level (its default: O2 for data movement, O3 for compute).
struct CrossOptLevels {
  std::string reader;
  std::string writer;
  std::string compute; // all three TRISC threads
};

// The toolchain's programs; bare names are looked up in PATH.
struct CrossToolchain {
  std::string cxx = "riscv64-unknown-elf-g++";
  std::string objdump = "riscv64-unknown-elf-objdump";
  std::string addr2line = "riscv64-unknown-elf-addr2line";
};

// Counted per thread image.
struct CrossStats {
  uint64_t compiles = 0;  // images cross-compiled (and checked)
  uint64_t disk_hits = 0; // served from the on-disk cache
  uint64_t memo_hits = 0; // served from the in-process memo
};

class CrossChecker {
public:
  // cache_dir: the kernel cache root, as for KernelCache (kernel_cache_root);
  // entries go under its cross/ directory.
  explicit CrossChecker(std::string cache_dir = {}, CrossToolchain toolchain = {});
  ~CrossChecker();
  CrossChecker(const CrossChecker&) = delete;
  CrossChecker& operator=(const CrossChecker&) = delete;

  // Estimates the program whose BRISC runs `reader`, NCRISC `writer` and
  // TRISCs `compute`. A request with neither source_path nor source_text set
  // is an absent kernel (its threads are left out of the report).
  //
  // Throws tessel::ValidationError for a malformed request (as KernelCache
  // does), a reader or writer that is not a data-movement kernel, a compute
  // kernel that is not one, no kernel at all, an opt level not in the list
  // above, or a malformed TESSEL_INSN_CHECK; tessel::ProgramError naming the
  // kernel, thread and target with the compiler output when a kernel does not
  // cross-compile, and naming the missing program and the Debian package
  // that provides it when the toolchain (or, for the check, its objdump) is
  // missing. All-or-nothing: the first error in thread order is thrown after
  // every thread's build has ended.
  CrossReport check(const BuildRequest& reader, const BuildRequest& writer, const BuildRequest& compute,
                    const CrossOptLevels& opt_levels = {});

  CrossStats stats() const;
  // The cache root (entries are in its cross/ directory).
  const std::string& directory() const;
  // Forget the in-process memo (the disk cache stays).
  void clear_memo();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process-wide checker, over the default kernel cache root and toolchain.
CrossChecker& default_cross_checker();

// default_cross_checker().check(...).
CrossReport cross_check(const BuildRequest& reader, const BuildRequest& writer, const BuildRequest& compute,
                        const CrossOptLevels& opt_levels = {});

} // namespace tessel::jit
