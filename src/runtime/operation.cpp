// Operations and runtime resources (include/tessel/operation.hpp): the
// validation rules, the planner (logical kernels -> descriptors), and run().
#include "tessel/operation.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "tessel/command_queue.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/program_cache.hpp"
#include "tessel/tensor_accessor_args.hpp"

namespace tessel {

struct Kernel::State {
  KernelKind kind;
  std::string name;
  std::weak_ptr<int> operation; // the operation that declared it
  std::string operation_name;
};

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

namespace {

bool same(const KernelSelector& a, const KernelSelector& b) {
  if (a.index() != b.index()) return false;
  if (const auto* k = std::get_if<KernelKind>(&a)) return *k == std::get<KernelKind>(b);
  return std::get<Kernel>(a) == std::get<Kernel>(b);
}

KernelKind kind_of(const KernelSelector& k) {
  if (const auto* kind = std::get_if<KernelKind>(&k)) return *kind;
  return std::get<Kernel>(k).kind();
}

bool inside(const CoreRangeSet& set, const CoreRangeSet& range) {
  for (const CoreRange& r : set.ranges())
    for (uint32_t y = r.start.y; y <= r.end.y; ++y)
      for (uint32_t x = r.start.x; x <= r.end.x; ++x)
        if (!range.contains({x, y})) return false;
  return true;
}

// A set of cores as row runs, in (y, x) order.
CoreRangeSet set_of(std::vector<CoreCoord> cores) {
  std::sort(cores.begin(), cores.end(), [](CoreCoord a, CoreCoord b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
  std::vector<CoreRange> runs;
  for (CoreCoord c : cores) {
    if (!runs.empty() && runs.back().end.y == c.y && runs.back().end.x + 1 == c.x)
      runs.back().end.x = c.x;
    else
      runs.push_back(CoreRange(c, c));
  }
  return CoreRangeSet(std::move(runs));
}

std::string entry(size_t i) { return "kernel_resources[" + std::to_string(i) + "]"; }

} // namespace

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
}

void Operation::add_circular_buffer(uint32_t total_size, std::vector<CBFormatDescriptor> formats) {
  cbs_.push_back(CBDescriptor{total_size, {}, std::move(formats)});
}

uint32_t Operation::add_semaphore(uint32_t initial_value) {
  own_semaphores_.push_back(initial_value);
  return uint32_t(own_semaphores_.size() - 1);
}

size_t Operation::find_kernel(const KernelSelector& selector, const std::string& where) const {
  if (const auto* h = std::get_if<Kernel>(&selector)) {
    const auto& st = h->state();
    if (st->operation.lock() != identity_)
      throw ValidationError(where + ": " + describe(selector) + " is not bound to operation '" + name_ + "'" +
                            (st->operation.expired() ? std::string(" (no operation declared it)")
                                                     : " (it belongs to operation '" + st->operation_name + "')"));
  }
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (same(kernels_[i].kernel, selector)) return i;
  std::string declared;
  for (const OperationKernel& k : kernels_)
    declared += (declared.empty() ? "" : ", ") + describe(k.kernel);
  throw ValidationError(where + ": operation '" + name_ + "' has no logical kernel " + describe(selector) +
                        " (it declares: " + (declared.empty() ? "none" : declared) + ")");
}

// ---------------------------------------------------------------------------
// Validation: every rule of the spec, each with its own message.

void Operation::validate(const ProgramRuntimeResources& r, const CoreRangeSet& launch) const {
  const std::string op = "Operation '" + name_ + "': runtime resources: ";
  const uint32_t first_free = first_free_semaphore_id();
  // Caller semaphores: ids unique, >= first_free_semaphore_id, in range; cores inside the worker range.
  for (size_t i = 0; i < r.semaphore_descriptors().size(); ++i) {
    const SemaphoreDescriptor& s = r.semaphore_descriptors()[i];
    const std::string where = op + "semaphore_descriptors[" + std::to_string(i) + "] (id " + std::to_string(s.id) + ")";
    if (s.id < first_free)
      throw ValidationError(where + ": id is below first_free_semaphore_id " + std::to_string(first_free) +
                            "; ids below it belong to the operation");
    if (s.id >= 16)
      throw ValidationError(where + ": id is out of range; a program has at most 16 semaphores (ids 0..15)");
    for (size_t j = 0; j < i; ++j)
      if (r.semaphore_descriptors()[j].id == s.id)
        throw ValidationError(where + ": id " + std::to_string(s.id) + " is also semaphore_descriptors[" +
                              std::to_string(j) + "]'s; caller semaphore ids must be unique");
    if (s.core_ranges.num_cores() == 0) throw ValidationError(where + ": core_ranges is empty");
    if (!inside(s.core_ranges, launch))
      throw ValidationError(where + ": core_ranges " + s.core_ranges.str() +
                            " are not inside the operation's worker range " + launch.str());
  }
  std::vector<int> entry_of(kernels_.size(), -1);
  for (size_t i = 0; i < r.kernel_resources().size(); ++i) {
    const KernelRuntimeResources& kr = r.kernel_resources()[i];
    const size_t k = find_kernel(kr.kernel(), op + entry(i));
    const std::string where = op + entry(i) + " (" + describe(kr.kernel()) + ")";
    if (entry_of[k] >= 0)
      throw ValidationError(where + ": the kernel already has resources in " + entry(size_t(entry_of[k])) +
                            "; give each logical kernel at most one entry");
    entry_of[k] = int(i);
    std::map<std::pair<uint32_t, uint32_t>, size_t> seen;
    for (size_t j = 0; j < kr.runtime_args().size(); ++j) {
      const CoreCoord c = kr.runtime_args()[j].core();
      const std::string at = where + ": runtime_args[" + std::to_string(j) + "] at core " + c.str();
      if (!launch.contains(c)) throw ValidationError(at + " is outside the operation's worker range " + launch.str());
      auto [it, fresh] = seen.emplace(std::make_pair(c.x, c.y), j);
      if (!fresh)
        throw ValidationError(at + ": the core already has runtime_args[" + std::to_string(it->second) +
                              "]; give each core one vector per logical kernel");
    }
    std::set<std::string> names;
    for (const KernelDefine& d : kr.defines()) {
      if (!names.insert(d.name()).second)
        throw ValidationError(where + ": define '" + d.name() + "' appears twice; give each name once");
      auto own = kernels_[k].defines.find(d.name());
      if (own != kernels_[k].defines.end())
        throw ValidationError(where + ": define '" + d.name() + "' is already defined by the operation (as '" +
                              own->second + "')");
    }
  }
}

// ---------------------------------------------------------------------------
// Planning: each logical kernel becomes one descriptor per group of cores
// that share compile args (specialisation, and with runtime-owned words the
// caller's argument count).

ProgramDescriptor Operation::plan(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                                  const ProgramRuntimeResources& r) const {
  const std::string op = "Operation '" + name_ + "': ";
  ProgramDescriptor d;
  for (const CBDescriptor& cb : cbs_) {
    d.cbs.push_back(cb);
    d.cbs.back().core_ranges = launch;
  }
  for (uint32_t id = 0; id < own_semaphores_.size(); ++id)
    d.semaphores.push_back({id, launch, own_semaphores_[id]});
  for (const SemaphoreDescriptor& s : r.semaphore_descriptors())
    d.semaphores.push_back(s);

  // Tensor accessors: compile args after the operation's own, addresses as common args.
  std::vector<uint32_t> accessor_args, addresses;
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (!tensors[t]) throw ValidationError(op + "tensors[" + std::to_string(t) + "] is null");
    TensorAccessorArgs(*tensors[t]).append_to(accessor_args);
    addresses.push_back(uint32_t(tensors[t]->address()));
  }

  for (size_t k = 0; k < kernels_.size(); ++k) {
    const OperationKernel& ok = kernels_[k];
    const std::string name = describe(ok.kernel);
    const std::vector<CoreCoord> cores = launch.cores();
    // The caller's words per core and the defines for this kernel.
    const KernelRuntimeResources* kr = nullptr;
    for (const KernelRuntimeResources& e : r.kernel_resources())
      if (same(e.kernel(), ok.kernel)) kr = &e;
    std::map<std::pair<uint32_t, uint32_t>, const std::vector<uint32_t>*> words;
    if (kr)
      for (const CoreRuntimeArgs& a : kr->runtime_args())
        words[{a.core().x, a.core().y}] = &a.values();
    Defines defines = ok.defines;
    if (kr)
      for (const KernelDefine& def : kr->defines())
        defines[def.name()] = def.value();

    // Group the launch cores: (specialisation index or -1, caller count if runtime-owned words).
    for (size_t s = 0; s < ok.specializations.size(); ++s)
      if (!inside(ok.specializations[s].first, launch))
        throw ValidationError(op + name + ": specializations[" + std::to_string(s) + "] cores " +
                              ok.specializations[s].first.str() + " are not inside the launch range " + launch.str());
    std::map<std::pair<int, uint32_t>, std::vector<CoreCoord>> groups;
    for (CoreCoord c : cores) {
      int spec = -1;
      for (size_t s = 0; s < ok.specializations.size(); ++s)
        if (ok.specializations[s].first.contains(c)) spec = int(s);
      auto w = words.find({c.x, c.y});
      const uint32_t count = ok.runtime_words && w != words.end() ? uint32_t(w->second->size()) : 0;
      groups[{spec, count}].push_back(c);
    }
    // Every coordinate with words lands in exactly one descriptor (the groups partition the launch range).
    for (auto& [key, group] : groups) {
      KernelDescriptor kd;
      kd.kernel_source = ok.source;
      kd.source_type =
          ok.source_is_path ? KernelDescriptor::SourceType::FILE_PATH : KernelDescriptor::SourceType::SOURCE_CODE;
      kd.core_ranges = set_of(group);
      kd.compile_time_args = key.first >= 0 ? ok.specializations[size_t(key.first)].second : ok.compile_args;
      if (ok.runtime_words) kd.compile_time_args.push_back(key.second); // the caller's argument count
      kd.compile_time_args.insert(kd.compile_time_args.end(), accessor_args.begin(), accessor_args.end());
      kd.defines = defines;
      kd.config = ok.config;
      kd.common_runtime_args = addresses;
      for (CoreCoord c : group) {
        auto w = words.find({c.x, c.y});
        std::vector<uint32_t> values = w != words.end() ? *w->second : std::vector<uint32_t>{};
        if (ok.runtime_words) {
          const std::vector<uint32_t> own = ok.runtime_words(c);
          values.insert(values.end(), own.begin(), own.end());
        }
        if (!values.empty() || w != words.end()) kd.runtime_args.emplace_back(c, std::move(values));
      }
      d.kernels.push_back(std::move(kd));
    }
  }
  return d;
}

void Operation::run(Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                    const RuntimeResourceFactory& factory) {
  if (launch.num_cores() == 0) throw ValidationError("Operation '" + name_ + "': the launch range is empty");
  if (kernels_.empty()) throw ValidationError("Operation '" + name_ + "': no kernels declared");
  const ProgramRuntimeResources resources =
      factory ? factory(tensors, launch, first_free_semaphore_id()) : ProgramRuntimeResources{};
  validate(resources, launch);
  const ProgramDescriptor d = plan(tensors, launch, resources);
  Program& program = device.program_cache().get(d);
  device.command_queue().enqueue_program(program);
  // Success: the new owners replace the old ones (kept alive through execution above).
  std::vector<Lifetime> kept = resources.lifetimes();
  for (const std::shared_ptr<Buffer>& t : tensors)
    kept.push_back(t);
  lifetimes_ = std::move(kept);
}

} // namespace tessel
