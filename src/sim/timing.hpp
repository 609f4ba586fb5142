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
// bandwidth x width bytes (counted in units of a fraction of a cycle). A
// transfer fills buckets from its own start time on, spilling into later
// ones when full, so a RISC whose clock is behind another's in host order
// is charged only for traffic at its own simulated time (order-tolerant).
// A bucket word packs (bucket number, units used) and is updated with
// compare-and-swap: a parallel run's threads share the calendars without
// locks; under parallel the order of the updates (and so the estimate) may
// vary slightly, under deterministic it is fixed. (Runs on one host thread
// store without the compare-and-swap.)
//
// Invariants
//  - A RISC's RiscTiming, and its core's CB stamps, are touched only by the
//    thread running that core; semaphore stamps and calendars are atomics.
//  - Stamps from earlier runs are never later than the run's start (every
//    run starts at the first bucket boundary at or after the latest clock
//    of the runs before, Timing::run_start), so they cost nothing, and no
//    earlier booking shares a bucket with the run's: an estimate does not
//    depend on what ran before.
//  - Nothing is allocated per call: the calendars and stamp tables are
//    allocated when timing is turned on; a core's CB stamp rings grow only
//    when a CB has more pages than any before on that core.
#pragma once

#include <algorithm>
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
  bool stopped = false;                // the run stopped before its kernels ended (Chip::abort_run)
  std::vector<RiscTimingReport> riscs; // every RISC of the run, by core then RISC
};

// Per-RISC state.
struct RiscTiming {
  uint64_t read_done = 0, write_done = 0; // landing of the latest read / write (or atomic)
  uint64_t wait = 0;                      // cycles the clock was moved by waits this run
  uint64_t run_start = 0;
};

class Timing;

// Per-core state: the core's RISCs and its stamps (Core::timing points here
// while the chip is timed, so a call reaches its state in one load).
struct CoreTiming {
  Timing* owner = nullptr;
  RiscTiming risc[TESSEL_RISC_COUNT] = {};
  std::atomic<uint64_t> semaphore[TESSEL_MAX_SEMAPHORES] = {};
  // Per CB: when each page was pushed and popped (timing_api.cpp numbers
  // the pages), the two times of a page side by side.
  struct CbStamps {
    std::vector<uint64_t> times; // [2 * (page & (pages - 1))] pushed, [+ 1] popped
    uint32_t pages = 0;          // the ring's size: a power of 2, or 0 before first use
  };
  CbStamps cb[TESSEL_MAX_CBS];
};

class Timing {
public:
  static constexpr uint32_t kUsedBits = 28; // a bucket word: bucket number << kUsedBits | units used
  static constexpr uint64_t kUsedMask = (uint64_t(1) << kUsedBits) - 1;
  static constexpr uint64_t kBucketCycles = 4096;
  static constexpr uint32_t kBuckets = 1024; // per calendar, a ring: 2^22 cycles

  Timing(Chip& chip, TimingCosts costs);
  Timing(const Timing&) = delete;
  Timing& operator=(const Timing&) = delete;

  const TimingCosts& costs() const { return costs_; }
  RiscTiming& risc(uint32_t core_index, uint32_t risc) { return cores_[core_index].risc[risc]; }
  CoreTiming& core(uint32_t core_index) { return cores_[core_index]; }

  // NoC hops from (x0, y0) to (x1, y1) on NoC `noc` (0 runs +x/+y, 1 -x/-y,
  // both wrap around: the NoCs are tori), and back again on the same NoC.
  struct Hops {
    uint32_t there, back;
  };
  Hops hops(uint32_t noc, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) const {
    if (__builtin_expect(std::max(x0, x1) >= noc_w_ || std::max(y0, y1) >= noc_h_, 0))
      x0 %= noc_w_, x1 %= noc_w_, y0 %= noc_h_, y1 %= noc_h_;
    const uint32_t dx = x1 >= x0 ? x1 - x0 : x1 + noc_w_ - x0, dy = y1 >= y0 ? y1 - y0 : y1 + noc_h_ - y0;
    const uint32_t up = dx + dy;                                           // going +x/+y
    const uint32_t down = (dx ? noc_w_ - dx : 0) + (dy ? noc_h_ - dy : 0); // going -x/-y
    return (noc & 1) == 0 ? Hops{up, down} : Hops{down, up};
  }
  // Books `bytes` on a calendar from cycle `start`; returns when the last
  // byte has passed.
  uint64_t book_core_port(uint32_t core_index, uint32_t noc, uint64_t start, uint64_t bytes) {
    return book(size_t(core_index) * 2 + (noc & 1), noc_rate_, start, bytes);
  }
  uint64_t book_dram_bank(uint32_t bank, uint64_t start, uint64_t bytes) {
    return book(dram_endpoint0_ + bank, dram_rate_, start, bytes);
  }
  // Both ends of a transfer between a core and a DRAM bank: when both have passed the bytes.
  uint64_t book_core_port_and_dram_bank(uint32_t core_index, uint32_t noc, uint32_t bank, uint64_t start,
                                        uint64_t bytes) {
    const uint64_t b = start / kBucketCycles;
    std::atomic<uint64_t>* row = row_of(b);
    const size_t port = size_t(core_index) * 2 + (noc & 1), dram = dram_endpoint0_ + bank;
    const uint64_t passed = book_in(row[port], port, noc_rate_, b, start, bytes);
    return std::max(passed, book_in(row[dram], dram, dram_rate_, b, start, bytes));
  }
  // Where a run after `epoch` (the latest clock of the runs before) starts:
  // the next bucket's first cycle, so that no booking of an earlier run
  // shares a bucket with it and a program's estimate is the same in every
  // run, not only on a fresh device.
  static uint64_t run_start(uint64_t epoch) { return (epoch + kBucketCycles - 1) / kBucketCycles * kBucketCycles; }
  // The semaphore stamp: max(stamp, t).
  static void stamp_max(std::atomic<uint64_t>& stamp, uint64_t t);

  // Around Chip::run: start every RISC of the run at its clock; at the end
  // build the report.
  void begin_run(const std::vector<Fiber*>& fibers);
  // `stopped`: the run ended early (its report is the estimate up to the stop).
  void end_run(const std::vector<Fiber*>& fibers, bool stopped = false);
  const RunTimingReport& last_run() const { return last_; }

private:
  // Division by a constant: a multiply for 32-bit dividends (exact for
  // every 32-bit n and d), a division beyond.
  struct Divisor {
    uint64_t d = 1, m = 0; // m = floor((2^64 - 1) / d) + 1; 0 when d is 1
    explicit Divisor(uint64_t divisor) : d(divisor), m(divisor > 1 ? UINT64_MAX / divisor + 1 : 0) {}
    uint64_t divide(uint64_t n) const {
      if (m == 0) return n;
      if (n >> 32) return n / d;
      return uint64_t((static_cast<unsigned __int128>(m) * n) >> 64);
    }
  };
  // An endpoint kind's bandwidth as a fraction num/den bytes per cycle (the
  // smallest den <= kBucketCycles that holds it exactly). A calendar counts
  // in units of 1/num cycle, in which a byte is den units: booking is then
  // integer arithmetic with one division, a shift when num is a power of 2.
  struct Rate {
    uint64_t num = 1, den = 1;
    uint64_t capacity = 1; // a bucket's units: kBucketCycles * num
    uint32_t shift = 0;    // log2(num), when num is a power of 2
    bool pow2 = false;
    Divisor by_num{1};
    explicit Rate(double bytes_per_cycle);
    // The units of `bytes`, and of the cycles before `offset` in a bucket.
    uint64_t units(uint64_t bytes) const { return bytes * den; }
    uint64_t units_before(uint64_t offset) const { return offset * num; }
    // Cycles (rounded up) of `units`.
    uint64_t cycles(uint64_t units) const { return pow2 ? (units + num - 1) >> shift : by_num.divide(units + num - 1); }
  };
  // Books `bytes` on `endpoint`'s calendar from `start`. The common case
  // inline: the bucket the transfer starts in keeps room after it, and is
  // this lap's or an earlier lap's no full run can hold (so no run
  // changes); anything else walks (book_walk). The bytes have passed when
  // the bucket's units up to the transfer's last have (no earlier than
  // start + the transfer's own cycles, which that includes).
  uint64_t book(size_t endpoint, const Rate& rate, uint64_t start, uint64_t bytes) {
    const uint64_t b = start / kBucketCycles;
    return book_in(row_of(b)[endpoint], endpoint, rate, b, start, bytes);
  }
  // book() in bucket b's word of the endpoint's calendar.
  __attribute__((always_inline)) uint64_t book_in(std::atomic<uint64_t>& word, size_t endpoint, const Rate& rate,
                                                  uint64_t b, uint64_t start, uint64_t bytes) {
    uint64_t old = word.load(std::memory_order_relaxed);
    const uint64_t tag = old >> kUsedBits;
    if (tag == b || (tag < b && no_run_ends_here(endpoint, b))) {
      const uint64_t used = tag == b ? old & kUsedMask : 0, units = rate.units(bytes);
      const uint64_t filled = std::max(used, rate.units_before(start % kBucketCycles)) + units;
      if (filled < rate.capacity) {
        const uint64_t booked = (b << kUsedBits) | (used + units);
        if (!concurrent_)
          word.store(booked, std::memory_order_relaxed);
        else if (!word.compare_exchange_strong(old, booked, std::memory_order_relaxed))
          return book_walk(endpoint, rate, start, bytes);
        return b * kBucketCycles + rate.cycles(filled);
      }
    }
    return book_walk(endpoint, rate, start, bytes);
  }
  uint64_t book_walk(size_t endpoint, const Rate& rate, uint64_t start, uint64_t bytes);
  // Bucket b's words of every endpoint's calendar, and of `endpoint`'s.
  std::atomic<uint64_t>* row_of(uint64_t b) { return &calendars_[(b % kBuckets) * endpoints_]; }
  std::atomic<uint64_t>& calendar_word(size_t endpoint, uint64_t b) { return row_of(b)[endpoint]; }
  // Bucket b of `endpoint` is full: extend that endpoint's full run with it
  // when adjacent, or start a new one past it.
  void note_full(size_t endpoint, uint64_t b);
  void drop_run(size_t endpoint);
  static uint64_t run_first(uint64_t run) { return run >> kRunBits; }
  // Whether taking bucket b's word over from an earlier lap leaves the
  // endpoint's full run whole (no run, or b is less than a ring past its start).
  bool no_run_ends_here(size_t endpoint, uint64_t b) const {
    const uint64_t r = full_runs_[endpoint].load(std::memory_order_relaxed);
    return r == 0 || b < run_first(r) + kBuckets;
  }
  static uint64_t run_end(uint64_t run) { return run_first(run) + (run & kRunLengthMask); }

  Chip& chip_;
  TimingCosts costs_;
  uint32_t noc_w_ = 1, noc_h_ = 1; // the NoC grid's size
  bool concurrent_ = true;         // this run's RISCs may run on several host threads (set by begin_run)
  Rate noc_rate_, dram_rate_;
  size_t dram_endpoint0_ = 0;           // the first DRAM bank's calendar (after the cores' ports)
  std::unique_ptr<CoreTiming[]> cores_; // one per core of the chip, adjacent
  // Every endpoint's calendar (cores x 2 NoCs, then DRAM banks), bucket-major:
  // the words of one bucket of every endpoint are adjacent, so RISCs at
  // about the same simulated time share a few cache lines.
  size_t endpoints_ = 0;
  std::unique_ptr<std::atomic<uint64_t>[]> calendars_;
  // Per endpoint, a run of consecutive full buckets (first << kRunBits |
  // length, length < kBuckets), which a booking starting inside it skips:
  // under a saturated endpoint a transfer whose clock lags the traffic would
  // otherwise walk every full bucket between. It only ever names full
  // buckets (a bucket empties only when the ring reuses its word, and that
  // drops the run), so it changes no estimate.
  static constexpr uint32_t kRunBits = 20;
  static constexpr uint64_t kRunLengthMask = (uint64_t(1) << kRunBits) - 1;
  std::unique_ptr<std::atomic<uint64_t>[]> full_runs_;
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

// A RISC's clock moved up from `before` by a wait outside the kernel API's
// tables (the card's take): counted as waiting while the chip is timed.
void count_card_wait(tessel_kernel_ctx& k, uint64_t before);

// The kernel API's timed function table (timing_api.cpp): each call charges
// its cost and runs the plain one without its tick (kernel_api.cpp's
// unticked_api_table).
const tessel_sim_api* timed_api_table();
const tessel_sim_api* unticked_api_table();
// The table the traced calls run (trace_api.cpp): timed or plain.
const tessel_sim_api& untraced_api(const Chip& chip);

} // namespace tessel::sim
