// Planning (Operation::plan, include/tessel/operation.hpp): each logical
// kernel becomes one descriptor per group of cores that share compile args
// (specialisation, and with runtime-owned words the caller's argument
// count); the groups partition the launch range, so every coordinate with
// words lands in exactly one descriptor.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "resources/operation_internal.hpp"
#include "tessel/error.hpp"
#include "tessel/operation.hpp"
#include "tessel/tensor_accessor_args.hpp"

namespace tessel {

using resources::same;

void Operation::collect_owned_words(const CoreRangeSet& launch, OwnedWords& into) const {
  into.cores.clear(); // in the capacity of the last run's
  into.words.resize(kernels_.size());
  for (size_t k = 0; k < kernels_.size(); ++k) {
    if (!kernels_[k].runtime_words) {
      into.words[k].clear();
      continue;
    }
    if (into.cores.empty())
      for (const CoreRange& range : launch.ranges())
        for (CoreCoord c : range)
          into.cores.push_back(c);
    into.words[k].resize(into.cores.size());
    for (size_t c = 0; c < into.cores.size(); ++c)
      into.words[k][c] = kernels_[k].runtime_words(into.cores[c]);
  }
}

ProgramDescriptor Operation::plan(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                                  const ProgramRuntimeResources& r) const {
  OwnedWords owned;
  collect_owned_words(launch, owned);
  return plan_impl(tensors, launch, r, owned, nullptr);
}

ProgramDescriptor Operation::plan_impl(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                                       const ProgramRuntimeResources& r, const OwnedWords& owned,
                                       std::vector<size_t>* kernel_of) const {
  const std::string op = "Operation '" + name_ + "': ";
  ProgramDescriptor d;
  std::vector<uint32_t> identity;
  resources::KeyWriter w{identity};
  fabric_identity(w, r);
  d.custom_identity = w.bytes();
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
    const std::vector<CoreCoord> cores = launch.cores(); // owned.words[k][i] is cores[i]'s
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
      if (!launch.contains(ok.specializations[s].first))
        throw ValidationError(op + name + ": specializations[" + std::to_string(s) + "] cores " +
                              ok.specializations[s].first.str() + " are not inside the launch range " + launch.str());
    std::map<std::pair<int, uint32_t>, std::vector<size_t>> groups; // -> indices into cores
    for (size_t i = 0; i < cores.size(); ++i) {
      const CoreCoord c = cores[i];
      int spec = -1;
      for (size_t s = 0; s < ok.specializations.size(); ++s)
        if (ok.specializations[s].first.contains(c)) spec = int(s);
      auto w = words.find({c.x, c.y});
      const uint32_t count = ok.runtime_words && w != words.end() ? uint32_t(w->second->size()) : 0;
      groups[{spec, count}].push_back(i);
    }
    // Every coordinate with words lands in exactly one descriptor (the groups partition the launch range).
    for (auto& [key, group] : groups) {
      KernelDescriptor kd;
      kd.kernel_source = ok.source;
      kd.source_type =
          ok.source_is_path ? KernelDescriptor::SourceType::FILE_PATH : KernelDescriptor::SourceType::SOURCE_CODE;
      std::vector<CoreCoord> group_cores;
      for (size_t i : group)
        group_cores.push_back(cores[i]);
      kd.core_ranges = CoreRangeSet(std::span<const CoreCoord>(group_cores)).merge_ranges();
      kd.compile_time_args = key.first >= 0 ? ok.specializations[size_t(key.first)].second : ok.compile_args;
      if (ok.runtime_words) kd.compile_time_args.push_back(key.second); // the caller's argument count
      kd.compile_time_args.insert(kd.compile_time_args.end(), accessor_args.begin(), accessor_args.end());
      kd.defines = defines;
      kd.config = ok.config;
      kd.common_runtime_args = addresses;
      for (size_t i : group) {
        const CoreCoord c = cores[i];
        auto w = words.find({c.x, c.y});
        std::vector<uint32_t> values = w != words.end() ? *w->second : std::vector<uint32_t>{};
        if (ok.runtime_words) values.insert(values.end(), owned.words[k][i].begin(), owned.words[k][i].end());
        if (!values.empty() || w != words.end()) kd.runtime_args.emplace_back(c, std::move(values));
      }
      d.kernels.push_back(std::move(kd));
      if (kernel_of) kernel_of->push_back(k);
    }
  }
  return d;
}

} // namespace tessel
