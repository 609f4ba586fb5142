// The runtime-resource records' behaviour (include/tessel/runtime_resources.hpp):
// Kernel handles and how selectors are spelled in messages, and a fabric
// manager claim's ownership lifetime.
#include "tessel/runtime_resources.hpp"

#include <string>

#include "resources/operation_internal.hpp"
#include "tessel/error.hpp"

namespace tessel {

Kernel::Kernel(KernelKind kind, std::string name) : state_(std::make_shared<State>()) {
  state_->kind = kind;
  state_->name = std::move(name);
}
KernelKind Kernel::kind() const { return state_->kind; }
const std::string& Kernel::name() const { return state_->name; }

std::string to_string(KernelKind kind) { return kind == KernelKind::Compute ? "Compute" : "DataMovement"; }

std::string describe(const KernelSelector& k) {
  if (const auto* kind = std::get_if<KernelKind>(&k)) return "KernelKind::" + to_string(*kind);
  const Kernel& h = std::get<Kernel>(k);
  return "Kernel '" + (h.name().empty() ? std::string("(unnamed)") : h.name()) + "' (" + to_string(h.kind()) + ")";
}

struct FabricManagerClaim::State {
  std::string name;
  KernelSelector kernel;
  bool held = false;
  uint64_t uses = 0;
};

FabricManagerClaim::FabricManagerClaim(std::string name, KernelSelector kernel)
    : state_(std::make_shared<State>(State{std::move(name), std::move(kernel)})) {}
const std::string& FabricManagerClaim::name() const { return state_->name; }
const KernelSelector& FabricManagerClaim::kernel() const { return state_->kernel; }
bool FabricManagerClaim::held() const { return state_->held; }
uint64_t FabricManagerClaim::uses() const { return state_->uses; }
void FabricManagerClaim::acquire() {
  if (state_->held)
    throw ValidationError("FabricManagerClaim '" + state_->name +
                          "': acquire() while already held; release() it first");
  state_->held = true;
}
void FabricManagerClaim::use() {
  if (!state_->held)
    throw ValidationError("FabricManagerClaim '" + state_->name + "': use() while not held; acquire() it first");
  ++state_->uses;
}
void FabricManagerClaim::release() {
  if (!state_->held)
    throw ValidationError("FabricManagerClaim '" + state_->name + "': release() while not held; acquire() it first");
  state_->held = false;
}

namespace resources {

bool same(const KernelSelector& a, const KernelSelector& b) {
  if (a.index() != b.index()) return false;
  if (const auto* k = std::get_if<KernelKind>(&a)) return *k == std::get<KernelKind>(b);
  return std::get<Kernel>(a) == std::get<Kernel>(b);
}

KernelKind kind_of(const KernelSelector& k) {
  if (const auto* kind = std::get_if<KernelKind>(&k)) return *kind;
  return std::get<Kernel>(k).kind();
}

} // namespace resources

} // namespace tessel
