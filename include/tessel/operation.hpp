// Operations and per-dispatch runtime resources
// (spec/operation-runtime-resources, design §4).
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
// Records are immutable after construction and hold their collections by
// value. The spec's type rules (records and tuples, integer non-boolean words,
// string define names and values) are the C++ types themselves.
//
// Ownership: an Operation is a value owned by its caller; Kernel handles are
// shared. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include "tessel/buffer.hpp"
#include "tessel/core_coord.hpp"
#include "tessel/program_descriptor.hpp"

namespace tessel {

class Device;

enum class KernelKind : uint8_t { Compute, DataMovement };
std::string to_string(KernelKind kind);

// An operation-owned logical kernel. The operation and its factory capture the
// same handle; copies share the identity. Bound to one operation when that
// operation declares it.
class Kernel {
public:
  explicit Kernel(KernelKind kind, std::string name = "");
  KernelKind kind() const;
  const std::string& name() const;
  bool operator==(const Kernel& other) const { return state_ == other.state_; }

  struct State;
  const std::shared_ptr<State>& state() const { return state_; }

private:
  std::shared_ptr<State> state_;
};

// KernelKind selects the operation's one kernel of that kind; a Kernel selects itself.
using KernelSelector = std::variant<KernelKind, Kernel>;
std::string describe(const KernelSelector& kernel);

class CoreRuntimeArgs {
public:
  CoreRuntimeArgs(CoreCoord core, std::vector<uint32_t> values) : core_(core), values_(std::move(values)) {}
  CoreCoord core() const { return core_; }
  const std::vector<uint32_t>& values() const { return values_; }

private:
  CoreCoord core_;
  std::vector<uint32_t> values_;
};

class KernelDefine {
public:
  KernelDefine(std::string name, std::string value) : name_(std::move(name)), value_(std::move(value)) {}
  const std::string& name() const { return name_; }
  const std::string& value() const { return value_; }

private:
  std::string name_, value_;
};

class KernelRuntimeResources {
public:
  explicit KernelRuntimeResources(KernelSelector kernel, std::vector<CoreRuntimeArgs> runtime_args = {},
                                  std::vector<KernelDefine> defines = {})
      : kernel_(std::move(kernel)), runtime_args_(std::move(runtime_args)), defines_(std::move(defines)) {}
  const KernelSelector& kernel() const { return kernel_; }
  const std::vector<CoreRuntimeArgs>& runtime_args() const { return runtime_args_; }
  const std::vector<KernelDefine>& defines() const { return defines_; }

private:
  KernelSelector kernel_;
  std::vector<CoreRuntimeArgs> runtime_args_;
  std::vector<KernelDefine> defines_;
};

// Owners kept alive while an execution runs (any shared object).
using Lifetime = std::shared_ptr<const void>;

// ---- External fabric managers ----
//
// A claim records that an external kernel owns routing-plane connections
// (which the runtime's generated managers must not overlap), without exposing
// that kernel's argument ABI. acquire(), use() and release() describe the
// manager's lifetime across opaque calls; scoped() one call that acquires,
// uses and releases it. Copies share the identity and the ownership state.
class FabricManagerClaim {
public:
  FabricManagerClaim(std::string name, KernelSelector kernel);
  const std::string& name() const;
  const KernelSelector& kernel() const;
  bool operator==(const FabricManagerClaim& other) const { return state_ == other.state_; }

  // Ownership begins when acquire() starts and ends after release() returns.
  // Each throws ValidationError when called out of order (acquire while held,
  // use or release while not held).
  void acquire();
  void use();
  void release();
  bool held() const;
  uint64_t uses() const;
  // acquire(); use(); call(); release() — released even if call throws.
  template <class F>
  auto scoped(F&& call) {
    acquire();
    struct Release {
      FabricManagerClaim* claim;
      ~Release() { claim->release(); }
    } release_at_exit{this};
    use();
    return call();
  }

  struct State;

private:
  std::shared_ptr<State> state_;
};

// One fixed forwarding link from `local_device` to `remote_device` reserved
// for the listed worker nodes of the selected kernel.
class FabricConnectionRequirement {
public:
  FabricConnectionRequirement(uint32_t local_device, uint32_t remote_device, CoreRangeSet worker_nodes,
                              uint32_t fixed_link_index)
      : local_device_(local_device), remote_device_(remote_device), worker_nodes_(std::move(worker_nodes)),
        fixed_link_index_(fixed_link_index) {}
  uint32_t local_device() const { return local_device_; }
  uint32_t remote_device() const { return remote_device_; }
  const CoreRangeSet& worker_nodes() const { return worker_nodes_; }
  uint32_t fixed_link_index() const { return fixed_link_index_; }

private:
  uint32_t local_device_, remote_device_;
  CoreRangeSet worker_nodes_;
  uint32_t fixed_link_index_;
};

// A claim's connections, the ABI identity of the external manager, and owners
// kept alive through execution.
class FabricConnectionBinding {
public:
  FabricConnectionBinding(FabricManagerClaim claim, std::vector<FabricConnectionRequirement> connections,
                          std::string abi_identity, std::vector<Lifetime> lifetimes = {})
      : claim_(std::move(claim)), connections_(std::move(connections)), abi_identity_(std::move(abi_identity)),
        lifetimes_(std::move(lifetimes)) {}
  const FabricManagerClaim& claim() const { return claim_; }
  const std::vector<FabricConnectionRequirement>& connections() const { return connections_; }
  const std::string& abi_identity() const { return abi_identity_; }
  const std::vector<Lifetime>& lifetimes() const { return lifetimes_; }

private:
  FabricManagerClaim claim_;
  std::vector<FabricConnectionRequirement> connections_;
  std::string abi_identity_;
  std::vector<Lifetime> lifetimes_;
};

// What the control plane exposes: the logical devices, which forwarding links
// go from each device to each destination, and the links the runtime's own
// generated managers use. A single device with a described topology is enough
// to validate bindings; running them across devices needs the multi-chip mesh.
struct FabricLink {
  uint32_t local_device = 0, remote_device = 0, link_index = 0;
  friend bool operator==(const FabricLink&, const FabricLink&) = default;
};
struct FabricTopology {
  uint32_t num_devices = 1;          // active logical devices 0 .. num_devices - 1
  std::vector<FabricLink> links;     // links that exist
  std::vector<FabricLink> generated; // links owned by generated managers
};

class ProgramRuntimeResources {
public:
  explicit ProgramRuntimeResources(std::vector<SemaphoreDescriptor> semaphore_descriptors = {},
                                   std::vector<KernelRuntimeResources> kernel_resources = {},
                                   std::vector<Lifetime> lifetimes = {},
                                   std::vector<FabricConnectionBinding> fabric_connections = {})
      : semaphore_descriptors_(std::move(semaphore_descriptors)), kernel_resources_(std::move(kernel_resources)),
        lifetimes_(std::move(lifetimes)), fabric_connections_(std::move(fabric_connections)) {}
  const std::vector<SemaphoreDescriptor>& semaphore_descriptors() const { return semaphore_descriptors_; }
  const std::vector<KernelRuntimeResources>& kernel_resources() const { return kernel_resources_; }
  const std::vector<Lifetime>& lifetimes() const { return lifetimes_; }
  const std::vector<FabricConnectionBinding>& fabric_connections() const { return fabric_connections_; }

private:
  std::vector<SemaphoreDescriptor> semaphore_descriptors_;
  std::vector<KernelRuntimeResources> kernel_resources_;
  std::vector<Lifetime> lifetimes_;
  std::vector<FabricConnectionBinding> fabric_connections_;
};

using RuntimeResourceFactory =
    std::function<ProgramRuntimeResources(const std::vector<std::shared_ptr<Buffer>>& tensors,
                                          const CoreRangeSet& core_ranges, uint32_t first_free_semaphore_id)>;

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
  // get separate descriptors.
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

  // Validates a factory result against this operation and a launch range
  // (what run() does before building anything). Throws ValidationError.
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
  // The fast path of a cache hit: for a resource structure seen before on the
  // same device and cache generation, where each dispatch word goes in the
  // cached program (spans into it), so a hit builds no descriptor.
  struct FastPlan {
    Program* program = nullptr;
    const Device* device = nullptr;
    uint64_t cache_generation = 0;
    // Per kernel_resources entry, per runtime_args element: the slot of its words
    // (the caller's, then any runtime-owned words).
    std::vector<std::vector<std::span<uint32_t>>> slots;
    // Cores that get only runtime-owned words: (logical kernel, core, slot).
    std::vector<std::tuple<size_t, CoreCoord, std::span<uint32_t>>> owned_only;
    std::vector<std::span<uint32_t>> addresses; // the common args holding tensor addresses
  };
  void resource_key(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                    const ProgramRuntimeResources& r) const;
  FastPlan make_fast_plan(Program& program, Device& device, const ProgramDescriptor& d,
                          const std::vector<size_t>& kernel_of, const ProgramRuntimeResources& r) const;
  ProgramDescriptor plan_impl(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                              const ProgramRuntimeResources& resources, std::vector<size_t>* kernel_of) const;
  mutable std::string key_;
  std::unordered_map<std::string, FastPlan> fast_;

  // Validation scratch, reused so a valid result allocates nothing.
  mutable std::vector<uint64_t> seen_;
  mutable std::vector<int> entry_of_;
};

} // namespace tessel
