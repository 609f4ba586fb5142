// The operation's fast path (include/tessel/operation.hpp, Operation's
// private part): for a resource structure seen before on the same device and
// cache generation, the dispatch words go straight into the cached program
// through spans recorded when the entry was built, and no descriptor is
// planned.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "resources/operation_internal.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/operation.hpp"
#include "tessel/program_cache.hpp"

namespace tessel {

// The structure of one execution's resources, in the form the fast path
// keys on: everything plan() turns into descriptor structure (the launch
// range, the tensors' accessor args (memory, page sizes, sharding), each entry's kernel, defines,
// coordinates and vector lengths, the caller semaphores, the fabric
// bindings, how many runtime-owned words each core gets), nothing that only
// ends up in dispatch words. Written into key_ (its capacity, and that of
// key_words_, is reused).
void Operation::resource_key(const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                             const ProgramRuntimeResources& r, const OwnedWords& owned) const {
  key_words_.clear();
  resources::KeyWriter w{key_words_};
  w.cores(launch);
  w.u32(uint32_t(tensors.size()));
  for (const auto& t : tensors) {
    if (!t) throw ValidationError("Operation '" + name_ + "': a tensor is null");
    w.u32(uint32_t(t->type())), w.u32(t->page_size()), w.u32(t->aligned_page_size());
    // Everything else its TensorAccessorArgs (compile args of the plan) hold.
    w.u32(t->is_sharded());
    if (const auto& shard = t->shard_spec()) {
      for (const std::vector<uint32_t>* v :
           {&shard->tensor_shape_in_pages, &shard->shard_shape_in_pages, &shard->banks}) {
        w.u32(uint32_t(v->size()));
        for (uint32_t x : *v)
          w.u32(x);
      }
    }
  }
  w.u32(uint32_t(r.kernel_resources().size()));
  for (const KernelRuntimeResources& kr : r.kernel_resources()) {
    w.u32(uint32_t(lookup_kernel(kr.kernel())));
    w.u32(uint32_t(kr.defines().size()));
    for (const KernelDefine& d : kr.defines())
      w.str(d.name()), w.str(d.value());
    w.u32(uint32_t(kr.runtime_args().size()));
    for (const CoreRuntimeArgs& a : kr.runtime_args())
      w.u32(a.core().x), w.u32(a.core().y), w.u32(uint32_t(a.values().size()));
  }
  w.u32(uint32_t(r.semaphore_descriptors().size()));
  for (const SemaphoreDescriptor& sd : r.semaphore_descriptors()) {
    w.u32(sd.id), w.u32(sd.initial_value);
    w.cores(sd.core_ranges);
  }
  fabric_identity(w, r);
  for (const auto& per_core : owned.words) {
    w.u32(uint32_t(per_core.size()));
    for (const std::vector<uint32_t>& words : per_core)
      w.u32(uint32_t(words.size()));
  }
  key_.assign(w.bytes());
}

Operation::FastPlan Operation::make_fast_plan(Program& program, Device& device, const ProgramDescriptor& d,
                                              const std::vector<size_t>& kernel_of, const ProgramRuntimeResources& r,
                                              const OwnedWords& owned) const {
  FastPlan f;
  f.program = &program;
  f.device_generation = device.generation();
  f.cache_generation = device.program_cache().generation();
  std::map<std::pair<uint32_t, uint32_t>, size_t> index_of; // core -> index in owned.cores
  for (size_t i = 0; i < owned.cores.size(); ++i)
    index_of[{owned.cores[i].x, owned.cores[i].y}] = i;
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
      const CoreCoord c = a.core();
      const size_t core = kernels_[k].runtime_words ? index_of.at({c.x, c.y}) : 0;
      f.slots.back().push_back({program.runtime_args(where.at({k, c.x, c.y}), c), core});
      with_caller_words.insert({k, c.x, c.y});
    }
  }
  for (const auto& [key, h] : where)
    if (!with_caller_words.count(key) && kernels_[std::get<0>(key)].runtime_words) {
      const CoreCoord c{std::get<1>(key), std::get<2>(key)};
      f.owned_only.push_back({std::get<0>(key), {program.runtime_args(h, c), index_of.at({c.x, c.y})}});
    }
  return f;
}

void Operation::write_dispatch_words(const FastPlan& f, const std::vector<std::shared_ptr<Buffer>>& tensors,
                                     const ProgramRuntimeResources& resources, const OwnedWords& owned) const {
  const auto& entries = resources.kernel_resources();
  for (size_t i = 0; i < entries.size(); ++i) {
    const size_t k = lookup_kernel(entries[i].kernel());
    const auto& args = entries[i].runtime_args();
    for (size_t j = 0; j < args.size(); ++j) {
      const std::vector<uint32_t>& v = args[j].values();
      const FastPlan::Slot& slot = f.slots[i][j];
      std::copy(v.begin(), v.end(), slot.words.begin());
      if (kernels_[k].runtime_words) {
        const std::vector<uint32_t>& own = owned.words[k][slot.core];
        std::copy(own.begin(), own.end(), slot.words.begin() + v.size());
      }
    }
  }
  for (const auto& [k, slot] : f.owned_only) {
    const std::vector<uint32_t>& own = owned.words[k][slot.core];
    std::copy(own.begin(), own.end(), slot.words.begin());
  }
  for (std::span<uint32_t> slot : f.addresses)
    for (size_t t = 0; t < tensors.size(); ++t)
      slot[t] = uint32_t(tensors[t]->address());
}

} // namespace tessel
