// ProgramSpec: what a persistent program runs (spec: Program). It opens
// nothing; Session::load builds it against the session's card.
//
// Kernels: reader, compute and writer sources, each an ordinary tessel kernel
// holding handlers over the runtime's loop (tessel/persistent.h). The reader
// runs on RISCV_1 (NCRISC, NoC 1) and the writer on RISCV_0 (BRISC, NoC 0), as
// Metalium's reader and writer configs place them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/dispatch/x280.hpp"
#include "tessel/program.hpp"

namespace tessel::dispatch {

// A circular buffer on every core (spec: Buffer(index, format, page_bytes, pages)).
struct BufferSpec {
  uint32_t index = 0;
  std::string format; // "bfloat16", "float32", "int32", "uint32", "uint16", "uint8", "bfloat8_b", "bfloat4_b"
  uint32_t page_bytes = 0;
  uint32_t pages = 0;
};

// The program's own runtime arguments of one core, after the runtime's start-up arguments.
struct CoreArgs {
  std::vector<uint32_t> reader, writer, compute;
};

// Optimisation levels: "O0", "O1", "O2", "O3", "Os", "Ofast", "Oz"; empty keeps the default.
struct OptLevels {
  std::string reader, writer, compute;
};

struct ProgramSpec {
  std::string name;
  std::string reader_path, compute_path, writer_path;
  std::vector<BufferSpec> buffers;
  std::function<CoreArgs(CoreCoord)> args; // empty: none
  std::vector<uint32_t> reader_compile_args, writer_compile_args, compute_compile_args;
  // Math fidelity, flags and unpack-to-dest modes of the compute kernel (its
  // compile args, defines and opt level are ignored: the fields here set them).
  ComputeConfig compute;
  Defines defines;                          // for all three kernels
  uint32_t depth = 4;                       // mailbox slots, 1 to 16
  std::map<std::string, uint32_t> handlers; // name -> 1..239
  OptLevels opt;
  // X280 threads on work clusters 1..3, one per cluster (program.thread),
  // and the regions they use (program.region). A program with a thread has
  // no upload region for engines.
  std::vector<X280ThreadSpec> threads;
  std::vector<X280Region> regions;

  // Checks every field (ProgramError naming the field and the rule).
  void validate() const;
  // A handler's number by name, or the number itself for "0".."255"; ProgramError if unknown.
  uint32_t handler(const std::string& name) const;
};

// A level's number, 0..6 in the order above: the value a set level defines
// for its kernel (KM_OPT_LEVEL), and the kernel's opt_level (the simulator
// builds it at that level: tessel::kOptLevelOs, ...). -1 for empty;
// ProgramError if unknown.
int opt_level_number(const std::string& level, const char* kernel);

} // namespace tessel::dispatch
