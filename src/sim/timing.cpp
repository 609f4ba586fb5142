// The timing model's state: NoC distances, the contention calendars, and the
// per-run report (the model and its invariants: timing.hpp).
#include "sim/timing.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "sim/chip.hpp"
#include "sim/trace.hpp"

namespace tessel::sim {

namespace {
constexpr uint32_t kUsedBits = 24; // a bucket word: bucket number << kUsedBits | bytes used
constexpr uint64_t kUsedMask = (uint64_t(1) << kUsedBits) - 1;

std::mutex g_process_mutex; // once per run, never per call
ProcessTiming g_process;
} // namespace

Timing::Timing(Chip& chip, TimingCosts costs) : chip_(chip), costs_(costs) {
  const ArchSpec& a = chip.arch();
  noc_w_ = std::max(a.grid_x + a.worker_noc_x0, 1u);
  noc_h_ = std::max(a.grid_y + a.worker_noc_y0, a.dram_banks);
  riscs_.resize(size_t(chip.core_count()) * TESSEL_RISC_COUNT);
  cores_.reserve(chip.core_count());
  for (uint32_t c = 0; c < chip.core_count(); ++c)
    cores_.push_back(std::make_unique<CoreTiming>());
  endpoints_ = size_t(chip.core_count()) * 2 + a.dram_banks;
  calendars_ = std::make_unique<std::atomic<uint64_t>[]>(endpoints_ * kBuckets);
  for (size_t i = 0; i < endpoints_ * kBuckets; ++i)
    calendars_[i].store(0, std::memory_order_relaxed);
}

namespace {
// The steps from a to b going up a ring of n (a, b < n; anything else wraps first).
inline uint32_t ring_steps(uint32_t a, uint32_t b, uint32_t n) {
  if (__builtin_expect((a | b) >= n, 0)) a %= n, b %= n;
  return b >= a ? b - a : b + n - a;
}
} // namespace

uint32_t Timing::hops(uint32_t noc, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) const {
  if ((noc & 1) == 0) return ring_steps(x0, x1, noc_w_) + ring_steps(y0, y1, noc_h_);
  return ring_steps(x1, x0, noc_w_) + ring_steps(y1, y0, noc_h_);
}

uint64_t Timing::book(size_t endpoint, double bytes_per_cycle, uint64_t start, uint64_t bytes) {
  const uint64_t capacity = std::max<uint64_t>(1, uint64_t(bytes_per_cycle * kBucketCycles));
  uint64_t end = start + uint64_t(std::ceil(double(bytes) / bytes_per_cycle));
  uint64_t left = bytes;
  for (uint64_t b = start / kBucketCycles; left != 0; ++b) {
    // In the bucket the transfer starts in, the bytes before its start are not its to use.
    const uint64_t before = b == start / kBucketCycles ? uint64_t((start % kBucketCycles) * bytes_per_cycle) : 0;
    std::atomic<uint64_t>& word = calendars_[(b % kBuckets) * endpoints_ + endpoint];
    uint64_t old = word.load(std::memory_order_relaxed);
    uint64_t used = 0, take = 0;
    for (;;) {
      const uint64_t tag = old >> kUsedBits;
      used = tag == b ? old & kUsedMask : 0;
      const uint64_t filled = std::max(used, before);
      take = filled < capacity ? std::min(capacity - filled, left) : 0;
      if (take == 0 || tag > b) break; // full; or the ring moved on past this bucket: no record to add to
      const uint64_t booked = (b << kUsedBits) | (used + take);
      if (!concurrent_) { // one host thread runs every RISC: no other writer
        word.store(booked, std::memory_order_relaxed);
        break;
      }
      if (word.compare_exchange_weak(old, booked, std::memory_order_relaxed)) break;
    }
    if (take == 0) continue;
    left -= take;
    const uint64_t filled = std::max(used, before) + take;
    end = std::max(end, b * kBucketCycles + uint64_t(std::ceil(double(filled) / bytes_per_cycle)));
  }
  return end;
}

uint64_t Timing::book_core_port(uint32_t core_index, uint32_t noc, uint64_t start, uint64_t bytes) {
  return book(size_t(core_index) * 2 + (noc & 1), costs_.noc_bytes_per_cycle, start, bytes);
}

uint64_t Timing::book_dram_bank(uint32_t bank, uint64_t start, uint64_t bytes) {
  const size_t index = size_t(chip_.core_count()) * 2 + bank;
  return book(index, costs_.dram_bank_bytes_per_cycle, start, bytes);
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

void Timing::end_run(const std::vector<Fiber*>& fibers) {
  RunTimingReport rep;
  rep.clock_mhz = costs_.clock_mhz;
  rep.runs = last_.runs + 1;
  uint64_t start = UINT64_MAX, end = 0;
  std::vector<const Fiber*> sorted(fibers.begin(), fibers.end());
  std::sort(sorted.begin(), sorted.end(), [](const Fiber* a, const Fiber* b) {
    return a->core->index != b->core->index ? a->core->index < b->core->index : a->risc < b->risc;
  });
  uint32_t cores = 0, last_core = UINT32_MAX;
  for (const Fiber* f : sorted) {
    const RiscTiming& r = risc(f->core->index, f->risc);
    const uint64_t clock = f->core->ctx[f->risc].clock;
    const uint64_t total = clock - std::min(clock, r.run_start);
    const uint64_t wait = std::min(r.wait, total);
    rep.riscs.push_back({f->core->logical_x, f->core->logical_y, f->risc, total - wait, wait});
    start = std::min(start, r.run_start);
    end = std::max(end, clock);
    if (f->core->index != last_core) ++cores, last_core = f->core->index;
  }
  rep.kernel_cycles = sorted.empty() ? 0 : end - start;
  rep.dispatch_cycles =
      costs_.dispatch_cycles + uint64_t(costs_.dispatch_per_core_millicycles) * (cores ? cores - 1 : 0) / 1000;
  rep.device_cycles = rep.kernel_cycles + rep.dispatch_cycles;
  last_ = std::move(rep);
  std::lock_guard lock(g_process_mutex);
  g_process.last = last_;
  ++g_process.runs;
  g_process.device_cycles += last_.device_cycles;
}

ProcessTiming process_timing() {
  std::lock_guard lock(g_process_mutex);
  return g_process;
}

void set_chip_timing(Chip& chip, bool on) {
  chip.timing_slot() = on ? std::make_unique<Timing>(chip, timing_costs(chip.arch())) : nullptr;
  for (uint32_t c = 0; c < chip.core_count(); ++c)
    for (tessel_kernel_ctx& k : chip.core(c).ctx)
      k.timing_enabled = on ? 1u : 0u;
  chip.refresh_api_table();
}

const tessel_sim_api& untraced_api(const Chip& chip) {
  return chip.timing() ? *timed_api_table() : *kernel_api_table();
}

} // namespace tessel::sim
