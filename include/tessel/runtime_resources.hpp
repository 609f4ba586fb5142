// Runtime-resource records (spec/operation-runtime-resources, "Typed
// Records" and "External Fabric Managers"; design §4): what a runtime
// resource factory returns for one execution of an Operation (operation.hpp).
//
//   ProgramRuntimeResources      caller semaphores, per-logical-kernel
//                                resources, lifetimes, fabric bindings
//   KernelRuntimeResources       one logical kernel's per-core runtime args
//                                and defines
//   CoreRuntimeArgs              one ordered word vector for one core
//   KernelDefine                 one define name and its value
//   FabricManagerClaim           one external fabric manager and its kernel
//   FabricConnectionBinding      a claim's requirements and ABI identity
//   FabricConnectionRequirement  one fixed forwarding link for worker nodes
//
// A logical kernel is selected by KernelKind (an operation's one kernel of
// that kind) or by a captured Kernel handle, never by a descriptor index.
//
// Which parts are structure and which are dispatch values: defines, core
// coordinates, vector lengths, caller semaphores and fabric bindings are
// structure (they join the program-cache identity); the words of
// CoreRuntimeArgs are dispatch values; lifetimes are owners, kept alive
// through execution and never part of any identity.
//
// Records are immutable after construction and hold their collections by
// value; the spec's type rules (records and tuples, integer non-boolean
// words, string define names and values) are the C++ types themselves.
// Kernel and FabricManagerClaim are handles: copies share one identity (and
// a claim's ownership state). Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tessel/buffer.hpp"
#include "tessel/core_coord.hpp"
#include "tessel/program_descriptor.hpp"

namespace tessel {

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

} // namespace tessel
