// Metalium's profiler reads: tessel's profiler records written as
// profile_log_device.csv (tt_metal_profiler.hpp has the format).
#include "tt-metalium/tt_metal_profiler.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/profiler.hpp"
#include "tt-metalium/device.hpp"
#include "tt-metalium/distributed.hpp"

namespace tt::tt_metal {

namespace {

constexpr const char* kLogName = "profile_log_device.csv";
constexpr const char* kColumns =
    "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, trace id, "
    "trace id counter, zone name, type, source line, source file, meta data";

// Logs this process has written: its first read of a path replaces the file.
std::mutex g_logs_mutex;
std::set<std::string> g_logs_written;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The CSV's fields hold no commas (Metalium's rows are split on them).
std::string field(const std::string& text) {
  std::string s = text;
  for (char& c : s)
    if (c == ',' || c == '\n') c = ';';
  return s;
}

void append_rows(std::ofstream& out, IDevice& device, const std::vector<tessel::ProfilerRecord>& records) {
  for (const tessel::ProfilerRecord& r : records) {
    out << device.id() << ',' << r.worker_core.x << ',' << r.worker_core.y << ',' << tessel::profiler_risc_name(r.risc)
        << ',' << r.timer_id << ',' << r.time_cycles << ',' << r.data << ',' << r.run_host_id << ",,,"
        << field(r.zone_name) << ',' << tessel::profiler_marker_type_name(r.type) << ',' << r.source_line << ','
        << field(r.source_file) << ",\n";
  }
}

// Appends the devices' records since their last read to the log, then
// clears them; nothing when no device has its profiler on.
void read_results(const std::vector<IDevice*>& devices, const char* call) {
  std::vector<IDevice*> profiled;
  for (IDevice* d : devices) {
    if (d == nullptr) throw tessel::ValidationError(std::string(call) + ": the device is null");
    if (d->native().profiler_enabled()) profiled.push_back(d);
  }
  if (profiled.empty()) return;
  namespace fs = std::filesystem;
  const fs::path dir = detail::ProfilerLogDirectory();
  const std::string path = (dir / kLogName).string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::string m = std::string(call) + ": cannot create the profiler directory '" + dir.string() +
                    "': " + ec.message() + " (TESSEL_PROFILER_DIR sets it)";
    throw tessel::ValidationError(m);
  }
  std::lock_guard lock(g_logs_mutex);
  const bool fresh = g_logs_written.insert(path).second;
  std::ofstream out(path, fresh ? std::ios::trunc : std::ios::app);
  if (!out) {
    g_logs_written.erase(path);
    std::string m = std::string(call) + ": cannot write '" + path + "' (TESSEL_PROFILER_DIR sets the directory)";
    throw tessel::ValidationError(m);
  }
  if (fresh) {
    tessel::Device& first = profiled.front()->native();
    out << "ARCH: " << first.arch_name() << ", CHIP_FREQ[MHz]: " << first.clock_mhz()
        << ", Max Compute Cores: " << first.grid().x * first.grid().y << '\n'
        << kColumns << '\n';
  }
  for (IDevice* d : profiled) {
    append_rows(out, *d, d->native().profiler_records());
    d->native().clear_profiler_records();
  }
}

} // namespace

namespace detail {

std::string ProfilerLogDirectory() {
  if (const std::string dir = environment("TESSEL_PROFILER_DIR"); !dir.empty()) return dir;
  if (const std::string home = environment("TT_METAL_HOME"); !home.empty()) return home + "/generated/profiler/.logs";
  return "generated/profiler/.logs";
}

void InitDeviceProfiler(IDevice*) {}
void ProfilerSync(ProfilerSyncState) {}

void ReadDeviceProfilerResults(IDevice* device, ProfilerReadState, const std::optional<ProfilerOptionalMetadata>&) {
  read_results({device}, "ReadDeviceProfilerResults");
}

} // namespace detail

void ReadMeshDeviceProfilerResults(distributed::MeshDevice& mesh_device, ProfilerReadState,
                                   const std::optional<ProfilerOptionalMetadata>&) {
  read_results(mesh_device.get_devices(), "ReadMeshDeviceProfilerResults");
}

} // namespace tt::tt_metal
