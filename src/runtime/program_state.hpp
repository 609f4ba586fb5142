// What a Program holds, and the plan built from it for one device.
//
// Versions: `kernels_version` changes when anything that affects a kernel
// binary changes (a kernel added); `layout_version` when anything else of the
// structure changes (CBs, semaphores, which cores have runtime args, their
// lengths). A plan is rebuilt when either differs from what it was built
// for; binaries are rebuilt only when kernels_version differs.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "jit/kernel_build.hpp"
#include "sim/chip.hpp"
#include "tessel/program.hpp"

namespace tessel::runtime {

inline uint32_t core_key(CoreCoord c) { return (c.y << 16) | c.x; }

// The largest L1 of any architecture; the device's own size is checked when
// the program is enqueued.
inline constexpr uint32_t kMaxL1Bytes = 1464 * 1024;

struct KernelSpec {
  std::string name;        // display name (path as given, or the source name)
  std::string source_path; // resolved absolute path; empty for source text
  std::string source_text;
  CoreRangeSet cores;
  bool compute = false;
  uint32_t risc = 0; // TESSEL_RISC_*
  uint32_t noc = 0;
  std::vector<uint32_t> compile_args;
  Defines defines;
  NamedCompileArgs named_compile_args;
  int opt_level = -1;
  std::vector<std::string> include_dirs;
  std::optional<KernelBindings> bindings; // becomes the TESSEL_KERNEL_BINDINGS define when added
  ComputeConfig compute_config;
  uint64_t unpack_to_dest_fp32 = 0; // bit per CB index with UnpackToDestFp32 (compute kernels)
  std::unordered_map<uint32_t, std::vector<uint32_t>> runtime_args; // core_key -> words
  std::vector<uint32_t> common_args;
  bool common_args_set = false;
};

struct CbSpec {
  CoreRangeSet cores;
  CircularBufferConfig config;
  uint32_t l1_offset = 0; // assigned when added (same on every core)
};

// By CB index, the tile size of its format on every core of `cores`; 0 where
// a core lacks the CB or the cores' formats differ.
inline std::vector<uint32_t> cb_tile_sizes(const CoreRangeSet& cores, const std::vector<CbSpec>& cbs) {
  std::vector<uint32_t> sizes(TESSEL_MAX_CBS, 0), here(TESSEL_MAX_CBS, 0);
  std::vector<bool> mixed(TESSEL_MAX_CBS, false);
  bool first = true;
  for (CoreCoord c : cores.cores()) {
    std::fill(here.begin(), here.end(), 0u);
    for (const CbSpec& cb : cbs)
      if (cb.cores.contains(c))
        for (const auto& [index, format] : cb.config.formats())
          here[index] = tile_size(format);
    for (uint32_t i = 0; i < TESSEL_MAX_CBS; ++i)
      if (first)
        sizes[i] = here[i];
      else if (here[i] != sizes[i])
        mixed[i] = true;
    first = false;
  }
  for (uint32_t i = 0; i < TESSEL_MAX_CBS; ++i)
    if (mixed[i]) sizes[i] = 0;
  return sizes;
}

// By CB index, its data format on every core of `cores`; 255 (Invalid) where
// a core lacks the CB or the cores' formats differ.
inline std::vector<uint8_t> cb_data_formats(const CoreRangeSet& cores, const std::vector<CbSpec>& cbs) {
  constexpr uint8_t kNone = 255, kMixed = 254;
  std::vector<uint8_t> formats(TESSEL_MAX_CBS, kNone), here(TESSEL_MAX_CBS, kNone);
  bool first = true;
  for (CoreCoord c : cores.cores()) {
    std::fill(here.begin(), here.end(), kNone);
    for (const CbSpec& cb : cbs)
      if (cb.cores.contains(c))
        for (const auto& [index, format] : cb.config.formats())
          here[index] = uint8_t(format);
    for (uint32_t i = 0; i < TESSEL_MAX_CBS; ++i)
      if (first)
        formats[i] = here[i];
      else if (here[i] != formats[i])
        formats[i] = kMixed;
    first = false;
  }
  for (uint8_t& f : formats)
    if (f == kMixed) f = kNone;
  return formats;
}

// The kernel's build; with `cbs`, the program's CBs, its CB tile-size and
// format tables.
inline jit::BuildRequest build_request(const KernelSpec& k, const std::vector<CbSpec>* cbs = nullptr,
                                       const sim::ArchSpec* arch = nullptr) {
  jit::BuildRequest r;
  r.source_path = k.source_path;
  r.source_text = k.source_text;
  r.display_name = k.name;
  r.kind = k.compute ? jit::KernelKind::Compute : jit::KernelKind::DataMovement;
  r.defines.assign(k.defines.begin(), k.defines.end());
  r.include_dirs = k.include_dirs;
  if (k.compute) {
    // The ComputeConfig as compile-time constants (compute.h: APPROX, DST_ACCUM_MODE, ...).
    const ComputeConfig& c = k.compute_config;
    r.defines.emplace_back("TESSEL_MATH_APPROX", c.math_approx_mode ? "1" : "0");
    r.defines.emplace_back("TESSEL_FP32_DEST_ACC", c.fp32_dest_acc_en ? "1" : "0");
    r.defines.emplace_back("TESSEL_DST_FULL_SYNC", c.dst_full_sync_en ? "1" : "0");
    r.defines.emplace_back("TESSEL_MATH_FIDELITY", std::to_string(uint32_t(c.math_fidelity)));
    // Build options the simulation does not model, defined only when set (so
    // that kernels without them keep their cache entries).
    if (c.bfp8_pack_precise) r.defines.emplace_back("TESSEL_BFP8_PACK_PRECISE", "1");
    if (c.enable_trisc2_rvv) r.defines.emplace_back("TESSEL_TRISC2_RVV", "1");
  }
  r.compile_args = k.compile_args;
  r.named_compile_args.assign(k.named_compile_args.begin(), k.named_compile_args.end());
  r.opt_level = k.opt_level;
  if (cbs) {
    r.cb_tile_sizes = cb_tile_sizes(k.cores, *cbs);
    r.cb_data_formats = cb_data_formats(k.cores, *cbs);
  }
  if (arch) {
    r.arch = arch->name;
    r.l1_alignment = arch->l1_alignment;
    r.dram_read_alignment = arch->dram_read_alignment;
    r.dram_write_alignment = arch->dram_write_alignment;
  }
  return r;
}

struct SemaphoreSpec {
  CoreRangeSet cores;
  uint32_t initial_value = 0;
};

// Per core: what to set up before each launch.
struct CorePlan {
  uint32_t core_index = 0;
  uint64_t cb_mask = 0;             // CB indices configured on this core
  uint64_t cb_global_mask = 0;      // of those, the ones that are a buffer's memory (set_globally_allocated_address)
  std::vector<tessel_cb_iface> cbs; // templates, in the order of their indices
  std::vector<uint8_t> cb_indices;
  std::vector<std::pair<uint32_t, uint32_t>> semaphores; // (id, initial value)
  uint32_t num_semaphores = 0;
  uint32_t semaphore_mask = 0; // bit i: semaphore i exists on this core
  struct Risc {
    int kernel = -1;
    const std::vector<uint32_t>* args = nullptr; // null: no args on this core
    const std::vector<uint32_t>* common = nullptr;
  } risc[TESSEL_RISC_COUNT];
};

struct ProgramPlan {
  uint64_t device_generation = 0;
  uint64_t kernels_version = ~0ull;
  uint64_t layout_version = ~0ull;
  std::vector<std::shared_ptr<jit::KernelBinary>> binaries; // per kernel
  std::vector<CorePlan> cores;
  std::vector<sim::Launch> launches;
  // Kernel copies whose globals are restored before every launch (kernel, instance index).
  std::vector<std::pair<jit::KernelBinary*, uint32_t>> global_resets;
  uint32_t cb_end = 0; // first L1 offset above the program's CBs
};

struct ProgramState {
  std::vector<KernelSpec> kernels;
  std::vector<CbSpec> cbs;
  std::vector<SemaphoreSpec> semaphores;
  uint32_t cb_end = 0;                                    // highest L1 offset above a CB on any core (0 = none yet)
  std::unordered_map<uint32_t, uint32_t> cb_end_per_core; // core_key -> L1 offset above its CBs
  uint64_t kernels_version = 0;
  uint64_t layout_version = 0;
  ProgramPlan plan;
};

} // namespace tessel::runtime
