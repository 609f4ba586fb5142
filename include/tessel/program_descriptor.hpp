// Declarative programs: a ProgramDescriptor lists a program's kernels,
// circular buffers and semaphores as plain values (TT-Metalium's
// program_descriptors.hpp fields), and make_program() builds the Program from
// it with the imperative calls, validating as they do.
//
// A descriptor mixes structure (what shapes the compiled program) and
// dispatch values (runtime-argument words). ProgramCache (program_cache.hpp)
// keys on the structure and re-applies the dispatch values on every use.
//
// Ownership: plain values, copyable. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/data_format.hpp"
#include "tessel/program.hpp"

namespace tessel {

// Data-movement kernel on RISCV_0 with NoC 0 (Metalium's reader default).
struct ReaderConfigDescriptor {};
// Data-movement kernel on RISCV_1 with NoC 1 (Metalium's writer default).
struct WriterConfigDescriptor {};
struct DataMovementConfigDescriptor {
  DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
  NOC noc = NOC::RISCV_0_default;
};
struct ComputeConfigDescriptor {
  MathFidelity math_fidelity = MathFidelity::HiFi4;
  bool fp32_dest_acc_en = false;
  bool dst_full_sync_en = false;
  std::vector<UnpackToDestMode> unpack_to_dest_mode;
  bool bfp8_pack_precise = false; // no effect on the simulation (ComputeConfig)
  bool math_approx_mode = false;
  bool enable_trisc2_rvv = false; // no effect on the simulation (ComputeConfig)
};

struct KernelDescriptor {
  enum class SourceType : uint8_t { FILE_PATH, SOURCE_CODE };
  using Config = std::variant<ReaderConfigDescriptor, WriterConfigDescriptor, DataMovementConfigDescriptor,
                              ComputeConfigDescriptor>;
  using CoreRuntimeArgs = std::vector<std::pair<CoreCoord, std::vector<uint32_t>>>;

  std::string kernel_source; // a path (FILE_PATH) or the source text (SOURCE_CODE)
  SourceType source_type = SourceType::FILE_PATH;
  CoreRangeSet core_ranges;
  std::vector<uint32_t> compile_time_args;
  NamedCompileArgs named_compile_time_args;
  Defines defines;
  CoreRuntimeArgs runtime_args; // per core; each core at most once
  std::vector<uint32_t> common_runtime_args;
  int opt_level = -1; // -1: the default
  Config config = ReaderConfigDescriptor{};
};

struct CBFormatDescriptor {
  uint8_t buffer_index = 0;
  DataFormat data_format = DataFormat::Float16_b;
  uint32_t page_size = 0;
};

struct CBDescriptor {
  uint32_t total_size = 0;
  CoreRangeSet core_ranges;
  std::vector<CBFormatDescriptor> format_descriptors; // indices sharing the region
};

struct SemaphoreDescriptor {
  uint32_t id = 0; // what kernels pass to get_semaphore(); ids may leave gaps
  CoreRangeSet core_ranges;
  uint32_t initial_value = 0;
};

struct ProgramDescriptor {
  std::vector<KernelDescriptor> kernels; // KernelHandle i of the built program is kernels[i]
  std::vector<SemaphoreDescriptor> semaphores;
  std::vector<CBDescriptor> cbs;
  // Further structure that belongs to the program's cache identity but not to
  // its build (e.g. an operation's fabric bindings); part of the structural key.
  std::string custom_identity;
};

// Builds the program the descriptor describes: CBs, semaphores (with their
// ids), kernels in order, runtime and common runtime args. Throws
// ValidationError naming the descriptor element (e.g. "kernels[2]") and what
// was expected; nothing is returned on failure.
Program make_program(const ProgramDescriptor& descriptor);

} // namespace tessel
