// Device's profiler calls: the chip's records (sim/profiler.hpp) as
// tessel::ProfilerRecord values.
#include "tessel/profiler.hpp"

#include <algorithm>
#include <tuple>

#include "runtime/device_state.hpp"
#include "tessel/device.hpp"

namespace tessel {

const char* profiler_risc_name(ProfilerRisc risc) {
  switch (risc) {
  case ProfilerRisc::Brisc: return "BRISC";
  case ProfilerRisc::Ncrisc: return "NCRISC";
  case ProfilerRisc::Trisc0: return "TRISC_0";
  case ProfilerRisc::Trisc1: return "TRISC_1";
  case ProfilerRisc::Trisc2: return "TRISC_2";
  }
  return "?";
}

const char* profiler_marker_type_name(ProfilerMarkerType type) {
  switch (type) {
  case ProfilerMarkerType::ZoneStart: return "ZONE_START";
  case ProfilerMarkerType::ZoneEnd: return "ZONE_END";
  case ProfilerMarkerType::ZoneTotal: return "ZONE_TOTAL";
  case ProfilerMarkerType::TimestampedData: return "TS_DATA";
  case ProfilerMarkerType::Event: return "TS_EVENT";
  }
  return "?";
}

bool Device::profiler_enabled() const {
  state_->require_open("Device::profiler_enabled");
  return state_->chip->profiler().enabled();
}

void Device::set_profiler_enabled(bool on) {
  state_->require_open("Device::set_profiler_enabled");
  state_->chip->set_profiler_enabled(on);
}

std::vector<ProfilerRecord> Device::profiler_records() const {
  state_->require_open("Device::profiler_records");
  const sim::Chip& chip = *state_->chip;
  const sim::Profiler& profiler = chip.profiler();
  const auto& arch = state_->arch;
  std::vector<ProfilerRecord> records;
  // The simulator's record order (per RISC, by time) is kept within a RISC.
  for (const sim::ProfilerRecord& r : profiler.records()) {
    const sim::ProfilerSiteText& site = profiler.site(r.site);
    ProfilerRecord out;
    out.core = {r.core_index % arch.grid_x, r.core_index / arch.grid_x};
    out.worker_core = {out.core.x + arch.worker_noc_x0, out.core.y + arch.worker_noc_y0};
    out.type = ProfilerMarkerType(r.mark);
    out.timer_id = r.timer_id;
    out.time_cycles = r.time;
    out.data = r.data;
    out.run_host_id = r.run_host_id;
    out.zone_name = site.name;
    out.source_file = site.file;
    out.source_line = site.line;
    if (r.risc == TESSEL_RISC_COMPUTE) {
      // One compute context plays the three TRISCs: each ran the kernel.
      for (ProfilerRisc trisc : {ProfilerRisc::Trisc0, ProfilerRisc::Trisc1, ProfilerRisc::Trisc2}) {
        out.risc = trisc;
        records.push_back(out);
      }
    } else {
      out.risc = r.risc == TESSEL_RISC_BRISC ? ProfilerRisc::Brisc : ProfilerRisc::Ncrisc;
      records.push_back(std::move(out));
    }
  }
  std::stable_sort(records.begin(), records.end(), [](const ProfilerRecord& a, const ProfilerRecord& b) {
    return std::tuple(a.core.y, a.core.x, a.risc, a.time_cycles) <
           std::tuple(b.core.y, b.core.x, b.risc, b.time_cycles);
  });
  return records;
}

void Device::clear_profiler_records() {
  state_->require_open("Device::clear_profiler_records");
  state_->chip->profiler().clear();
}

} // namespace tessel
