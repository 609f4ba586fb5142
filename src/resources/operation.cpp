// Operations and runtime resources (include/tessel/operation.hpp): the
// validation rules, the planner (logical kernels -> descriptors), and run().
#include "tessel/operation.hpp"

#include <algorithm>
#include <chrono>
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

bool inside(const CoreRangeSet& set, const CoreRangeSet& range) { return range.contains(set); }

// A set of cores as row runs, in (y, x) order.
CoreRangeSet set_of(std::vector<CoreCoord> cores) {
  std::sort(cores.begin(), cores.end(), [](CoreCoord a, CoreCoord b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
  std::vector<CoreRange> runs;
  for (CoreCoord c : cores) {
    if (!runs.empty() && runs.back().end_coord.y == c.y && runs.back().end_coord.x + 1 == c.x)
      runs.back().end_coord.x = c.x;
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

void Operation::add_fabric_claim(FabricManagerClaim claim) {
  const std::string what = "Operation '" + name_ + "': add_fabric_claim('" + claim.name() + "')";
  for (const FabricManagerClaim& c : claims_)
    if (c == claim) throw ValidationError(what + ": the claim is already declared");
  if (lookup_kernel(claim.kernel()) == kNoKernel) throw ValidationError(what + ": " + kernel_not_found(claim.kernel()));
  claims_.push_back(std::move(claim));
}

uint32_t Operation::add_semaphore(uint32_t initial_value) {
  own_semaphores_.push_back(initial_value);
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

// ---------------------------------------------------------------------------
// Validation: every rule of the spec, each with its own message. The checks
// build no strings and allocate nothing unless one fails.

namespace {
// "Operation 'op': runtime resources: " + what, thrown.
[[noreturn]] void invalid(const std::string& op, const std::string& what) {
  throw ValidationError("Operation '" + op + "': runtime resources: " + what);
}
std::string semaphore_at(size_t i, uint32_t id) {
  return "semaphore_descriptors[" + std::to_string(i) + "] (id " + std::to_string(id) + ")";
}
std::string kernel_entry(size_t i, const KernelSelector& k) { return entry(i) + " (" + describe(k) + ")"; }
} // namespace

void Operation::validate(const ProgramRuntimeResources& r, const CoreRangeSet& launch) const {
  const uint32_t first_free = first_free_semaphore_id();
  const auto& sems = r.semaphore_descriptors();
  for (size_t i = 0; i < sems.size(); ++i) {
    const SemaphoreDescriptor& s = sems[i];
    if (s.id < first_free)
      invalid(name_, semaphore_at(i, s.id) + ": id is below first_free_semaphore_id " + std::to_string(first_free) +
                         "; ids below it belong to the operation");
    if (s.id >= 16)
      invalid(name_, semaphore_at(i, s.id) + ": id is out of range; a program has at most 16 semaphores (ids 0..15)");
    for (size_t j = 0; j < i; ++j)
      if (sems[j].id == s.id)
        invalid(name_, semaphore_at(i, s.id) + ": id " + std::to_string(s.id) + " is also semaphore_descriptors[" +
                           std::to_string(j) + "]'s; caller semaphore ids must be unique");
    if (s.core_ranges.num_cores() == 0) invalid(name_, semaphore_at(i, s.id) + ": core_ranges is empty");
    if (!inside(s.core_ranges, launch))
      invalid(name_, semaphore_at(i, s.id) + ": core_ranges " + s.core_ranges.str() +
                         " are not inside the operation's worker range " + launch.str());
  }
  // Per-core scratch over the launch range's bounding box: which entry (+1) last set each core.
  uint32_t x0 = ~0u, y0 = ~0u, x1 = 0, y1 = 0;
  for (const CoreRange& cr : launch.ranges()) {
    x0 = std::min(x0, cr.start_coord.x), y0 = std::min(y0, cr.start_coord.y);
    x1 = std::max(x1, cr.end_coord.x), y1 = std::max(y1, cr.end_coord.y);
  }
  const uint32_t width = x1 - x0 + 1;
  seen_.assign(size_t(width) * (y1 - y0 + 1), 0);
  entry_of_.assign(kernels_.size(), -1);
  const auto& entries = r.kernel_resources();
  for (size_t i = 0; i < entries.size(); ++i) {
    const KernelRuntimeResources& kr = entries[i];
    const size_t k = lookup_kernel(kr.kernel());
    if (k == kNoKernel) invalid(name_, entry(i) + ": " + kernel_not_found(kr.kernel()));
    if (entry_of_[k] >= 0)
      invalid(name_, kernel_entry(i, kr.kernel()) + ": the kernel already has resources in " +
                         entry(size_t(entry_of_[k])) + "; give each logical kernel at most one entry");
    entry_of_[k] = int(i);
    const auto& args = kr.runtime_args();
    for (size_t j = 0; j < args.size(); ++j) {
      const CoreCoord c = args[j].core();
      if (!launch.contains(c))
        invalid(name_, kernel_entry(i, kr.kernel()) + ": runtime_args[" + std::to_string(j) + "] at core " + c.str() +
                           " is outside the operation's worker range " + launch.str());
      // A mark holds (entry + 1) << 32 | (element + 1) of the runtime_args that set the core.
      uint64_t& mark = seen_[size_t(c.y - y0) * width + (c.x - x0)];
      if ((mark >> 32) == i + 1)
        invalid(name_, kernel_entry(i, kr.kernel()) + ": runtime_args[" + std::to_string(j) + "] at core " + c.str() +
                           ": the core already has runtime_args[" + std::to_string((mark & 0xffffffffu) - 1) +
                           "]; give each core one vector per logical kernel");
      mark = (uint64_t(i + 1) << 32) | (j + 1);
    }
    const auto& defs = kr.defines();
    for (size_t a = 0; a < defs.size(); ++a) {
      for (size_t b = 0; b < a; ++b)
        if (defs[b].name() == defs[a].name())
          invalid(name_, kernel_entry(i, kr.kernel()) + ": define '" + defs[a].name() +
                             "' appears twice; give each name once");
      auto own = kernels_[k].defines.find(defs[a].name());
      if (own != kernels_[k].defines.end())
        invalid(name_, kernel_entry(i, kr.kernel()) + ": define '" + defs[a].name() +
                           "' is already defined by the operation (as '" + own->second + "')");
    }
  }
  validate_fabric(r, launch);
}

namespace {
std::string link_text(uint32_t local, uint32_t remote, uint32_t link) {
  return "link " + std::to_string(link) + " from device " + std::to_string(local) + " to device " +
         std::to_string(remote);
}
std::string binding_at(size_t i) { return "fabric_connections[" + std::to_string(i) + "]"; }
std::string requirement_at(size_t i, size_t j) { return binding_at(i) + ".connections[" + std::to_string(j) + "]"; }
} // namespace

void Operation::validate_fabric(const ProgramRuntimeResources& r, const CoreRangeSet& launch) const {
  const auto& bindings = r.fabric_connections();
  if (bindings.empty() && claims_.empty()) return;
  const FabricTopology& t = topology_;
  std::vector<int> bound(claims_.size(), -1);
  for (size_t i = 0; i < bindings.size(); ++i) {
    const FabricConnectionBinding& b = bindings[i];
    size_t c = 0;
    while (c < claims_.size() && !(claims_[c] == b.claim()))
      ++c;
    if (c == claims_.size())
      invalid(name_, binding_at(i) + ": claim '" + b.claim().name() + "' is not declared by operation '" + name_ +
                         "' (declare it with add_fabric_claim)");
    if (bound[c] >= 0)
      invalid(name_, binding_at(i) + ": claim '" + b.claim().name() + "' is already bound by " +
                         binding_at(size_t(bound[c])) + "; supply one binding per claim");
    bound[c] = int(i);
    for (size_t j = 0; j < b.connections().size(); ++j) {
      const FabricConnectionRequirement& q = b.connections()[j];
      for (uint32_t dev : {q.local_device(), q.remote_device()})
        if (dev >= t.num_devices)
          invalid(name_, requirement_at(i, j) + ": device " + std::to_string(dev) +
                             " is not an active logical device (the topology has " + std::to_string(t.num_devices) +
                             ": 0.." + std::to_string(t.num_devices - 1) + ")");
      if (q.worker_nodes().num_cores() == 0 || !inside(q.worker_nodes(), launch))
        invalid(name_, requirement_at(i, j) + ": worker_nodes " + q.worker_nodes().str() +
                           " are not inside the operation's worker range " + launch.str());
      const FabricLink link{q.local_device(), q.remote_device(), q.fixed_link_index()};
      if (std::find(t.links.begin(), t.links.end(), link) == t.links.end()) {
        std::string exposed;
        for (const FabricLink& l : t.links)
          if (l.local_device == link.local_device && l.remote_device == link.remote_device)
            exposed += (exposed.empty() ? "" : ", ") + std::to_string(l.link_index);
        invalid(name_, requirement_at(i, j) + ": " + link_text(link.local_device, link.remote_device, link.link_index) +
                           " is not exposed by the topology (links from " + std::to_string(link.local_device) + " to " +
                           std::to_string(link.remote_device) + ": " + (exposed.empty() ? "none" : exposed) + ")");
      }
      if (std::find(t.generated.begin(), t.generated.end(), link) != t.generated.end())
        invalid(name_, requirement_at(i, j) + ": " + link_text(link.local_device, link.remote_device, link.link_index) +
                           " is owned by a generated fabric manager; external managers must not overlap it");
      for (size_t a = 0; a <= i; ++a)
        for (size_t bj = 0; bj < bindings[a].connections().size() && (a < i || bj < j); ++bj) {
          const FabricConnectionRequirement& o = bindings[a].connections()[bj];
          if (o.local_device() == q.local_device() && o.remote_device() == q.remote_device() &&
              o.fixed_link_index() == q.fixed_link_index())
            invalid(name_, requirement_at(i, j) + ": " +
                               link_text(link.local_device, link.remote_device, link.link_index) +
                               " is also reserved by " + requirement_at(a, bj));
        }
    }
    // Coverage: every active logical device and worker node of the launch range.
    for (uint32_t dev = 0; dev < t.num_devices; ++dev)
      for (const CoreRange& cr : launch.ranges())
        for (uint32_t y = cr.start_coord.y; y <= cr.end_coord.y; ++y)
          for (uint32_t x = cr.start_coord.x; x <= cr.end_coord.x; ++x) {
            bool covered = false;
            for (const FabricConnectionRequirement& q : b.connections())
              covered = covered || (q.local_device() == dev && q.worker_nodes().contains({x, y}));
            if (!covered)
              invalid(name_, binding_at(i) + " (claim '" + b.claim().name() + "'): device " + std::to_string(dev) +
                                 " worker node " + CoreCoord{x, y}.str() +
                                 " has no connection; the requirements must cover every active logical device "
                                 "and worker node of " +
                                 describe(b.claim().kernel()));
          }
  }
  for (size_t c = 0; c < claims_.size(); ++c)
    if (bound[c] < 0)
      invalid(name_, "claim '" + claims_[c].name() +
                         "' has no binding in fabric_connections; supply one FabricConnectionBinding per claim");
}

namespace {
// The fabric bindings' part of the cache identity: claim identity, ABI
// identity, endpoints, worker nodes and fixed links.
void fabric_identity(std::string& out, const ProgramRuntimeResources& r) {
  auto u32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto str = [&](const std::string& v) {
    u32(uint32_t(v.size()));
    out += v;
  };
  u32(uint32_t(r.fabric_connections().size()));
  for (const FabricConnectionBinding& b : r.fabric_connections()) {
    str(b.claim().name());
    str(b.abi_identity());
    u32(uint32_t(b.connections().size()));
    for (const FabricConnectionRequirement& q : b.connections()) {
      u32(q.local_device()), u32(q.remote_device()), u32(q.fixed_link_index());
      u32(uint32_t(q.worker_nodes().ranges().size()));
      for (const CoreRange& cr : q.worker_nodes().ranges())
        u32(cr.start_coord.x), u32(cr.start_coord.y), u32(cr.end_coord.x), u32(cr.end_coord.y);
    }
  }
}
} // namespace

// ---------------------------------------------------------------------------
// Planning: each logical kernel becomes one descriptor per group of cores
// that share compile args (specialisation, and with runtime-owned words the
// caller's argument count).

ProgramDescriptor Operation::plan(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                                  const ProgramRuntimeResources& r) const {
  return plan_impl(tensors, launch, r, nullptr);
}

ProgramDescriptor Operation::plan_impl(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                                       const ProgramRuntimeResources& r, std::vector<size_t>* kernel_of) const {
  const std::string op = "Operation '" + name_ + "': ";
  ProgramDescriptor d;
  fabric_identity(d.custom_identity, r);
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
      if (kernel_of) kernel_of->push_back(k);
    }
  }
  return d;
}

// The structure of one execution's resources, in the form the fast path
// keys on: everything plan() turns into descriptor structure (the launch
// range, the tensors' accessor properties, each entry's kernel, defines,
// coordinates and vector lengths, the caller semaphores), nothing that only
// ends up in dispatch words. Written into key_ (its capacity is reused).
void Operation::resource_key(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                             const ProgramRuntimeResources& r) const {
  key_.clear();
  auto u32 = [&](uint32_t v) { key_.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto str = [&](const std::string& v) {
    u32(uint32_t(v.size()));
    key_ += v;
  };
  auto cores = [&](const CoreRangeSet& set) {
    u32(uint32_t(set.ranges().size()));
    for (const CoreRange& cr : set.ranges())
      u32(cr.start_coord.x), u32(cr.start_coord.y), u32(cr.end_coord.x), u32(cr.end_coord.y);
  };
  cores(launch);
  u32(uint32_t(tensors.size()));
  for (const auto& t : tensors) {
    if (!t) throw ValidationError("Operation '" + name_ + "': a tensor is null");
    u32(uint32_t(t->type())), u32(t->page_size()), u32(t->aligned_page_size());
  }
  u32(uint32_t(r.kernel_resources().size()));
  for (const KernelRuntimeResources& kr : r.kernel_resources()) {
    u32(uint32_t(lookup_kernel(kr.kernel())));
    u32(uint32_t(kr.defines().size()));
    for (const KernelDefine& d : kr.defines())
      str(d.name()), str(d.value());
    u32(uint32_t(kr.runtime_args().size()));
    for (const CoreRuntimeArgs& a : kr.runtime_args())
      u32(a.core().x), u32(a.core().y), u32(uint32_t(a.values().size()));
  }
  u32(uint32_t(r.semaphore_descriptors().size()));
  for (const SemaphoreDescriptor& sd : r.semaphore_descriptors()) {
    u32(sd.id), u32(sd.initial_value);
    cores(sd.core_ranges);
  }
  fabric_identity(key_, r);
}

Operation::FastPlan Operation::make_fast_plan(Program& program, Device& device, const ProgramDescriptor& d,
                                              const std::vector<size_t>& kernel_of,
                                              const ProgramRuntimeResources& r) const {
  FastPlan f;
  f.program = &program;
  f.device = &device;
  f.cache_generation = device.program_cache().generation();
  // Descriptor of (logical kernel, core).
  std::map<std::tuple<size_t, uint32_t, uint32_t>, KernelHandle> where;
  for (size_t h = 0; h < d.kernels.size(); ++h) {
    for (const auto& [core, values] : d.kernels[h].runtime_args)
      where[{kernel_of[h], core.x, core.y}] = KernelHandle(h);
    if (!d.kernels[h].common_runtime_args.empty()) f.addresses.push_back(program.common_runtime_args(KernelHandle(h)));
  }
  std::set<std::tuple<size_t, uint32_t, uint32_t>> with_caller_words;
  for (const KernelRuntimeResources& kr : r.kernel_resources()) {
    const size_t k = lookup_kernel(kr.kernel());
    f.slots.emplace_back();
    for (const CoreRuntimeArgs& a : kr.runtime_args()) {
      f.slots.back().push_back(program.runtime_args(where.at({k, a.core().x, a.core().y}), a.core()));
      with_caller_words.insert({k, a.core().x, a.core().y});
    }
  }
  for (const auto& [key, h] : where)
    if (!with_caller_words.count(key) && kernels_[std::get<0>(key)].runtime_words) {
      const CoreCoord c{std::get<1>(key), std::get<2>(key)};
      f.owned_only.emplace_back(std::get<0>(key), c, program.runtime_args(h, c));
    }
  return f;
}

void Operation::run(Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                    const RuntimeResourceFactory& factory) {
  using Clock = std::chrono::steady_clock;
  if (launch.num_cores() == 0) throw ValidationError("Operation '" + name_ + "': the launch range is empty");
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
  validate(resources, launch);
  lap(timings_.validate);

  ProgramCache& cache = device.program_cache();
  resource_key(tensors, launch, resources);
  auto it = fast_.find(key_);
  Program* program = nullptr;
  if (it != fast_.end() && it->second.device == &device && it->second.cache_generation == cache.generation()) {
    // A structure seen before: write the dispatch words straight into the cached program.
    lap(timings_.plan);
    const FastPlan& f = it->second;
    const auto& entries = resources.kernel_resources();
    for (size_t i = 0; i < entries.size(); ++i) {
      const OperationKernel& ok = kernels_[lookup_kernel(entries[i].kernel())];
      const auto& args = entries[i].runtime_args();
      for (size_t j = 0; j < args.size(); ++j) {
        const std::vector<uint32_t>& v = args[j].values();
        std::span<uint32_t> slot = f.slots[i][j];
        std::copy(v.begin(), v.end(), slot.begin());
        if (ok.runtime_words) {
          const std::vector<uint32_t> own = ok.runtime_words(args[j].core());
          std::copy(own.begin(), own.end(), slot.begin() + v.size());
        }
      }
    }
    for (const auto& [k, core, slot] : f.owned_only) {
      const std::vector<uint32_t> own = kernels_[k].runtime_words(core);
      std::copy(own.begin(), own.end(), slot.begin());
    }
    for (std::span<uint32_t> slot : f.addresses)
      for (size_t t = 0; t < tensors.size(); ++t)
        slot[t] = uint32_t(tensors[t]->address());
    cache.count_hit();
    program = f.program;
    lap(timings_.lookup);
  } else {
    std::vector<size_t> kernel_of;
    const ProgramDescriptor d = plan_impl(tensors, launch, resources, &kernel_of);
    lap(timings_.plan);
    program = &cache.get(d);
    FastPlan f = make_fast_plan(*program, device, d, kernel_of, resources);
    if (it != fast_.end())
      it->second = std::move(f);
    else
      fast_.emplace(key_, std::move(f));
    lap(timings_.lookup);
  }
  device.command_queue().enqueue_program(*program);
  lap(timings_.execute);
  // Success: the new owners replace the old ones (kept alive through execution above).
  std::vector<Lifetime> kept = resources.lifetimes();
  for (const FabricConnectionBinding& b : resources.fabric_connections())
    kept.insert(kept.end(), b.lifetimes().begin(), b.lifetimes().end());
  for (const std::shared_ptr<Buffer>& t : tensors)
    kept.push_back(t);
  lifetimes_ = std::move(kept);
}

} // namespace tessel
