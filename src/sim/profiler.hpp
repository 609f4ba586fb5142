// The device profiler's simulator side: each RISC's marker buffer, filled by
// its kernel's profiler_mark calls (kernel/include/tessel/profiler.h) during
// a run and drained, when the run ends, into the chip's list of records.
//
// The clock. Unless the chip is timed (timing.hpp: then a cycle is an
// estimated one), a "cycle" is one step of a RISC's
// simulated clock (tessel_kernel_ctx::clock), which advances by one for every
// kernel API call that reaches the simulator (CB, NoC, semaphore and compute
// calls; not the inline fast paths) and for every profiler marker. When a
// RISC's call wakes another RISC, the woken RISC's clock moves up to the
// waker's, so a wait ends no earlier than what ended it (a Lamport clock);
// each run starts every RISC it launches at the latest time of the runs
// before it. Times are therefore identical run to run under the
// deterministic policy, ordered by cause across RISCs, and count work
// (simulated calls), not host time.
//
// Invariants of a RISC's buffer, per run:
//  - At most kProfilerMarkersPerRisc markers from the kernel (Metalium's 250
//    optional markers, 125 zones); the simulator's own markers (the
//    <RISC>-FW and <RISC>-KERNEL zones around the kernel, and the ZONE_TOTAL
//    of each accumulator) have reserved slots on top.
//  - count + open_zones <= kProfilerMarkersPerRisc: a ZONE_START is recorded
//    only if its ZONE_END also fits beside the ends of the zones already
//    open, so every recorded start has its end. Markers that do not fit are
//    dropped and counted, as Metalium drops them; the run's end warns once
//    per kernel and RISC (base/warning.hpp) with the number dropped.
//  - Buffers are allocated with the fiber while the profiler is on: nothing
//    is allocated per marker.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessel/kernel_abi.h"

namespace tessel::sim {

struct Fiber;

inline constexpr uint32_t kProfilerMarkersPerRisc = 250;
inline constexpr uint32_t kProfilerAccumulators = 2; // DeviceZoneScopedSumN1 and N2

// One marker as a kernel (or the simulator) recorded it.
struct ProfilerMarker {
  const tessel_profiler_site* site;
  uint64_t time;
  uint64_t data;
  uint32_t mark; // enum tessel_profiler_mark, ZONE_START..TS_EVENT
  uint32_t run_host_id;
};

struct ProfilerBuffer {
  std::unique_ptr<ProfilerMarker[]> markers; // kCapacity entries; null while the profiler is off
  uint32_t count = 0;                        // markers of this run, both kinds
  uint32_t kernel_count = 0;                 // of them, the kernel's own (the limited ones)
  uint32_t open_zones = 0;                   // recorded starts whose end is still to come
  uint32_t dropped = 0;                      // the kernel's markers that did not fit
  uint32_t run_host_id = 0;
  uint64_t sum_cycles[kProfilerAccumulators] = {};
  uint64_t sum_start[kProfilerAccumulators] = {};
  const tessel_profiler_site* sum_site[kProfilerAccumulators] = {};

  // The kernel's markers, two FW and two KERNEL markers, and the accumulators.
  static constexpr uint32_t kCapacity = kProfilerMarkersPerRisc + 4 + kProfilerAccumulators;
};

// A marker as the host reads it, its site's text interned by the Profiler.
struct ProfilerRecord {
  uint32_t core_index = 0;
  uint32_t risc = 0; // enum tessel_risc
  uint32_t mark = 0; // enum tessel_profiler_mark, ZONE_START..TS_EVENT
  uint32_t timer_id = 0;
  uint64_t time = 0;
  uint64_t data = 0;
  uint32_t run_host_id = 0;
  uint32_t site = 0; // Profiler::site(index)
};

struct ProfilerSiteText {
  std::string name;
  std::string file;
  uint32_t line = 0;
};

// The chip's profiler: on or off, and the records of its runs since the last
// clear(). Driven by the chip's host thread.
class Profiler {
public:
  bool enabled() const { return enabled_; }
  void set_enabled(bool on) { enabled_ = on; }

  // Around a fiber's kernel, on the fiber: resets its buffer and records the
  // FW and KERNEL zone starts; then the accumulators and the zone ends.
  void begin_kernel(Fiber& f, uint32_t run_host_id);
  void end_kernel(Fiber& f);
  // After a run that completed: moves the fibers' markers into records()
  // and warns of dropped markers. Returns, when TESSEL_STRICT makes that
  // warning an error, the error's message for the caller to throw once the
  // run's state is settled; else "".
  std::string drain(std::span<Fiber* const> fibers);

  std::span<const ProfilerRecord> records() const { return records_; }
  const ProfilerSiteText& site(uint32_t index) const { return sites_[index]; }
  void clear() { records_.clear(); }

private:
  uint32_t intern(const tessel_profiler_site& site);

  bool enabled_ = false;
  std::vector<ProfilerRecord> records_;
  std::vector<ProfilerSiteText> sites_;
  std::unordered_map<std::string, uint32_t> site_index_; // "name\x1f file\x1f line" -> index
};

// The kernel ABI's profiler_mark (see kernel_abi.h).
uint32_t api_profiler_mark(tessel_kernel_ctx* k, uint32_t mark, const tessel_profiler_site* site, uint64_t data);

} // namespace tessel::sim
