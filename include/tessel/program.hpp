// Program: kernels, circular buffers and semaphores placed on cores, plus
// the runtime arguments each kernel gets.
//
// Kinds of input, kept apart:
//  - structure (kernels with sources, defines, compile args, configs, core
//    ranges; CB layout; semaphores; runtime-argument lengths) is compiled
//    once and reused while it stays the same;
//  - dispatch values (runtime-argument words, including buffer addresses)
//    are applied on every enqueue, so they may change between enqueues.
//
// Every add_/set_ call validates its input and throws ValidationError before
// changing anything. Checks that need a device (cores inside the grid, L1
// fit) run when the program is enqueued, also before anything changes.
//
// Ownership: a value type, movable, not copyable. Thread-compatible.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/data_format.hpp"

namespace tessel {

class Buffer;

namespace runtime {
struct ProgramState;
}

enum class DataMovementProcessor : uint8_t { RISCV_0 = 0, RISCV_1 = 1 };
enum class NOC : uint8_t { RISCV_0_default = 0, RISCV_1_default = 1, NOC_0 = 0, NOC_1 = 1 };
enum class MathFidelity : uint8_t { LoFi = 0, HiFi2 = 2, HiFi3 = 3, HiFi4 = 4 };
// Per CB index: how copy_tile brings that CB's tiles into DST. UnpackToDestFp32
// (Float32 CBs, with fp32_dest_acc_en) skips the 19-bit source registers, so
// the values arrive with all their bits (docs/numerics.md).
enum class UnpackToDestMode : uint8_t { Default = 0, UnpackToDestFp32 = 1 };

// Kernel optimisation levels (DataMovementConfig and ComputeConfig opt_level):
// -1 is the kind's default (-O2 data movement, -O3 compute), 0..3 are -O0..-O3,
// and these are the other levels silicon builds take (TT-Metalium's
// KernelBuildOptLevel Os, Ofast and Oz). The kernel is built with that flag.
inline constexpr int kOptLevelOs = 4;    // -Os
inline constexpr int kOptLevelOfast = 5; // -Ofast (fast-math, as on silicon)
inline constexpr int kOptLevelOz = 6;    // -Oz

using Defines = std::map<std::string, std::string>;
using NamedCompileArgs = std::map<std::string, uint32_t>;

// Named bindings of a kernel written for TT-Metalium's named kernel
// arguments (Metal 2.0): the JIT declares, before the kernel's source,
//   args::<name>    for each runtime argument (runtime argument i, in order),
//                   each common runtime argument (common argument i), and
//                   each named compile-time argument of the config (its value),
//                   read with get_arg(args::<name>);
//   dfb::<name>     a CB index, for DataflowBuffer(dfb::<name>);
//   sem::<name>     a semaphore id;
//   tensor::<name>  a tensor, for TensorAccessor(tensor::<name>): its
//                   TensorAccessorArgs sit in the compile-time args at
//                   compile_args_offset and its address in the common runtime
//                   argument after the named ones (the i-th tensor's at
//                   common_runtime_args.size() + i);
//   scratch::<name> a scratchpad, for Scratchpad<T>(scratch::<name>): a
//                   region of size_bytes of each core's L1 the host sets
//                   aside for the program (an L1 buffer's range, say), its
//                   L1 address the common runtime argument after the
//                   tensors' (the j-th scratchpad's at
//                   common_runtime_args.size() + tensors.size() + j), its
//                   data format what get_dataformat() returns;
// and get_vararg(i) / get_common_vararg(i), the arguments after those.
// Names are C++ identifiers, unique within args:: and within each namespace.
struct KernelBindings {
  struct Tensor {
    std::string name;
    uint32_t compile_args_offset = 0;
  };
  struct Scratchpad {
    std::string name;
    uint32_t size_bytes = 0;                 // per core, more than 0
    DataFormat format = DataFormat::Invalid; // Invalid: none given
  };
  std::vector<std::string> runtime_args;
  std::vector<std::string> common_runtime_args;
  std::map<std::string, uint32_t> dataflow_buffers; // name -> CB index
  std::map<std::string, uint32_t> semaphores;       // name -> semaphore id
  std::vector<Tensor> tensors;
  std::vector<Scratchpad> scratchpads;
};

struct DataMovementConfig {
  DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
  NOC noc = NOC::RISCV_0_default;
  std::vector<uint32_t> compile_args;
  Defines defines;
  NamedCompileArgs named_compile_args;
  int opt_level = -1; // -1: the default (-O2); 0..3, kOptLevelOs, kOptLevelOfast or kOptLevelOz
  std::vector<std::string>
      include_dirs; // absolute; searched for #include after the kernel's directory and tessel's headers
  std::optional<KernelBindings> bindings; // set: the kernel reads named arguments (KernelBindings)
};

struct ComputeConfig {
  MathFidelity math_fidelity = MathFidelity::HiFi4;
  bool fp32_dest_acc_en = false;
  bool dst_full_sync_en = false;
  bool math_approx_mode = false;
  std::vector<UnpackToDestMode> unpack_to_dest_mode; // indexed by CB; missing entries are Default
  // Silicon's build options with no effect on the simulation (docs/deviations.md):
  // each reaches the kernel as a define when set (TESSEL_BFP8_PACK_PRECISE=1,
  // TESSEL_TRISC2_RVV=1) and so keys its build apart.
  bool bfp8_pack_precise = false; // Bfp8_b packs round to nearest even either way
  bool enable_trisc2_rvv = false; // the pack thread may use the vector unit (zve32f)
  std::vector<uint32_t> compile_args;
  Defines defines;
  NamedCompileArgs named_compile_args;
  int opt_level = -1;                     // -1: the default (-O3); as DataMovementConfig's
  std::vector<std::string> include_dirs;  // as DataMovementConfig's
  std::optional<KernelBindings> bindings; // as DataMovementConfig's
};

// One CB config: a memory region of total_size_bytes shared by one or more
// CB indices (each with its format and page size). The region is placed in
// the program's CB area of L1, or, after set_globally_allocated_address, is
// an L1 buffer's range on each core (the CB then reads and writes the
// buffer's pages in place; the buffer must outlive the program's runs).
class CircularBufferConfig {
public:
  CircularBufferConfig(uint32_t total_size_bytes, std::map<uint8_t, DataFormat> formats);
  CircularBufferConfig& set_page_size(uint8_t index, uint32_t page_size_bytes);
  // Throws ValidationError for a DRAM or deallocated buffer.
  CircularBufferConfig& set_globally_allocated_address(const Buffer& buffer);

  uint32_t total_size() const { return total_size_bytes_; }
  const std::map<uint8_t, DataFormat>& formats() const { return formats_; }
  const std::map<uint8_t, uint32_t>& page_sizes() const { return page_sizes_; }
  // The L1 address and per-core bytes of the buffer set above, if any.
  std::optional<uint32_t> globally_allocated_address() const { return global_address_; }
  uint64_t global_bytes_per_core() const { return global_bytes_; }

private:
  uint32_t total_size_bytes_;
  std::map<uint8_t, DataFormat> formats_;
  std::map<uint8_t, uint32_t> page_sizes_;
  std::optional<uint32_t> global_address_;
  uint64_t global_bytes_ = 0;
};

using KernelHandle = uint32_t;
using CircularBufferHandle = uint32_t;

class Program {
public:
  Program();
  ~Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;

  // Kernels from a file (resolved against the working directory, then each
  // directory of $TESSEL_KERNEL_PATH) or from source text (name: shown in messages).
  KernelHandle add_kernel(const std::string& path, const CoreRangeSet& cores, const DataMovementConfig& config);
  KernelHandle add_kernel(const std::string& path, const CoreRangeSet& cores, const ComputeConfig& config);
  KernelHandle add_kernel_from_source(const std::string& source, const std::string& name, const CoreRangeSet& cores,
                                      const DataMovementConfig& config);
  KernelHandle add_kernel_from_source(const std::string& source, const std::string& name, const CoreRangeSet& cores,
                                      const ComputeConfig& config);

  CircularBufferHandle add_circular_buffer(const CoreRangeSet& cores, const CircularBufferConfig& config);
  // Returns the semaphore id (0, 1, ...) kernels pass to get_semaphore().
  uint32_t add_semaphore(const CoreRangeSet& cores, uint32_t initial_value);
  // A semaphore with a chosen id (< 16, not used yet in this program); ids
  // may leave gaps. Returns id.
  uint32_t add_semaphore(const CoreRangeSet& cores, uint32_t initial_value, uint32_t id);

  void set_runtime_args(KernelHandle kernel, const CoreRangeSet& cores, std::span<const uint32_t> args);
  void set_runtime_args(KernelHandle kernel, const CoreRangeSet& cores, std::initializer_list<uint32_t> args) {
    set_runtime_args(kernel, cores, std::span<const uint32_t>(args.begin(), args.size()));
  }
  void set_common_runtime_args(KernelHandle kernel, std::span<const uint32_t> args);
  void set_common_runtime_args(KernelHandle kernel, std::initializer_list<uint32_t> args) {
    set_common_runtime_args(kernel, std::span<const uint32_t>(args.begin(), args.size()));
  }
  // Mutable access to values already set (the length is fixed; change words in
  // place). A span stays valid until set_runtime_args / set_common_runtime_args
  // changes that kernel's length on that core, or the program is destroyed.
  std::span<uint32_t> runtime_args(KernelHandle kernel, CoreCoord core);
  std::span<uint32_t> common_runtime_args(KernelHandle kernel);

  uint32_t num_kernels() const;

  // Internals for the runtime layer.
  runtime::ProgramState& state();

private:
  runtime::ProgramState& live() const; // throws ValidationError on a moved-from program
  std::unique_ptr<runtime::ProgramState> state_;
};

} // namespace tessel
