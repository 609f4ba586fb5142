// TT-Metalium's device profiler reads over tessel's profiler records
// (tessel/profiler.hpp).
//
// A read appends the records of every run since the last read to
// profile_log_device.csv, in Metalium's format: a first line
// "ARCH: <arch>, CHIP_FREQ[MHz]: <MHz>, Max Compute Cores: <cores>", then the
// header "PCIe slot, core_x, core_y, RISC processor type, timer_id,
// time[cycles since reset], data, run host ID, trace id, trace id counter,
// zone name, type, source line, source file, meta data" and one row per
// marker (core_x/core_y are NoC coordinates; trace id, trace id counter and
// meta data are empty). A process's first read replaces an existing file.
//
// The directory is $TESSEL_PROFILER_DIR, else
// $TT_METAL_HOME/generated/profiler/.logs, else generated/profiler/.logs
// under the working directory; it is created when missing. With the
// device's profiler off (TESSEL_PROFILER / TT_METAL_DEVICE_PROFILER unset) a
// read does nothing, as Metalium's does outside profiler builds.
//
// Throws tessel::ValidationError when the file cannot be written.
#pragma once

#include <optional>
#include <string>

#include "tt-metalium/profiler_optional_metadata.hpp"
#include "tt-metalium/profiler_types.hpp"

namespace tt::tt_metal {

class IDevice;
namespace distributed {
class MeshDevice;
}

namespace detail {

// The directory reads write to (see the top of this file).
std::string ProfilerLogDirectory();

// Accepted for Metalium's spelling: tessel's profiler needs no setup or sync.
void InitDeviceProfiler(IDevice* device);
void ProfilerSync(ProfilerSyncState state);

void ReadDeviceProfilerResults(IDevice* device, ProfilerReadState state = ProfilerReadState::NORMAL,
                               const std::optional<ProfilerOptionalMetadata>& metadata = {});

} // namespace detail

// Every chip of the mesh, in order, into the one CSV (PCIe slot = chip id).
void ReadMeshDeviceProfilerResults(distributed::MeshDevice& mesh_device,
                                   ProfilerReadState state = ProfilerReadState::NORMAL,
                                   const std::optional<ProfilerOptionalMetadata>& metadata = {});

} // namespace tt::tt_metal
