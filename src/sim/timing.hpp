// The cycle estimate (docs/timing.md): while a chip is timed, every RISC's
// clock (tessel_kernel_ctx::clock) counts estimated cycles at the arch's
// clock instead of one step per call, advanced by a cost model.
//
// The model
//  - Every kernel API call costs call_cycles; compute calls add their tiles'
//    documented latencies (per op and math fidelity; pack and unpack by the
//    tile's bytes, so by data format).
//  - A NoC transfer costs its issue; its data lands at
//      max(start + bytes / bandwidth, the endpoints' calendars) + hop latency
//    (DRAM adds its access latency). A barrier moves the clock up to the
//    latest landing of the RISC's transfers of that kind.
//  - A wait ends no earlier than what it waited for: CB pages carry the
//    time they were pushed (front) and popped (back), per page slot;
//    semaphores the time they were last written. A wait that does not block
//    still moves the clock up to that time; a blocking one also takes the
//    waker's clock (Chip::make_ready).
//
// Contention: each DRAM bank and each core's port on each NoC has a
// calendar of kBucketCycles-wide buckets, each holding at most
// bandwidth x width bytes. A transfer fills buckets from its own start time
// on, spilling into later ones when full, so a RISC whose clock is behind
// another's in host order is charged only for traffic at its own simulated
// time (order-tolerant). A bucket word packs (bucket number, bytes used) and
// is updated with compare-and-swap: a parallel run's threads share the
// calendars without locks; under parallel the order of the updates (and so
// the estimate) may vary slightly, under deterministic it is fixed. (Runs
// on one host thread store without the compare-and-swap.)
//
// Invariants
//  - A RISC's RiscTiming, and its core's CB stamps, are touched only by the
//    thread running that core; semaphore stamps and calendars are atomics.
//  - Stamps from earlier runs are never later than the run's start (every
//    run starts at the latest clock of the runs before), so they cost
//    nothing.
//  - Nothing is allocated per call: the calendars and stamp tables are
//    allocated when timing is turned on; a core's CB stamp slots grow only
//    when a CB has more pages than any before on that core.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/arch.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

class Chip;
struct Fiber;

// Every constant of the model; docs/timing.md lists each with its source.
struct TimingCosts {
  double clock_mhz = 1000;
  // Firmware and API overhead (assumed).
  uint32_t call_cycles = 8;       // any kernel API call that reaches the simulator
  uint32_t noc_issue_cycles = 16; // programming a NoC command
  // NoC (Tenstorrent data-movement docs: 32 B/cycle Wormhole, 64 B/cycle Blackhole).
  double noc_bytes_per_cycle = 32;
  uint32_t hop_cycles = 4;        // per router hop (assumed)
  uint32_t noc_fixed_cycles = 32; // request/response overhead per transfer (assumed)
  // DRAM (per bank: the card's bandwidth over its banks).
  double dram_bank_bytes_per_cycle = 24;
  uint32_t dram_latency_cycles = 200; // access latency (assumed)
  // Compute, per 32x32 tile (matrix-engine tech report; others assumed).
  uint32_t matmul_tile_cycles = 16; // 32x32x32 at LoFi; x fidelity phases
  uint32_t eltwise_tile_cycles = 8; // add/sub; mul x fidelity phases
  uint32_t reduce_tile_cycles = 4;  // x fidelity phases for sum/avg
  uint32_t transpose_tile_cycles = 16;
  uint32_t sfpu_simple_tile_cycles = 64;
  uint32_t sfpu_complex_tile_cycles = 512; // exp, log, recip, sqrt, gelu, ...
  uint32_t unpack_bytes_per_cycle = 128;   // copy_tile: the tile's bytes in
  uint32_t pack_bytes_per_cycle = 128;     // pack_tile: the tile's bytes out
  // Program dispatch (fitted to tt-metal's null-program figures, perf.md §1.4):
  // dispatch_cycles + dispatch_per_core_millicycles * (cores - 1) / 1000.
  uint32_t dispatch_cycles = 1000;
  uint32_t dispatch_per_core_millicycles = 0;
};

// The table for an architecture preset's name (its clock from `arch`).
TimingCosts timing_costs(const ArchSpec& arch);

// One RISC's share of a run.
struct RiscTimingReport {
  uint32_t core_x = 0, core_y = 0; // logical
  uint32_t risc = 0;               // enum tessel_risc
  uint64_t busy_cycles = 0, wait_cycles = 0;
};

struct RunTimingReport {
  double clock_mhz = 0;
  uint64_t kernel_cycles = 0;          // the latest RISC clock of the run minus its start
  uint64_t dispatch_cycles = 0;        // the launch's estimated dispatch overhead
  uint64_t device_cycles = 0;          // kernel + dispatch
  uint64_t runs = 0;                   // 0: nothing ran yet
  std::vector<RiscTimingReport> riscs; // every RISC of the run, by core then RISC
};

// Per-RISC state (index core * TESSEL_RISC_COUNT + risc).
struct RiscTiming {
  uint64_t read_done = 0, write_done = 0; // landing of the latest read / write (or atomic)
  uint64_t wait = 0;                      // cycles the clock was moved by waits this run
  uint64_t run_start = 0;
};

// Per-core stamps.
struct CoreTiming {
  std::atomic<uint64_t> semaphore[TESSEL_MAX_SEMAPHORES] = {};
  std::vector<uint64_t> pushed[TESSEL_MAX_CBS]; // per page slot: when it was pushed
  std::vector<uint64_t> popped[TESSEL_MAX_CBS]; // per page slot: when it was popped
};

class Timing {
public:
  static constexpr uint64_t kBucketCycles = 1024;
  static constexpr uint32_t kBuckets = 1024; // per calendar, a ring: 2^20 cycles

  Timing(Chip& chip, TimingCosts costs);
  Timing(const Timing&) = delete;
  Timing& operator=(const Timing&) = delete;

  const TimingCosts& costs() const { return costs_; }
  RiscTiming& risc(uint32_t core_index, uint32_t risc) { return riscs_[core_index * TESSEL_RISC_COUNT + risc]; }
  CoreTiming& core(uint32_t core_index) { return *cores_[core_index]; }

  // NoC hops from (x0, y0) to (x1, y1) on NoC `noc` (0 runs +x/+y, 1 -x/-y,
  // both wrap around: the NoCs are tori).
  uint32_t hops(uint32_t noc, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) const;
  // Books `bytes` on a calendar from cycle `start`; returns when the last
  // byte has passed.
  uint64_t book_core_port(uint32_t core_index, uint32_t noc, uint64_t start, uint64_t bytes);
  uint64_t book_dram_bank(uint32_t bank, uint64_t start, uint64_t bytes);
  // The semaphore stamp: max(stamp, t).
  static void stamp_max(std::atomic<uint64_t>& stamp, uint64_t t);

  // Around Chip::run: start every RISC of the run at its clock; at the end
  // build the report.
  void begin_run(const std::vector<Fiber*>& fibers);
  void end_run(const std::vector<Fiber*>& fibers);
  const RunTimingReport& last_run() const { return last_; }

private:
  uint64_t book(size_t endpoint, double bytes_per_cycle, uint64_t start, uint64_t bytes);

  Chip& chip_;
  TimingCosts costs_;
  uint32_t noc_w_ = 1, noc_h_ = 1; // the NoC grid's size
  bool concurrent_ = true;         // this run's RISCs may run on several host threads (set by begin_run)
  std::vector<RiscTiming> riscs_;
  std::vector<std::unique_ptr<CoreTiming>> cores_;
  // Every endpoint's calendar (cores x 2 NoCs, then DRAM banks), bucket-major:
  // the words of one bucket of every endpoint are adjacent, so RISCs at
  // about the same simulated time share a few cache lines.
  size_t endpoints_ = 0;
  std::unique_ptr<std::atomic<uint64_t>[]> calendars_;
  RunTimingReport last_;
};

// Every timed run of the process, for tools that cannot reach the device
// that ran (tessel run --timing): the latest run's report and the sum.
struct ProcessTiming {
  RunTimingReport last;
  uint64_t runs = 0;
  uint64_t device_cycles = 0; // summed over the runs (of chips at last.clock_mhz)
};
ProcessTiming process_timing();

// Turns the estimate on (with the arch's cost table) or off for `chip`, and
// points every RISC at the matching kernel API table. Call while no run is
// active, before set_chip_trace (the trace's time base follows it).
void set_chip_timing(Chip& chip, bool on);

// The kernel API's timed function table (timing_api.cpp): each call charges
// its cost and runs the plain one without its tick (kernel_api.cpp's
// unticked_api_table).
const tessel_sim_api* timed_api_table();
const tessel_sim_api* unticked_api_table();
// The table the traced calls run (trace_api.cpp): timed or plain.
const tessel_sim_api& untraced_api(const Chip& chip);

} // namespace tessel::sim
