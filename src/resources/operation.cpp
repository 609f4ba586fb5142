// Operations (include/tessel/operation.hpp): the declaration (logical
// kernels, CBs, semaphores, fabric claims), how a selector finds its logical
// kernel, and run(), which strings the phases together: the factory,
// validation (validation.cpp, fabric.cpp), the fast path (fast_path.cpp) or
// planning (planning.cpp) and the program cache, then the execution.
#include "tessel/operation.hpp"

#include <chrono>
#include <optional>
#include <string>

#include "resources/operation_internal.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/program_cache.hpp"

namespace tessel {

using resources::kind_of;
using resources::same;

Operation::Operation(std::string name) : name_(std::move(name)), identity_(std::make_shared<int>(0)) {}

void Operation::add_kernel(OperationKernel k) {
  const std::string what = "Operation '" + name_ + "': add_kernel(" + describe(k.kernel) + ")";
  const bool compute = std::holds_alternative<ComputeConfigDescriptor>(k.config);
  if (compute != (kind_of(k.kernel) == KernelKind::Compute))
    throw ValidationError(what + ": a " + to_string(kind_of(k.kernel)) + " kernel needs a " +
                          (compute ? "data-movement" : "compute") + " config");
  for (const OperationKernel& o : kernels_) {
    if (std::holds_alternative<KernelKind>(k.kernel) && same(o.kernel, k.kernel))
      throw ValidationError(what + ": the operation already has its " + to_string(kind_of(k.kernel)) +
                            " kernel; declare further kernels of a kind with captured Kernel handles");
  }
  if (const auto* h = std::get_if<Kernel>(&k.kernel)) {
    const auto& st = h->state();
    if (!st->operation.expired())
      throw ValidationError(what + ": this Kernel is already declared by operation '" + st->operation_name + "'");
  }
  for (size_t i = 0; i < k.specializations.size(); ++i)
    for (size_t j = i + 1; j < k.specializations.size(); ++j)
      if (k.specializations[i].first.intersects(k.specializations[j].first))
        throw ValidationError(what + ": specializations[" + std::to_string(i) + "] and [" + std::to_string(j) +
                              "] share cores; each core gets one set of compile args");
  if (const auto* h = std::get_if<Kernel>(&k.kernel)) {
    h->state()->operation = identity_;
    h->state()->operation_name = name_;
  }
  kernels_.push_back(std::move(k));
  declaration_changed();
}

void Operation::add_circular_buffer(uint32_t total_size, std::vector<CBFormatDescriptor> formats) {
  cbs_.push_back(CBDescriptor{total_size, {}, std::move(formats)});
  declaration_changed();
}

void Operation::add_fabric_claim(FabricManagerClaim claim) {
  const std::string what = "Operation '" + name_ + "': add_fabric_claim('" + claim.name() + "')";
  for (const FabricManagerClaim& c : claims_)
    if (c == claim) throw ValidationError(what + ": the claim is already declared");
  if (lookup_kernel(claim.kernel()) == kNoKernel) throw ValidationError(what + ": " + kernel_not_found(claim.kernel()));
  claims_.push_back(std::move(claim));
  declaration_changed();
}

uint32_t Operation::add_semaphore(uint32_t initial_value) {
  own_semaphores_.push_back(initial_value);
  declaration_changed();
  return uint32_t(own_semaphores_.size() - 1);
}

size_t Operation::find_kernel(const KernelSelector& selector, const std::string& where) const {
  const size_t k = lookup_kernel(selector);
  if (k != kNoKernel) return k;
  throw ValidationError(where + ": " + kernel_not_found(selector));
}

size_t Operation::lookup_kernel(const KernelSelector& selector) const {
  if (const auto* h = std::get_if<Kernel>(&selector))
    if (h->state()->operation.lock() != identity_) return kNoKernel;
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (same(kernels_[i].kernel, selector)) return i;
  return kNoKernel;
}

std::string Operation::kernel_not_found(const KernelSelector& selector) const {
  if (const auto* h = std::get_if<Kernel>(&selector)) {
    const auto& st = h->state();
    if (st->operation.lock() != identity_)
      return describe(selector) + " is not bound to operation '" + name_ + "'" +
             (st->operation.expired()       ? std::string(" (no operation declared it)")
              : st->operation_name == name_ ? std::string(" (it belongs to another operation of the same name)")
                                            : " (it belongs to operation '" + st->operation_name + "')");
  }
  std::string declared;
  for (const OperationKernel& k : kernels_)
    declared += (declared.empty() ? "" : ", ") + describe(k.kernel);
  return "operation '" + name_ + "' has no logical kernel " + describe(selector) +
         " (it declares: " + (declared.empty() ? "none" : declared) + ")";
}

void Operation::run(Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                    const RuntimeResourceFactory& factory) {
  using Clock = std::chrono::steady_clock;
  validate_launch(launch);
  if (kernels_.empty()) throw ValidationError("Operation '" + name_ + "': no kernels declared");
  timings_ = {};
  auto t0 = Clock::now();
  auto lap = [&](double& into) {
    const auto t = Clock::now();
    into = std::chrono::duration<double>(t - t0).count();
    t0 = t;
  };
  const ProgramRuntimeResources resources =
      factory ? factory(tensors, launch, first_free_semaphore_id()) : ProgramRuntimeResources{};
  lap(timings_.factory);
  validate_resources(resources, launch);
  lap(timings_.validate);

  ProgramCache& cache = device.program_cache();
  collect_owned_words(launch, owned_);
  resource_key(tensors, launch, resources, owned_);
  auto it = fast_.find(key_);
  Program* program = nullptr;
  std::optional<ProgramDescriptor> planned; // a fast-path miss's descriptor
  bool added = false;                       // whether this run added planned's program to the cache
  std::optional<FastPlan> fresh;            // a miss's plan, kept once the run has succeeded
  try {
    if (it != fast_.end() && it->second.device_generation == device.generation() &&
        it->second.cache_generation == cache.generation()) {
      // A structure seen before: write the dispatch words straight into the cached program.
      lap(timings_.plan);
      const FastPlan& f = it->second;
      write_dispatch_words(f, tensors, resources, owned_);
      cache.count_hit();
      program = f.program;
      lap(timings_.lookup);
    } else {
      std::vector<size_t> kernel_of;
      planned = plan_impl(tensors, launch, resources, owned_, &kernel_of);
      lap(timings_.plan);
      bool hit = false;
      program = &cache.get(*planned, &hit);
      added = !hit;
      fresh = make_fast_plan(*program, device, *planned, kernel_of, resources, owned_);
      lap(timings_.lookup);
    }
    device.command_queue().enqueue_program(*program);
  } catch (...) {
    // A failed run leaves the cache as it was: the program it added goes.
    if (added) cache.erase(*planned);
    throw;
  }
  lap(timings_.execute);
  if (fresh) {
    if (it != fast_.end())
      it->second = std::move(*fresh);
    else
      fast_.emplace(key_, std::move(*fresh));
  }
  // Success: the new owners replace the old ones (kept alive through execution above).
  std::vector<Lifetime> kept = resources.lifetimes();
  for (const FabricConnectionBinding& b : resources.fabric_connections())
    kept.insert(kept.end(), b.lifetimes().begin(), b.lifetimes().end());
  for (const std::shared_ptr<Buffer>& t : tensors)
    kept.push_back(t);
  lifetimes_ = std::move(kept);
}

} // namespace tessel
