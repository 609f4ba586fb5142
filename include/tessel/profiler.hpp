// The device profiler's records: the zones, timestamped data and events that
// kernels recorded with TT-Metalium's profiler macros (DeviceZoneScopedN and
// friends, kernel/include/tessel/profiler.h) while the device's profiler was
// on (DeviceConfig::profiler, TESSEL_PROFILER=1 or TT_METAL_DEVICE_PROFILER=1).
//
// Times are the simulator's clock, not host time: per RISC, one cycle per
// kernel API call that reaches the simulator and per marker, carried from a
// RISC to the RISC it wakes (docs/guide.md, "Profiler"). They are identical
// from run to run under the deterministic policy.
//
// Records are values, owned by the caller (Device::profiler_records).
#pragma once

#include <cstdint>
#include <string>

#include "tessel/core_coord.hpp"

namespace tessel {

// The RISC a marker came from. A compute kernel runs on the three TRISCs:
// each of its markers is recorded for all three, at the same time.
enum class ProfilerRisc : uint8_t { Brisc, Ncrisc, Trisc0, Trisc1, Trisc2 };

// Metalium's marker types.
enum class ProfilerMarkerType : uint8_t {
  ZoneStart,
  ZoneEnd,
  ZoneTotal,       // an accumulator's total (DeviceZoneScopedSumN1/N2): data = cycles
  TimestampedData, // DeviceTimestampedData: data = the value
  Event,           // DeviceRecordEvent: timer_id = the event id
};

// As Metalium's profile_log_device.csv spells them: "BRISC", "NCRISC",
// "TRISC_0".."TRISC_2"; "ZONE_START", "ZONE_END", "ZONE_TOTAL", "TS_DATA",
// "TS_EVENT".
const char* profiler_risc_name(ProfilerRisc risc);
const char* profiler_marker_type_name(ProfilerMarkerType type);

struct ProfilerRecord {
  CoreCoord core;        // logical
  CoreCoord worker_core; // NoC coordinates (Metalium's CSV core_x, core_y)
  ProfilerRisc risc = ProfilerRisc::Brisc;
  ProfilerMarkerType type = ProfilerMarkerType::ZoneStart;
  uint32_t timer_id = 0;    // Metalium's 16-bit hash of the zone's name and site
  uint64_t time_cycles = 0; // the RISC's simulated clock
  uint64_t data = 0;
  uint32_t run_host_id = 0; // the device's run (program launch) number, from 1
  // The macro's name; "<RISC>-FW" and "<RISC>-KERNEL" for the zones the
  // simulator records around every kernel; "" for events.
  std::string zone_name;
  std::string source_file; // "tessel/firmware" for the simulator's own zones
  uint32_t source_line = 0;
};

} // namespace tessel
