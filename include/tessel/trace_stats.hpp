// Statistics of an event trace (docs/trace.md): what each RISC of each core
// spent its time on, what it moved and computed, and the longest waits, read
// back from the trace file a device wrote (DeviceConfig::trace_path,
// TESSEL_TRACE). `tessel stats` and `python -m tessel stats` print them.
//
// Times are in the trace's time base (the "logical" clock counts simulated
// API calls: steps, not host time). Totals come from the kernel spans' args,
// exact for every kernel span the file holds: a ring trace
// (trace_ring_events) holds at least each RISC's latest kernel. The longest
// waits can only be those the file holds.
//
// Values are plain data owned by the caller; reading is thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"

namespace tessel {

// One traced device (a process of the trace file).
struct TraceDeviceStats {
  uint32_t process_id = 0;
  std::string label;                   // "blackhole 12x10"
  std::string time_base;               // "logical" or "estimated"
  uint64_t begin = 0, end = 0;         // the first and last time any of its RISCs recorded
  uint64_t ring_events = 0;            // 0: streamed
  uint64_t stopped_waits_left_out = 0; // its waits runs stopped in beyond TraceStats::kMaxStoppedWaits
};

// Tile counts by what did them, as the compute spans count them.
struct TraceTiles {
  uint64_t matmul = 0, eltwise = 0, sfpu = 0, pack = 0, unpack = 0;
  uint64_t math() const { return matmul + eltwise + sfpu; }
};

// One RISC of one core, over every kernel it ran.
struct TraceRiscStats {
  uint32_t process_id = 0;
  CoreCoord core;      // logical
  std::string risc;    // "BRISC", "NCRISC", "COMPUTE"
  std::string kernels; // its kernels' names, ", "-separated
  uint64_t kernel_runs = 0;
  uint64_t kernel_time = 0; // in kernel spans
  uint64_t wait_time = 0;   // of that, blocked in a wait
  uint64_t busy_time() const { return kernel_time - wait_time; }
  uint64_t waits = 0;
  uint64_t noc_read_bytes = 0, noc_write_bytes = 0, noc_transfers = 0;
  uint64_t cb_pages_pushed = 0, cb_pages_popped = 0;
  uint64_t commands = 0;
  TraceTiles tiles;
};

// One wait span.
struct TraceWait {
  uint32_t process_id = 0;
  CoreCoord core;
  std::string risc;
  std::string name; // "wait CB0 front"
  std::string what; // as deadlock reports say it
  std::string file;
  uint32_t line = 0;
  uint64_t begin = 0, duration = 0;
  bool stopped = false; // the run stopped in it (a deadlock, an error, an interrupt): it never ended
};

struct TraceStats {
  std::string path;
  uint64_t events = 0;
  bool complete = false; // the file ends as a device that closed leaves it
  std::vector<TraceDeviceStats> devices;
  std::vector<TraceRiscStats> riscs;    // by device, core (row-major), RISC
  std::vector<TraceWait> longest_waits; // longest first
  // The waits runs stopped in, in the file's order: where each RISC was when
  // its run stopped. At most kMaxStoppedWaits; each device counts the rest
  // of its own (TraceDeviceStats::stopped_waits_left_out).
  static constexpr uint32_t kMaxStoppedWaits = 1024;
  std::vector<TraceWait> stopped_waits;
};

// Reads the trace at `path`, keeping the `longest_waits` longest waits.
// Throws ValidationError when the file cannot be read or is not a trace.
TraceStats read_trace_stats(const std::string& path, uint32_t longest_waits = 10);

// The statistics as `tessel stats` prints them: per device, a table with a
// row per RISC (busy, waiting, idle, NoC bytes, CB pages, tiles), the cores'
// totals, the longest waits with where they waited, then the waits its runs
// stopped in.
std::string format_trace_stats(const TraceStats& stats);

} // namespace tessel
