// Emitted runners: an Operation written out to a directory (its kernel
// sources and a manifest) and run again later from that directory alone
// (spec/operation-runtime-resources, "Emitted Runners and Simulator").
//
// What an artifact holds is the operation's structure and nothing else: the
// operation name, each logical kernel's identity (KernelKind, or a captured
// Kernel's name and kind), its source, config, compile args, defines and
// core specialisations, the CB configs and the initial values of the
// operation's own semaphores. It never holds lifetimes (live owners) or
// dispatch values (runtime-arg words, tensor addresses, caller semaphores,
// the factory's defines): the caller supplies those through the runtime
// resource factory on every Runner::run, exactly as for Operation::run.
//
// Directory layout:
//
//   <dir>/manifest.txt            the manifest (below)
//   <dir>/kernel<i>-<ident>.cpp   logical kernel i's source: a copy of the
//                                 file, or the source text written out
//
// Only the kernel file itself is copied: a path kernel that includes files
// from its own directory (rather than the kernel API headers) does not run
// from the artifact.
//
// Manifest format, version 1: UTF-8 text, one field per line; blank lines
// and lines starting with '#' are ignored, leading spaces too. Tokens are
// separated by spaces; <string> is a double-quoted string with the escapes
// \\ \" \n \t; <u32> a decimal unsigned 32-bit integer; <cores> a core set
// without spaces, e.g. {(1,0)} or {(0,0)-(1,0),(3,3)}. In order:
//
//   tessel-runner 1                       the header, first
//   operation <string>                    once
//   kernel kind <Compute|DataMovement>    a logical kernel selected by KernelKind,
//   kernel captured <string> <Compute|DataMovement>   or by a captured Kernel
//     source <string>                     file name in <dir>; once per kernel
//     config reader | config writer | config data_movement <RISCV_0|RISCV_1> <NOC_0|NOC_1>
//          | config compute <LoFi|HiFi2|HiFi3|HiFi4> fp32_dest_acc_en=<0|1>
//            dst_full_sync_en=<0|1> math_approx_mode=<0|1> bfp8_pack_precise=<0|1>
//            unpack_to_dest_mode=<Default|UnpackToDestFp32>[,...]
//            [enable_trisc2_rvv=<0|1>] (written only when set)    once per kernel
//     compile_args <u32>...               once per kernel (may be empty)
//     define <string> <string>            name, value; any number
//     specialization <cores> <u32>...     cores, their compile args; any number
//   cb <u32 total_size_bytes> <u32 index>:<DataFormat>:<u32 page_size_bytes>...   in order
//   semaphore <u32 initial_value>         the operation's own, ids 0, 1, ... in order
//   claim <string> kind <Compute|DataMovement> | claim <string> captured <string>
//                                         a fabric manager claim and its kernel; any number
//   topology <u32 num_devices>            the fabric topology; at most once (default 1)
//   link <u32 local> <u32 remote> <u32 index>       a link it exposes; any number
//   generated <u32 local> <u32 remote> <u32 index>  a link a generated manager owns; any number
//   end                                   last
//
// The kernel fields follow their kernel line; every kernel line comes before
// the first cb or semaphore line.
//
// Errors: emit_runner validates the whole operation before writing anything
// and publishes atomically (it writes a sibling temporary directory, then
// renames it into place), so a failed emit leaves no directory behind and an
// earlier runner at the path intact. Runner::load validates the whole
// manifest and every kernel file before building anything; messages name the
// file, the line and what was expected. Both throw ValidationError.
//
// Ownership: a Runner owns its rebuilt Operation; Kernel handles from
// kernel() share identity with it. The directory must stay in place while
// the runner runs (kernels are compiled from it). Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/operation.hpp"

namespace tessel {

class Buffer;
class Device;

// The manifest's format version this build writes and reads.
inline constexpr int kRunnerFormatVersion = 1;
// The manifest's file name inside a runner directory.
inline constexpr const char* kRunnerManifestName = "manifest.txt";

// Writes `op` to `directory` (created, with its parents; an existing runner
// directory, or an empty one, is replaced). Throws ValidationError, naming
// the kernel, for a captured Kernel without a name or with a name another
// captured kernel of the operation has, a kernel with runtime_words (a host
// function), a kernel file that cannot be read; and, naming the path, for a
// directory that cannot be written or that exists holding something other
// than a runner.
void emit_runner(const Operation& op, const std::string& directory);

// The captured Kernel of `op` named `name`; throws ValidationError listing
// the operation's kernels if there is none.
Kernel find_captured_kernel(const Operation& op, const std::string& name);

class Runner {
public:
  // Reads and validates <directory>/manifest.txt and the kernel files, then
  // rebuilds the operation. Throws ValidationError (file:line: what;
  // expected ...).
  static Runner load(const std::string& directory);

  // The rebuilt captured Kernel named `name`, for the factory to select it
  // (KernelKind selectors work as well). Throws ValidationError if none.
  Kernel kernel(const std::string& name) const;

  // One execution of the rebuilt operation (Operation::run: the same
  // validation, planner and program cache). The factory is required:
  // the artifact holds no dispatch values or owners.
  void run(Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
           const RuntimeResourceFactory& factory);

  // The rebuilt fabric manager claim named `name` (bound to the rebuilt
  // kernel), for the factory's FabricConnectionBinding. Throws if none.
  FabricManagerClaim claim(const std::string& name) const;

  const Operation& operation() const { return *operation_; }
  // The runner directory, absolute.
  const std::string& directory() const { return directory_; }

private:
  Runner(std::string directory, std::unique_ptr<Operation> operation)
      : directory_(std::move(directory)), operation_(std::move(operation)) {}
  std::string directory_;
  std::unique_ptr<Operation> operation_; // stays put when the Runner moves
};

} // namespace tessel
