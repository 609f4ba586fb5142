#include "sim/memory_check.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/kernel_api_support.hpp"
#include "sim/l1_layout.hpp"

namespace tessel::sim {

namespace {

constexpr uint64_t kSemaphoreEnd = kL1SemaphoreBase + TESSEL_MAX_SEMAPHORES * kL1SemaphoreStride;
static_assert(kSemaphoreEnd == kL1ZerosBase);

std::string span(uint64_t lo, uint64_t hi) { return hex(lo) + ".." + hex(hi); }

bool live_program(const Chip& chip, const Core& c) { return c.configuration == chip.configuration(); }

// One allocation of a memory, for lookups and reports.
struct Region {
  uint64_t lo = 0, hi = 0;
  MemoryCheckCache::Entry entry; // what a hit in it records
  std::string label;             // for reports
};

// Every live allocation of core c's L1, in address order.
std::vector<Region> l1_regions(const Chip& chip, const Core& c) {
  std::vector<Region> out;
  const auto region = [&](uint64_t lo, uint64_t hi, std::string label) {
    Region r;
    r.lo = lo, r.hi = hi;
    r.entry.core = c.index;
    r.entry.lo = lo, r.entry.hi = hi;
    r.label = std::move(label) + " at " + span(lo, hi);
    out.push_back(std::move(r));
    return &out.back();
  };
  region(0, kL1SemaphoreBase, "the reserved base (mailboxes, runtime arguments)");
  region(kL1ZerosBase, kL1ZerosEnd, "the zeros region (MEM_ZEROS_BASE)");
  region(kL1ZerosEnd, kL1UnreservedBase, "the reserved base");
  if (live_program(chip, c)) {
    for (uint32_t id = 0; id < TESSEL_MAX_SEMAPHORES; ++id)
      if (c.semaphore_mask >> id & 1)
        region(semaphore_offset(id), semaphore_offset(id) + kL1SemaphoreStride, "semaphore " + std::to_string(id));
    // CB indices sharing one region are one allocation.
    for (uint64_t mask = c.cb_configured_mask; mask; mask &= mask - 1) {
      const int cb = __builtin_ctzll(mask);
      const tessel_cb_iface& q = c.cbs[cb];
      if (!q.configured) continue;
      const uint64_t lo = q.fifo_addr & TESSEL_L1_SLOT_MASK, hi = lo + q.fifo_size;
      auto same = std::find_if(out.begin(), out.end(), [&](const Region& r) { return r.entry.cb >= 0 && r.lo == lo; });
      if (same != out.end()) {
        same->label.insert(same->label.find(" at "), ", " + std::to_string(cb));
        continue;
      }
      Region* r = region(lo, hi, "CB " + std::to_string(cb));
      r->entry.cb = cb;
    }
  }
  for (const BufferExtent* b : chip.memory_map().overlapping(MemoryKind::L1, c.index, 0, ~uint64_t(0))) {
    Region* r = region(b->base, b->end_in_bank(c.index), "the L1 buffer at " + hex(b->base));
    r->label = "the L1 buffer at " + hex(b->base) + " (its pages on this core: " + span(r->lo, r->hi) + ")";
    r->entry.buffer = b;
  }
  std::sort(out.begin(), out.end(), [](const Region& a, const Region& b) { return a.lo < b.lo; });
  for (Region& r : out)
    if (r.label.rfind("CB ", 0) == 0 && r.label.find(", ") != std::string::npos) r.label.replace(0, 3, "CBs ");
  return out;
}

std::vector<Region> dram_regions(const Chip& chip, uint32_t bank) {
  std::vector<Region> out;
  for (const BufferExtent* b : chip.memory_map().overlapping(MemoryKind::Dram, bank, 0, ~uint64_t(0))) {
    Region r;
    r.lo = b->base, r.hi = b->end_in_bank(bank);
    r.entry.buffer = b;
    r.label = "the DRAM buffer at " + hex(b->base) + " (its pages in this bank: " + span(r.lo, r.hi) + ")";
    out.push_back(std::move(r));
  }
  return out;
}

// What lies in [lo, hi) of a memory with these regions: each region touched,
// and each gap (named after a freed buffer it overlaps, when there is one).
std::string describe(const std::vector<Region>& regions, uint64_t lo, uint64_t hi, const MemoryMap& map,
                     MemoryKind kind, uint32_t bank) {
  std::vector<std::string> pieces;
  uint64_t at = lo;
  const auto gap = [&](uint64_t gap_lo, uint64_t gap_hi) {
    if (const BufferExtent* b = map.freed_overlapping(kind, bank, gap_lo, gap_hi))
      pieces.push_back("bytes of the freed " + std::string(kind == MemoryKind::Dram ? "DRAM" : "L1") +
                       " buffer that was at " + hex(b->base) + " (" + span(gap_lo, gap_hi) + ")");
    else
      pieces.push_back("no allocation at " + span(gap_lo, gap_hi));
  };
  for (const Region& r : regions) {
    if (r.hi <= at) continue;
    if (r.lo >= hi) break;
    if (r.lo > at) gap(at, r.lo);
    pieces.push_back(r.label);
    at = r.hi;
    if (at >= hi) break;
  }
  if (at < hi) gap(at, hi);
  std::string s;
  for (size_t i = 0; i < pieces.size(); ++i)
    s += (i == 0 ? "" : i + 1 == pieces.size() ? " and " : ", ") + pieces[i];
  return s;
}

std::string report(const std::string& memory, const std::vector<Region>& regions, uint64_t lo, uint64_t hi,
                   TransferEnd end, const char* call, const MemoryMap& map, MemoryKind kind, uint32_t bank) {
  const bool none =
      std::none_of(regions.begin(), regions.end(), [&](const Region& r) { return r.lo < hi && lo < r.hi; });
  return std::string(call) + ": the transfer's " + (end == TransferEnd::Source ? "source" : "destination") + ", " +
         std::to_string(hi - lo) + " bytes at " + span(lo, hi) + " of " + memory +
         (none ? ", is in no live allocation: it covers " : ", is not inside one live allocation: it covers ") +
         describe(regions, lo, hi, map, kind, bank) +
         " (every NoC transfer must stay inside one live buffer, CB or semaphore; TESSEL_CHECK_MEMORY=0 turns this "
         "check off)";
}

std::string core_name(const Core& c) {
  // A chip of a mesh names itself ("device 3: "): "the L1 of device 3 core (x,y)".
  const std::string& label = c.chip->label();
  const std::string device = label.empty() ? "" : label.substr(0, label.size() - 2) + " ";
  return "the L1 of " + device + "core (" + std::to_string(c.logical_x) + "," + std::to_string(c.logical_y) + ")";
}

// The allocation of core c's L1 that holds all of [lo, hi), if one does
// (no strings: this is the checker's miss path).
bool find_l1(const Chip& chip, const Core& c, uint64_t lo, uint64_t hi, MemoryCheckCache::Entry& entry) {
  entry = {};
  entry.core = c.index;
  const auto region = [&](uint64_t r_lo, uint64_t r_hi) {
    entry.lo = r_lo, entry.hi = r_hi;
    return lo >= r_lo && hi <= r_hi;
  };
  if (hi <= kL1SemaphoreBase) return region(0, kL1SemaphoreBase);
  if (lo >= kL1ZerosBase && hi <= kL1ZerosEnd) return region(kL1ZerosBase, kL1ZerosEnd);
  if (lo >= kL1ZerosEnd && hi <= kL1UnreservedBase) return region(kL1ZerosEnd, kL1UnreservedBase);
  const bool live = live_program(chip, c);
  if (lo >= kL1SemaphoreBase && lo < kSemaphoreEnd) {
    const uint32_t id = uint32_t(lo - kL1SemaphoreBase) / kL1SemaphoreStride;
    return live && (c.semaphore_mask >> id & 1) &&
           region(semaphore_offset(id), semaphore_offset(id) + kL1SemaphoreStride);
  }
  if (lo < kL1UnreservedBase) return false;
  if (live)
    for (uint64_t mask = c.cb_configured_mask; mask; mask &= mask - 1) {
      const int cb = __builtin_ctzll(mask);
      const tessel_cb_iface& q = c.cbs[cb];
      const uint64_t q_lo = q.fifo_addr & TESSEL_L1_SLOT_MASK;
      if (q.configured && lo >= q_lo && lo < q_lo + q.fifo_size) {
        entry.cb = cb;
        return region(q_lo, q_lo + q.fifo_size);
      }
    }
  if (const BufferExtent* b = chip.memory_map().find(MemoryKind::L1, c.index, lo); b && hi <= b->end_in_bank(c.index)) {
    entry.buffer = b;
    return true;
  }
  return false;
}

// Whether [lo, hi) of core c's L1 is free memory: above the reserved base,
// inside L1, touching no live allocation and no buffer freed there. A write
// into it disturbs nothing on silicon (a warning); a read of it reads
// nothing anyone wrote, and freed memory is most likely a stale address (both
// errors).
bool writes_free_l1(const Chip& chip, const Core& c, uint64_t lo, uint64_t hi) {
  if (lo < kL1UnreservedBase || hi > chip.arch().l1_size_bytes) return false;
  const std::vector<Region> regions = l1_regions(chip, c);
  if (std::any_of(regions.begin(), regions.end(), [&](const Region& r) { return r.lo < hi && lo < r.hi; }))
    return false;
  return chip.memory_map().freed_overlapping(MemoryKind::L1, c.index, lo, hi) == nullptr;
}

void stamp(MemoryCheckCache::Entry& entry, const Chip& chip) {
  entry.generation = chip.memory_map().generation();
  entry.configuration = chip.configuration();
}

} // namespace

// The frames of a failing fiber are abandoned, never unwound: what a report
// needs is built and freed inside the functions above, and only the message
// (moved into Chip::fail) is alive here when the fiber stops.
void check_l1_slow(Fiber* f, MemoryCheckCache::Set& set, const Core& target, uint64_t lo, uint64_t hi, TransferEnd end,
                   const char* call, const char* file, uint32_t line) {
  const Chip& chip = *target.chip;
  MemoryCheckCache::Entry found;
  if (find_l1(chip, target, lo, hi, found)) {
    stamp(found, chip);
    set.replace() = found;
    return;
  }
  if (end == TransferEnd::Destination && writes_free_l1(chip, target, lo, hi)) {
    std::string m = std::string(call) + ": the transfer's destination, " + std::to_string(hi - lo) + " bytes at " +
                    span(lo, hi) + " of " + core_name(target) +
                    ", is free L1 (no buffer, CB or semaphore there); silicon writes it and nothing else is "
                    "disturbed, but nothing owns it either: write into a CB or buffer sized for the data";
    f->core->chip->warn(f, std::move(m), file, line);
    return;
  }
  std::string m = report(core_name(target), l1_regions(chip, target), lo, hi, end, call, chip.memory_map(),
                         MemoryKind::L1, target.index);
  f->core->chip->fail(f, std::move(m), file, line);
}

TransferVerdict l1_destination_verdict(const Core& target, uint64_t lo, uint64_t hi, const char* call,
                                      std::string& message) {
  const Chip& chip = *target.chip;
  if (!chip.check_memory()) return TransferVerdict::Ok;
  if (lo < kL1ZerosEnd && hi > kL1ZerosBase) {
    message = std::string(call) + ": the transfer's destination, " + std::to_string(hi - lo) + " bytes at " +
              span(lo, hi) + " of " + core_name(target) + ", overlaps the zeros region (MEM_ZEROS_BASE, " +
              span(kL1ZerosBase, kL1ZerosEnd) + "), which is read-only";
    return TransferVerdict::Error;
  }
  MemoryCheckCache::Entry found;
  if (find_l1(chip, target, lo, hi, found)) return TransferVerdict::Ok;
  if (writes_free_l1(chip, target, lo, hi)) {
    message = std::string(call) + ": the transfer's destination, " + std::to_string(hi - lo) + " bytes at " +
              span(lo, hi) + " of " + core_name(target) +
              ", is free L1 (no buffer, CB or semaphore there); silicon writes it and nothing else is disturbed, "
              "but nothing owns it either: write into a CB or buffer sized for the data";
    return TransferVerdict::Warning;
  }
  message = report(core_name(target), l1_regions(chip, target), lo, hi, TransferEnd::Destination, call,
                   chip.memory_map(), MemoryKind::L1, target.index);
  return TransferVerdict::Error;
}

TransferVerdict dram_destination_verdict(const Chip& chip, uint32_t bank, uint64_t lo, uint64_t hi, const char* call,
                                         std::string& message) {
  if (!chip.check_memory()) return TransferVerdict::Ok;
  if (const BufferExtent* b = chip.memory_map().find(MemoryKind::Dram, bank, lo); b && hi <= b->end_in_bank(bank))
    return TransferVerdict::Ok;
  const std::string& label = chip.label();
  const std::string device = label.empty() ? "" : label.substr(0, label.size() - 2) + " ";
  message = report(device + "DRAM bank " + std::to_string(bank), dram_regions(chip, bank), lo, hi,
                   TransferEnd::Destination, call, chip.memory_map(), MemoryKind::Dram, bank);
  return TransferVerdict::Error;
}

void fail_zeros_write(Fiber* f, const Core& target, uint64_t lo, uint64_t hi, const char* call, const char* file,
                      uint32_t line) {
  std::string m = std::string(call) + ": the transfer's destination, " + std::to_string(hi - lo) + " bytes at " +
                  span(lo, hi) + " of " + core_name(target) + ", overlaps the zeros region (MEM_ZEROS_BASE, " +
                  span(kL1ZerosBase, kL1ZerosEnd) +
                  "), which is read-only: kernels read it to clear memory (write into a CB or buffer instead)";
  f->core->chip->fail(f, std::move(m), file, line);
}

void check_dram_slow(Fiber* f, MemoryCheckCache::Set& set, uint32_t bank, uint64_t lo, uint64_t hi, TransferEnd end,
                     const char* call, const char* file, uint32_t line) {
  check_dram_slow(f, set, *f->core->chip, bank, lo, hi, end, call, file, line);
}

void check_dram_slow(Fiber* f, MemoryCheckCache::Set& set, const Chip& chip, uint32_t bank, uint64_t lo, uint64_t hi,
                     TransferEnd end, const char* call, const char* file, uint32_t line) {
  if (const BufferExtent* b = chip.memory_map().find(MemoryKind::Dram, bank, lo); b && hi <= b->end_in_bank(bank)) {
    MemoryCheckCache::Entry& e = set.replace();
    e = {};
    e.buffer = b;
    stamp(e, chip);
    return;
  }
  const std::string& label = chip.label();
  const std::string device = label.empty() ? "" : label.substr(0, label.size() - 2) + " ";
  std::string m = report(device + "DRAM bank " + std::to_string(bank), dram_regions(chip, bank), lo, hi, end, call,
                         chip.memory_map(), MemoryKind::Dram, bank);
  f->core->chip->fail(f, std::move(m), file, line);
}

} // namespace tessel::sim
