// Operations (spec/operation-runtime-resources, design §4): logical kernels,
// CBs and semaphores declared once, run many times with the runtime
// resources (runtime_resources.hpp) a factory returns for each execution.
//
// An Operation declares logical kernels (selected by KernelKind, or by a
// captured Kernel handle when it has more than one of a kind), circular
// buffers and its own semaphores, and runs on a launch range of cores with a
// list of tensors (buffers). An optional runtime resource factory, called
// once per execution with the current tensors, the launch range and the first
// semaphore id after the operation's own, returns ProgramRuntimeResources:
// caller semaphores, per-logical-kernel runtime args and defines, and
// lifetimes (owners kept alive through execution).
//
// Every run: the factory's result is validated whole before anything is
// built (each rule has its own message); the operation's ProgramDescriptor is
// planned (core specialisation, tensor accessors, runtime-owned words) and
// looked up in the device's ProgramCache by structure; the dispatch words are
// applied and the program runs. An invalid result, a failed build or a failed
// run changes nothing: no cache entry, the previous lifetimes kept. A
// successful run replaces the retained lifetimes.
//
// Ownership: an Operation is a value owned by its caller; Kernel handles are
// shared. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessel/buffer.hpp"
#include "tessel/core_coord.hpp"
#include "tessel/program_descriptor.hpp"
#include "tessel/runtime_resources.hpp"

namespace tessel {

class Device;
namespace resources {
struct KeyWriter;
}

// One logical kernel of an operation.
struct OperationKernel {
  KernelSelector kernel = KernelKind::DataMovement; // its identity
  std::string source;                               // a path (source_is_path) or source text
  bool source_is_path = true;
  KernelDescriptor::Config config = ReaderConfigDescriptor{};
  std::vector<uint32_t> compile_args; // the operation's own; tensor accessor args follow them
  Defines defines;                    // the operation's own; the factory's join them
  // Core specialisation: cores of the launch range that get other compile
  // args (the operation's own, replacing compile_args). Groups must not
  // overlap; the rest of the launch range keeps compile_args.
  std::vector<std::pair<CoreRangeSet, std::vector<uint32_t>>> specializations;
  // Runtime-owned words: when set, the runtime appends per core, after the
  // caller's runtime args, the words this returns for that core; the
  // caller's argument count reaches the kernel as the compile-time arg just
  // before the tensor accessor args, and cores with different caller counts
  // get separate descriptors. Called once per launch core per run; the
  // number of words a core gets is structure (another count, another
  // program), the words themselves dispatch values.
  std::function<std::vector<uint32_t>(CoreCoord core)> runtime_words;
};

// Where the host time of one Operation::run went, in seconds.
struct OperationTimings {
  double factory = 0;  // the runtime resource factory
  double validate = 0; // the validation rules
  double plan = 0;     // building the ProgramDescriptor
  double lookup = 0;   // structural key, cache lookup, writing the dispatch words (a miss: building too)
  double execute = 0;  // enqueue_program: dispatch and the simulated run
};

class Operation {
public:
  explicit Operation(std::string name);

  // Declares a logical kernel. Throws ValidationError for a second kernel of
  // a kind selected by KernelKind, a Kernel already declared (here or by
  // another operation), or a KernelKind that does not match the config.
  void add_kernel(OperationKernel kernel);
  // A CB config placed on every core of the launch range.
  void add_circular_buffer(uint32_t total_size, std::vector<CBFormatDescriptor> formats);
  // Declares a captured fabric manager claim: every execution's resources
  // must bind it (one FabricConnectionBinding). Throws ValidationError for a
  // claim already declared.
  void add_fabric_claim(FabricManagerClaim claim);
  // The topology bindings are validated against (default: one device, no links).
  void set_fabric_topology(FabricTopology topology) { topology_ = std::move(topology); }
  const FabricTopology& fabric_topology() const { return topology_; }
  const std::vector<FabricManagerClaim>& fabric_claims() const { return claims_; }

  // An operation-owned (compiler-managed) semaphore on every launch core; ids
  // 0, 1, ...; the factory's first_free_semaphore_id is their count.
  uint32_t add_semaphore(uint32_t initial_value);

  // One execution: see the file comment. Throws ValidationError (invalid
  // resources or descriptors), ProgramError / KernelError (build or run).
  void run(Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
           const RuntimeResourceFactory& factory = {});

  // Validates a launch range and a factory result against this operation
  // (what run() does before building anything; the launch range before it
  // calls the factory): the launch range is not empty and its rectangles do
  // not overlap; then every rule of the resources. Throws ValidationError.
  void validate(const ProgramRuntimeResources& resources, const CoreRangeSet& launch) const;
  // The fabric part of validate(): one binding per declared claim; each
  // claim's kernel declared; links that the topology exposes; every active
  // device and worker node of the launch range covered; no link shared with
  // a generated manager or another requirement.
  void validate_fabric(const ProgramRuntimeResources& resources, const CoreRangeSet& launch) const;

  // The ProgramDescriptor run() would build (after validation).
  ProgramDescriptor plan(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                         const ProgramRuntimeResources& resources) const;

  const std::string& name() const { return name_; }
  const std::vector<OperationKernel>& kernels() const { return kernels_; }
  // The CB configs (core_ranges empty: they go on the launch range) and the
  // initial values of the operation's own semaphores (ids 0, 1, ...).
  const std::vector<CBDescriptor>& circular_buffers() const { return cbs_; }
  const std::vector<uint32_t>& own_semaphores() const { return own_semaphores_; }
  // What the last successful run retained (its resources' lifetimes and tensors).
  const std::vector<Lifetime>& lifetimes() const { return lifetimes_; }
  uint32_t first_free_semaphore_id() const { return uint32_t(own_semaphores_.size()); }
  // The phases of the last run() that got that far.
  const OperationTimings& last_timings() const { return timings_; }

private:
  // The two halves of validate().
  void validate_launch(const CoreRangeSet& launch) const;
  void validate_resources(const ProgramRuntimeResources& resources, const CoreRangeSet& launch) const;
  // Index of the logical kernel `selector` names, or throws naming `where`.
  size_t find_kernel(const KernelSelector& selector, const std::string& where) const;
  static constexpr size_t kNoKernel = ~size_t(0);
  size_t lookup_kernel(const KernelSelector& selector) const; // kNoKernel if none
  std::string kernel_not_found(const KernelSelector& selector) const;

  std::string name_;
  std::shared_ptr<int> identity_; // what Kernel handles bind to
  std::vector<OperationKernel> kernels_;
  std::vector<CBDescriptor> cbs_; // core_ranges filled per run
  std::vector<uint32_t> own_semaphores_;
  std::vector<FabricManagerClaim> claims_;
  FabricTopology topology_;
  std::vector<Lifetime> lifetimes_;
  OperationTimings timings_;
  // The fast path of a cache hit: for a resource structure seen before with
  // the same declaration, on the same device and cache generation, where
  // each dispatch word goes in the cached program (spans into it), so a hit
  // builds no descriptor. The device is named by its generation, never its
  // address: a device opened where a destroyed one was must not find the
  // destroyed one's program.
  struct FastPlan {
    Program* program = nullptr;
    uint64_t device_generation = 0; // Device::generation()
    uint64_t cache_generation = 0;  // ProgramCache::generation()
    // Where one core's words go: its slot in the program and (for a kernel
    // with runtime_words) its index in OwnedWords::cores.
    struct Slot {
      std::span<uint32_t> words;
      size_t core = 0;
    };
    // Per kernel_resources entry, per runtime_args element: the slot of its words
    // (the caller's, then any runtime-owned words).
    std::vector<std::vector<Slot>> slots;
    // Cores that get only runtime-owned words: (logical kernel, slot).
    std::vector<std::pair<size_t, Slot>> owned_only;
    std::vector<std::span<uint32_t>> addresses; // the common args holding tensor addresses
  };
  // One run's runtime-owned words: for each logical kernel with
  // runtime_words, the words of each launch core (called once each).
  struct OwnedWords {
    std::vector<CoreCoord> cores;                          // launch.cores(); empty when no kernel has runtime_words
    std::vector<std::vector<std::vector<uint32_t>>> words; // [logical kernel][core index]; empty without runtime_words
  };
  // The fabric bindings' part of the cache identity (fabric.cpp): per
  // declared claim, its kernel, its binding's ABI identity, endpoints,
  // worker nodes and fixed links.
  void fabric_identity(resources::KeyWriter& key, const ProgramRuntimeResources& r) const;
  void collect_owned_words(const CoreRangeSet& launch, OwnedWords& into) const;
  void resource_key(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                    const ProgramRuntimeResources& r, const OwnedWords& owned) const;
  // The fast path of a hit: this execution's dispatch words and tensor addresses into f's slots.
  void write_dispatch_words(const FastPlan& f, const std::vector<std::shared_ptr<Buffer>>& tensors,
                            const ProgramRuntimeResources& resources, const OwnedWords& owned) const;
  FastPlan make_fast_plan(Program& program, Device& device, const ProgramDescriptor& d,
                          const std::vector<size_t>& kernel_of, const ProgramRuntimeResources& r,
                          const OwnedWords& owned) const;
  ProgramDescriptor plan_impl(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                              const ProgramRuntimeResources& r, const OwnedWords& owned,
                              std::vector<size_t>* kernel_of) const;
  OwnedWords owned_; // run()'s (its capacity is reused)
  mutable std::vector<uint32_t> key_words_;
  mutable std::string key_;
  // Plans by resource_key, for the current declaration only: every declaring
  // call (add_kernel, add_circular_buffer, add_semaphore, add_fabric_claim)
  // drops them all, so a kernel, CB or semaphore declared after a run is in
  // the next run's program.
  std::unordered_map<std::string, FastPlan> fast_;
  void declaration_changed() { fast_.clear(); }

  // Validation scratch, reused so a valid result allocates nothing.
  mutable std::vector<uint64_t> seen_;
  mutable std::vector<int> entry_of_;
};

} // namespace tessel
