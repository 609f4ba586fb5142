// The program cache (include/tessel/program_cache.hpp): the structural key
// of a ProgramDescriptor, and lookups that build on a miss and re-apply the
// dispatch values on a hit.
#include "tessel/program_cache.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "tessel/command_queue.hpp"
#include "tessel/device.hpp"

namespace tessel {

// The structural key: every field that shapes the compiled program, written
// as length-prefixed fields so no two different structures write the same
// bytes. Runtime-argument words are left out; their coordinates and lengths
// are in.

namespace {

struct KeyWriter {
  std::string out;
  void u32(uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i32(int32_t v) { u32(uint32_t(v)); }
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    out += s;
  }
  void cores(const CoreRangeSet& set) {
    u32(uint32_t(set.ranges().size()));
    for (const CoreRange& r : set.ranges()) {
      u32(r.start_coord.x), u32(r.start_coord.y), u32(r.end_coord.x), u32(r.end_coord.y);
    }
  }
  void words(const std::vector<uint32_t>& v) {
    u32(uint32_t(v.size()));
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(uint32_t));
  }
};

void write_config(KeyWriter& w, const KernelDescriptor::Config& config) {
  w.u32(uint32_t(config.index()));
  if (const auto* d = std::get_if<DataMovementConfigDescriptor>(&config)) {
    w.u32(uint32_t(d->processor)), w.u32(uint32_t(d->noc));
  } else if (const auto* c = std::get_if<ComputeConfigDescriptor>(&config)) {
    w.u32(uint32_t(c->math_fidelity)), w.u32(c->fp32_dest_acc_en), w.u32(c->dst_full_sync_en);
    w.u32(c->bfp8_pack_precise), w.u32(c->math_approx_mode), w.u32(c->enable_trisc2_rvv);
    w.u32(uint32_t(c->unpack_to_dest_mode.size()));
    for (UnpackToDestMode m : c->unpack_to_dest_mode)
      w.u32(uint32_t(m));
  }
}

} // namespace

std::string ProgramCache::structural_key(const ProgramDescriptor& d) {
  KeyWriter w;
  w.out.reserve(256 + 64 * d.kernels.size());
  w.u32(uint32_t(d.kernels.size()));
  for (const KernelDescriptor& k : d.kernels) {
    w.u32(uint32_t(k.source_type));
    w.str(k.kernel_source);
    w.cores(k.core_ranges);
    w.words(k.compile_time_args);
    w.u32(uint32_t(k.named_compile_time_args.size()));
    for (const auto& [name, value] : k.named_compile_time_args) {
      w.str(name);
      w.u32(value);
    }
    w.u32(uint32_t(k.defines.size()));
    for (const auto& [name, value] : k.defines) {
      w.str(name);
      w.str(value);
    }
    w.i32(k.opt_level);
    write_config(w, k.config);
    w.u32(uint32_t(k.runtime_args.size()));
    for (const auto& [core, values] : k.runtime_args) {
      w.u32(core.x), w.u32(core.y), w.u32(uint32_t(values.size()));
    }
    w.u32(uint32_t(k.common_runtime_args.size()));
  }
  w.u32(uint32_t(d.cbs.size()));
  for (const CBDescriptor& cb : d.cbs) {
    w.u32(cb.total_size);
    w.cores(cb.core_ranges);
    w.u32(uint32_t(cb.format_descriptors.size()));
    for (const CBFormatDescriptor& f : cb.format_descriptors) {
      w.u32(f.buffer_index), w.u32(uint32_t(f.data_format)), w.u32(f.page_size);
    }
  }
  w.u32(uint32_t(d.semaphores.size()));
  for (const SemaphoreDescriptor& s : d.semaphores) {
    w.u32(s.id);
    w.cores(s.core_ranges);
    w.u32(s.initial_value);
  }
  w.str(d.custom_identity);
  return std::move(w.out);
}

Program& ProgramCache::get(const ProgramDescriptor& d, bool* hit) {
  std::string key = structural_key(d);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    auto program = std::make_unique<Program>(make_program(d));
    device_.command_queue().compile_program(*program);
    it = entries_.emplace(std::move(key), std::move(program)).first;
    ++misses_;
    if (hit) *hit = false;
    return *it->second;
  }
  // A hit: the structure (lengths included) matches, so every dispatch value
  // is copied into the slots it had when the entry was built.
  Program& p = *it->second;
  for (size_t i = 0; i < d.kernels.size(); ++i) {
    const KernelDescriptor& k = d.kernels[i];
    for (const auto& [core, values] : k.runtime_args) {
      std::span<uint32_t> slot = p.runtime_args(KernelHandle(i), core);
      std::copy(values.begin(), values.end(), slot.begin());
    }
    if (!k.common_runtime_args.empty()) {
      std::span<uint32_t> slot = p.common_runtime_args(KernelHandle(i));
      std::copy(k.common_runtime_args.begin(), k.common_runtime_args.end(), slot.begin());
    }
  }
  ++hits_;
  if (hit) *hit = true;
  return p;
}

bool ProgramCache::erase(const ProgramDescriptor& d) {
  if (entries_.erase(structural_key(d)) == 0) return false;
  ++generation_;
  return true;
}

void ProgramCache::clear() {
  entries_.clear();
  hits_ = misses_ = 0;
  ++generation_;
}

} // namespace tessel
