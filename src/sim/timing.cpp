// The timing model's state: NoC distances, the contention calendars, and the
// per-run report (the model and its invariants: timing.hpp).
#include "sim/timing.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>

#include "sim/chip.hpp"
#include "sim/fiber_sanitizers.hpp"
#include "sim/trace.hpp"

namespace tessel::sim {

namespace {
std::mutex g_process_mutex; // once per run, never per call
ProcessTiming g_process;
} // namespace

Timing::Rate::Rate(double bytes_per_cycle) {
  const double rate = std::max(bytes_per_cycle, 1.0 / double(kBucketCycles));
  // The smallest den that holds the rate exactly, while a bucket's units fit its word.
  const uint64_t max_num = (kUsedMask >> 1) / kBucketCycles;
  den = 0;
  for (uint64_t d = 1; d <= kBucketCycles && rate * double(d) <= double(max_num); ++d)
    if (std::abs(rate * double(d) - std::round(rate * double(d))) < 1e-9 * rate * double(d)) {
      den = d;
      break;
    }
  if (den == 0) // no exact fraction fits: the nearest with a den that does
    den = std::clamp<uint64_t>(uint64_t(double(max_num) / rate), 1, kBucketCycles);
  num = std::clamp<uint64_t>(uint64_t(std::llround(rate * double(den))), 1, max_num);
  capacity = kBucketCycles * num;
  pow2 = std::has_single_bit(num);
  shift = pow2 ? uint32_t(std::countr_zero(num)) : 0;
  by_num = Divisor(num);
}

Timing::Timing(Chip& chip, TimingCosts costs)
    : chip_(chip), costs_(costs), noc_rate_(costs.noc_bytes_per_cycle), dram_rate_(costs.dram_bank_bytes_per_cycle) {
  const ArchSpec& a = chip.arch();
  noc_w_ = std::max(a.grid_x + a.worker_noc_x0, 1u);
  noc_h_ = std::max(a.grid_y + a.worker_noc_y0, a.dram_banks);
  cores_ = std::make_unique<CoreTiming[]>(chip.core_count());
  for (uint32_t c = 0; c < chip.core_count(); ++c)
    cores_[c].owner = this;
  last_.clock_mhz = costs_.clock_mhz; // a report before any run says which clock it counts
  dram_endpoint0_ = size_t(chip.core_count()) * 2;
  endpoints_ = dram_endpoint0_ + a.dram_banks;
  calendars_ = std::make_unique<std::atomic<uint64_t>[]>(endpoints_ * kBuckets);
  for (size_t i = 0; i < endpoints_ * kBuckets; ++i)
    calendars_[i].store(0, std::memory_order_relaxed);
  full_runs_ = std::make_unique<std::atomic<uint64_t>[]>(endpoints_);
  for (size_t i = 0; i < endpoints_; ++i)
    full_runs_[i].store(0, std::memory_order_relaxed);
}

void Timing::drop_run(size_t endpoint) { full_runs_[endpoint].store(0, std::memory_order_relaxed); }

void Timing::note_full(size_t endpoint, uint64_t b) {
  std::atomic<uint64_t>& word = full_runs_[endpoint];
  uint64_t old = word.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t first = run_first(old), length = old & kRunLengthMask;
    uint64_t next;
    if (length != 0 && b == first + length && length + 1 < kBuckets)
      next = old + 1; // extends the run (a run stays shorter than the ring)
    else if (length != 0 && b + 1 == first && length + 1 < kBuckets)
      next = (b << kRunBits) | (length + 1);
    else if (length == 0 || b > first + length)
      next = (b << kRunBits) | 1; // a later run replaces the earlier one
    else
      return; // inside the run, or an older bucket: keep the run
    if (!concurrent_) {
      word.store(next, std::memory_order_relaxed);
      return;
    }
    if (word.compare_exchange_weak(old, next, std::memory_order_relaxed)) return;
  }
}

uint64_t Timing::book_walk(size_t endpoint, const Rate& rate, uint64_t start, uint64_t bytes) {
  uint64_t left = rate.units(bytes);
  uint64_t end = start + rate.cycles(left);
  uint64_t b = start / kBucketCycles;
  std::atomic<uint64_t>& run = full_runs_[endpoint];
  if (const uint64_t r = run.load(std::memory_order_relaxed); b >= run_first(r) && b < run_end(r))
    b = run_end(r); // the full buckets between are the walk's to skip
  for (; left != 0; ++b) {
    // In the bucket the transfer starts in, the units before its start are not its to use.
    const uint64_t before = b == start / kBucketCycles ? rate.units_before(start % kBucketCycles) : 0;
    std::atomic<uint64_t>& word = calendar_word(endpoint, b);
    uint64_t old = word.load(std::memory_order_relaxed);
    uint64_t used = 0, take = 0;
    for (;;) {
      const uint64_t tag = old >> kUsedBits;
      used = tag == b ? old & kUsedMask : 0;
      const uint64_t filled = std::max(used, before);
      take = filled < rate.capacity ? std::min(rate.capacity - filled, left) : 0;
      if (take == 0 || tag > b) break; // full; or the ring moved on past this bucket: no record to add to
      // Taking a word over from a bucket a lap earlier empties that bucket: a
      // full run it may be in no longer holds.
      if (tag != b && !no_run_ends_here(endpoint, b)) drop_run(endpoint);
      const uint64_t booked = (b << kUsedBits) | (used + take);
      if (!concurrent_) { // one host thread runs every RISC: no other writer
        word.store(booked, std::memory_order_relaxed);
        break;
      }
      if (word.compare_exchange_weak(old, booked, std::memory_order_relaxed)) break;
    }
    if (take == 0) { // full
      note_full(endpoint, b);
      continue;
    }
    if (used + take == rate.capacity && (old >> kUsedBits) <= b) note_full(endpoint, b);
    left -= take;
    end = std::max(end, b * kBucketCycles + rate.cycles(std::max(used, before) + take));
  }
  return end;
}

void Timing::stamp_max(std::atomic<uint64_t>& stamp, uint64_t t) {
  uint64_t old = stamp.load(std::memory_order_relaxed);
  while (old < t && !stamp.compare_exchange_weak(old, t, std::memory_order_relaxed)) {
  }
}

void Timing::begin_run(const std::vector<Fiber*>& fibers) {
  concurrent_ = chip_.policy().kind == SchedulerPolicy::Kind::Parallel;
  for (const Fiber* f : fibers) {
    const uint64_t clock = f->core->ctx[f->risc].clock;
    RiscTiming& r = risc(f->core->index, f->risc);
    r = {clock, clock, 0, clock};
  }
}

void Timing::end_run(const std::vector<Fiber*>& fibers, bool stopped) {
  // The report is rebuilt in place (its rows keep their storage from run to
  // run); the fibers are in launch order, which is by core and RISC unless
  // the launch was built otherwise.
  auto by_core_then_risc = [](const Fiber* a, const Fiber* b) {
    return a->core->index != b->core->index ? a->core->index < b->core->index : a->risc < b->risc;
  };
  const bool in_order = std::is_sorted(fibers.begin(), fibers.end(), by_core_then_risc);
  std::vector<const Fiber*> sorted;
  if (!in_order) {
    sorted.assign(fibers.begin(), fibers.end());
    std::sort(sorted.begin(), sorted.end(), by_core_then_risc);
  }
  RunTimingReport& rep = last_;
  rep.clock_mhz = costs_.clock_mhz;
  ++rep.runs;
  rep.stopped = stopped;
  rep.riscs.clear();
  rep.riscs.reserve(fibers.size());
  uint64_t start = UINT64_MAX, end = 0;
  uint32_t cores = 0, last_core = UINT32_MAX;
  for (size_t i = 0; i < fibers.size(); ++i) {
    const Fiber* f = in_order ? fibers[i] : sorted[i];
    const RiscTiming& r = risc(f->core->index, f->risc);
    const uint64_t clock = f->core->ctx[f->risc].clock;
    const uint64_t total = clock - std::min(clock, r.run_start);
    const uint64_t wait = std::min(r.wait, total);
    rep.riscs.push_back({f->core->logical_x, f->core->logical_y, f->risc, total - wait, wait});
    start = std::min(start, r.run_start);
    end = std::max(end, clock);
    if (f->core->index != last_core) ++cores, last_core = f->core->index;
  }
  rep.kernel_cycles = fibers.empty() ? 0 : end - start;
  rep.dispatch_cycles =
      costs_.dispatch_cycles + uint64_t(costs_.dispatch_per_core_millicycles) * (cores ? cores - 1 : 0) / 1000;
  rep.device_cycles = rep.kernel_cycles + rep.dispatch_cycles;
  std::lock_guard lock(g_process_mutex);
  g_process.last = rep; // a copy into storage kept from the runs before
  ++g_process.runs;
  g_process.device_cycles += rep.device_cycles;
}

ProcessTiming process_timing() {
  std::lock_guard lock(g_process_mutex);
  return g_process;
}

void set_chip_timing(Chip& chip, bool on) {
  chip.timing_slot() = on ? std::make_unique<Timing>(chip, timing_costs(chip.arch())) : nullptr;
  for (uint32_t c = 0; c < chip.core_count(); ++c) {
    Core& core = chip.core(c);
    core.timing = on ? &chip.timing()->core(c) : nullptr;
    for (tessel_kernel_ctx& k : core.ctx)
      k.no_fast_paths = fiber_san::no_fast_paths(on);
  }
  chip.refresh_api_table();
}

const tessel_sim_api& untraced_api(const Chip& chip) {
  return chip.timing() ? *timed_api_table() : *kernel_api_table();
}

} // namespace tessel::sim
