#include "sim/profiler.hpp"

#include "base/warning.hpp"
#include "sim/chip.hpp"
#include "sim/kernel_api_support.hpp"

namespace tessel::sim {

namespace {

// The simulator's own zones around every kernel, as Metalium's firmware
// records them (its "<RISC>-FW" and "<RISC>-KERNEL" zones), per RISC.
struct BuiltinSites {
  tessel_profiler_site firmware;
  tessel_profiler_site kernel;
};
constexpr uint32_t timer_id_of(const char* text) {
  uint32_t hash = 2166136261u;
  for (; *text; ++text)
    hash = (hash ^ static_cast<unsigned char>(*text)) * 16777619u;
  return ((hash & 0xFFFFu) ^ (hash >> 16)) & 0xFFFFu;
}
constexpr const char* kFirmwareFile = "tessel/firmware";
constexpr BuiltinSites kBuiltinSites[TESSEL_RISC_COUNT] = {
    {{"BRISC-FW", kFirmwareFile, 0, timer_id_of("BRISC-FW")},
     {"BRISC-KERNEL", kFirmwareFile, 0, timer_id_of("BRISC-KERNEL")}},
    {{"NCRISC-FW", kFirmwareFile, 0, timer_id_of("NCRISC-FW")},
     {"NCRISC-KERNEL", kFirmwareFile, 0, timer_id_of("NCRISC-KERNEL")}},
    {{"TRISC-FW", kFirmwareFile, 0, timer_id_of("TRISC-FW")},
     {"TRISC-KERNEL", kFirmwareFile, 0, timer_id_of("TRISC-KERNEL")}},
};

// Appends a marker at this RISC's next clock tick. The caller has checked
// that it fits (ProfilerBuffer's invariants).
inline void push(tessel_kernel_ctx& k, ProfilerBuffer& b, uint32_t mark, const tessel_profiler_site* site,
                 uint64_t data) {
  b.markers[b.count++] = {site, ++k.clock, data, mark, b.run_host_id};
}

// Whether `needed` more of the kernel's markers fit beside the ends reserved
// for the zones already open.
inline bool kernel_room(const ProfilerBuffer& b, uint32_t needed) {
  return b.kernel_count + b.open_zones + needed <= kProfilerMarkersPerRisc;
}

inline void push_kernel(tessel_kernel_ctx& k, ProfilerBuffer& b, uint32_t mark, const tessel_profiler_site* site,
                        uint64_t data) {
  ++b.kernel_count;
  push(k, b, mark, site, data);
}

} // namespace

uint32_t api_profiler_mark(tessel_kernel_ctx* k, uint32_t mark, const tessel_profiler_site* site, uint64_t data) {
  ProfilerBuffer& b = fiber_of(k)->profiler;
  switch (mark) {
  case TESSEL_PROFILER_ZONE_START:
    if (!kernel_room(b, 2)) break;
    push_kernel(*k, b, mark, site, data);
    ++b.open_zones;
    return 1;
  case TESSEL_PROFILER_ZONE_END:
    --b.open_zones;
    push_kernel(*k, b, mark, site, data);
    return 1;
  case TESSEL_PROFILER_TS_DATA:
  case TESSEL_PROFILER_TS_EVENT:
    if (!kernel_room(b, 1)) break;
    push_kernel(*k, b, mark, site, data);
    return 1;
  case TESSEL_PROFILER_SUM_START:
  case TESSEL_PROFILER_SUM_END: {
    const uint32_t index = uint32_t(data) % kProfilerAccumulators;
    const uint64_t now = ++k->clock;
    if (mark == TESSEL_PROFILER_SUM_START) {
      b.sum_start[index] = now;
      b.sum_site[index] = site;
    } else {
      b.sum_cycles[index] += now - b.sum_start[index];
    }
    return 1;
  }
  case TESSEL_PROFILER_SET_COUNTER: b.run_host_id = uint32_t(data); return 1;
  default: {
    std::string m = "profiler_mark: unknown marker kind " + std::to_string(mark) + " (kernel_abi.h mismatch?)";
    fail(k, std::move(m), site ? site->file : nullptr, site ? site->line : 0);
  }
  }
  ++k->clock;                                              // a dropped marker still takes its cycle, as on silicon
  b.dropped += mark == TESSEL_PROFILER_ZONE_START ? 2 : 1; // a zone's end goes with its start
  return 0;
}

void Profiler::begin_kernel(Fiber& f, uint32_t run_host_id) {
  ProfilerBuffer& b = f.profiler;
  tessel_kernel_ctx& k = f.core->ctx[f.risc];
  b.count = b.kernel_count = b.open_zones = b.dropped = 0;
  b.run_host_id = run_host_id;
  for (uint32_t i = 0; i < kProfilerAccumulators; ++i) {
    b.sum_cycles[i] = b.sum_start[i] = 0;
    b.sum_site[i] = nullptr;
  }
  push(k, b, TESSEL_PROFILER_ZONE_START, &kBuiltinSites[f.risc].firmware, 0);
  push(k, b, TESSEL_PROFILER_ZONE_START, &kBuiltinSites[f.risc].kernel, 0);
}

void Profiler::end_kernel(Fiber& f) {
  ProfilerBuffer& b = f.profiler;
  tessel_kernel_ctx& k = f.core->ctx[f.risc];
  for (uint32_t i = 0; i < kProfilerAccumulators; ++i)
    if (b.sum_site[i]) push(k, b, TESSEL_PROFILER_ZONE_TOTAL, b.sum_site[i], b.sum_cycles[i]);
  push(k, b, TESSEL_PROFILER_ZONE_END, &kBuiltinSites[f.risc].kernel, 0);
  push(k, b, TESSEL_PROFILER_ZONE_END, &kBuiltinSites[f.risc].firmware, 0);
}

uint32_t Profiler::intern(const tessel_profiler_site& site) {
  std::string key = std::string(site.name) + '\x1f' + site.file + '\x1f' + std::to_string(site.line);
  auto [it, fresh] = site_index_.try_emplace(std::move(key), uint32_t(sites_.size()));
  if (fresh) sites_.push_back({site.name, site.file, site.line});
  return it->second;
}

std::string Profiler::drain(std::span<Fiber* const> fibers) {
  std::string strict_error;
  // Sites are static data of a loaded kernel: within one drain a pointer
  // names one site (a later kernel may reuse the address for another).
  std::unordered_map<const tessel_profiler_site*, uint32_t> seen;
  for (Fiber* f : fibers) {
    ProfilerBuffer& b = f->profiler;
    for (uint32_t i = 0; i < b.count; ++i) {
      const ProfilerMarker& m = b.markers[i];
      auto [it, fresh] = seen.try_emplace(m.site, 0);
      if (fresh) it->second = intern(*m.site);
      records_.push_back({f->core->index, f->risc, m.mark,
                          m.mark == TESSEL_PROFILER_TS_EVENT ? uint32_t(m.data) : m.site->timer_id, m.time,
                          m.mark == TESSEL_PROFILER_TS_EVENT ? 0 : m.data, m.run_host_id, it->second});
    }
    if (b.dropped) {
      const std::string kernel = f->kernel_name ? f->kernel_name : "?";
      std::string message = f->core->chip->where(f, nullptr, 0) + "kernel '" + kernel +
                            "' recorded more profiler markers in one run than a RISC's buffer holds (" +
                            std::to_string(kProfilerMarkersPerRisc) +
                            "; a zone takes two): " + std::to_string(b.dropped) +
                            " were dropped, as Metalium drops them; record fewer zones per run";
      const std::string key = "profiler-buffer-full|" + kernel + "|" + Chip::risc_name(f->risc);
      if (base::warn_once(key, message) == base::Warned::Strict && strict_error.empty())
        strict_error = std::move(message) + base::kStrictSuffix;
    }
    b.count = 0;
  }
  return strict_error;
}

} // namespace tessel::sim
