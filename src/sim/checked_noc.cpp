#include "sim/checked_noc.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "sim/chip.hpp"
#include "sim/fault.hpp"
#include "tessel/error.hpp"

namespace tessel::sim {

namespace {
constexpr uintptr_t kPageBytes = 4096;
constexpr uint32_t kRegistrySlots = 64;

// The checked chips, for the fault handler: read without a lock (a slot is
// set before its chip's first transfer and cleared after its last landing).
std::atomic<CheckedNoc*> g_registry[kRegistrySlots];

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
} // namespace

NocMode parse_noc_mode(const std::string& text, const char* where) {
  if (text == "eager") return NocMode::Eager;
  if (text == "checked") return NocMode::Checked;
  throw ValidationError(std::string(where) + ": NoC mode '" + text + "' is not one of 'eager' or 'checked'");
}

const char* noc_mode_name(NocMode mode) { return mode == NocMode::Checked ? "checked" : "eager"; }

// Per page of one core's L1: how many pending transfers guard it, by kind.
// A page is inaccessible while a read lands in it, read-only while only
// writes read from it.
// `applied` is each page's protection now, so that only changes cost a
// system call (each mprotect of a multi-threaded process flushes TLBs).
struct CheckedNoc::Guards {
  std::vector<uint16_t> no_access, read_only;
  std::vector<uint8_t> applied;
  int protection(size_t page) const {
    return no_access[page] ? PROT_NONE : read_only[page] ? PROT_READ : PROT_READ | PROT_WRITE;
  }
  bool any(size_t page) const { return no_access[page] | read_only[page]; }
  // Gives pages [first, last] of `l1` the protection want(page), one
  // mprotect per run of pages that change alike.
  template <class Want>
  void apply(uint8_t* l1, size_t first, size_t last, Want want) {
    for (size_t p = first; p <= last;) {
      const int prot = want(p);
      size_t q = p + 1;
      while (q <= last && want(q) == prot && (applied[q] == prot) == (applied[p] == prot))
        ++q;
      if (applied[p] != prot) {
        mprotect(l1 + p * kPageBytes, (q - p) * kPageBytes, prot);
        std::fill(applied.begin() + ptrdiff_t(p), applied.begin() + ptrdiff_t(q), uint8_t(prot));
      }
      p = q;
    }
  }
};

CheckedNoc::CheckedNoc(Chip& chip) : chip_(chip), guards_(chip.core_count()) {
  for (slot_ = 0; slot_ < kRegistrySlots; ++slot_) {
    CheckedNoc* expected = nullptr;
    if (g_registry[slot_].compare_exchange_strong(expected, this)) return;
  }
  throw ValidationError("noc=checked: more than " + std::to_string(kRegistrySlots) +
                        " devices use the checked NoC mode at once");
}

CheckedNoc::~CheckedNoc() { g_registry[slot_].store(nullptr); }

CheckedNoc::Guards& CheckedNoc::guards_of(const Core& core) {
  std::unique_ptr<Guards>& g = guards_[core.index];
  if (!g) {
    const size_t pages = (chip_.arch().l1_size_bytes + kPageBytes - 1) / kPageBytes;
    g = std::make_unique<Guards>();
    g->no_access.assign(pages, 0);
    g->read_only.assign(pages, 0);
    g->applied.assign(pages, uint8_t(PROT_READ | PROT_WRITE));
  }
  return *g;
}

namespace {
// The core whose L1 holds p, and p's offset there; null outside every L1.
Core* core_holding(Chip& chip, const uint8_t* p, uint32_t* offset) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (!chip.memory().in_l1_range(a)) return nullptr;
  const uintptr_t from = a - reinterpret_cast<uintptr_t>(chip.memory().l1(0));
  const size_t index = from / DeviceMemory::kCoreStrideBytes;
  const size_t off = from % DeviceMemory::kCoreStrideBytes;
  if (off >= chip.arch().l1_size_bytes) return nullptr;
  *offset = uint32_t(off);
  return &chip.core(uint32_t(index));
}
} // namespace

// The pages [lo_ptr, hi_ptr) touches get the protection their counts ask
// for, or (open, for a landing) read and write. Memory outside every L1,
// or of a core no transfer guarded yet, is left alone.
void CheckedNoc::set_span(const uint8_t* lo_ptr, const uint8_t* hi_ptr, bool open) {
  uint32_t off = 0;
  Core* core = core_holding(chip_, lo_ptr, &off);
  if (!core || !guards_[core->index]) return;
  Guards& g = *guards_[core->index];
  const size_t first = off / kPageBytes;
  const size_t last = std::min((off + size_t(hi_ptr - lo_ptr) - 1) / kPageBytes, g.no_access.size() - 1);
  g.apply(core->l1, first, last, [&](size_t p) { return open ? PROT_READ | PROT_WRITE : g.protection(p); });
}

void CheckedNoc::guard(const Core& core, uint32_t lo, uint32_t hi, bool read, int delta) {
  Guards& g = guards_of(core);
  std::vector<uint16_t>& counts = read ? g.no_access : g.read_only;
  for (size_t p = lo / kPageBytes; p <= (hi - 1) / kPageBytes; ++p)
    counts[p] = uint16_t(counts[p] + delta);
  set_span(core.l1 + lo, core.l1 + hi, false);
}

void CheckedNoc::issue(Fiber& f, const PendingTransfer& t) {
  f.pending.push_back(t);
  guard(*f.core, t.lo, t.hi, t.read, +1);
}

void CheckedNoc::land_one(const PendingTransfer& t) {
  set_span(t.src, t.src + t.size, true);
  set_span(t.dst, t.dst + t.size, true);
  std::memmove(t.dst, t.src, t.size);
  set_span(t.src, t.src + t.size, false);
  set_span(t.dst, t.dst + t.size, false);
}

void CheckedNoc::land(Fiber& f, bool reads, bool writes) {
  size_t kept = 0;
  for (size_t i = 0; i < f.pending.size(); ++i) {
    const PendingTransfer t = f.pending[i];
    if (t.read ? !reads : !writes) {
      f.pending[kept++] = t;
      continue;
    }
    guard(*f.core, t.lo, t.hi, t.read, -1);
    land_one(t);
    if (t.dst_core) chip_.after_write(*t.dst_core);
  }
  f.pending.resize(kept);
}

void CheckedNoc::end_run(const std::vector<Fiber*>& fibers) {
  for (Fiber* f : fibers)
    for (const PendingTransfer& t : f->pending) {
      guard(*f->core, t.lo, t.hi, t.read, -1);
      land_one(t);
    }
  for (Fiber* f : fibers)
    f->pending.clear();
}

GuardedFault CheckedNoc::on_fault(Fiber* running, uintptr_t address, uintptr_t pc, int write) {
  uint32_t off = 0;
  Core* core = core_holding(chip_, reinterpret_cast<const uint8_t*>(address), &off);
  if (!core || !guards_[core->index] || !guards_[core->index]->any(off / kPageBytes)) return GuardedFault::NotGuarded;
  const size_t page = off / kPageBytes;
  // A kernel of this core touching a transfer's own range: a bug to report.
  const bool kernel_access = running && running->core == core && pc >= running->code_lo && pc < running->code_hi;
  for (uint32_t r = 0; kernel_access && r < TESSEL_RISC_COUNT; ++r)
    if (const Fiber* g = core->fibers[r])
      for (const PendingTransfer& t : g->pending)
        if (off >= t.lo && off < t.hi && (t.read || write == 1)) {
          running->in_flight = t;
          running->in_flight_issuer = r;
          running->in_flight_write = write;
          return GuardedFault::InFlight;
        }
  // Anything else: the transfers guarding the page land, each RISC's in order.
  for (uint32_t r = 0; r < TESSEL_RISC_COUNT; ++r) {
    Fiber* g = core->fibers[r];
    if (!g) continue;
    size_t through = 0;
    for (size_t i = 0; i < g->pending.size(); ++i)
      if (page >= g->pending[i].lo / kPageBytes && page <= (g->pending[i].hi - 1) / kPageBytes) through = i + 1;
    for (size_t i = 0; i < through; ++i) {
      const PendingTransfer& t = g->pending[i];
      guard(*core, t.lo, t.hi, t.read, -1);
      land_one(t); // waiters on the destination are polled when nothing else can run
    }
    g->pending.erase(g->pending.begin(), g->pending.begin() + ptrdiff_t(through));
  }
  return GuardedFault::Landed;
}

std::string CheckedNoc::in_flight_report(const Fiber& f) const {
  const PendingTransfer& t = f.in_flight;
  const KernelFrame frame = kernel_frame(reinterpret_cast<const void*>(f.entry), f.fault_pc, f.fault_sp,
                                         reinterpret_cast<uintptr_t>(f.slot) + TESSEL_FIBER_SLOT_BYTES);
  const std::string at = frame.return_address ? chip_.where_at(&f, frame.pc) : [&] {
    const std::string location = source_location_of(frame.pc);
    return (location.empty() ? "" : location + ": ") + chip_.where(&f, nullptr, 0);
  }();
  const uint32_t off = uint32_t(f.fault_address & TESSEL_L1_SLOT_MASK);
  const char* verb = f.in_flight_write == 1 ? "wrote" : f.in_flight_write == 0 ? "read" : "accessed";
  const std::string issuer =
      f.in_flight_issuer == f.risc ? "" : std::string(" by ") + Chip::risc_name(f.in_flight_issuer);
  const std::string range = "L1 [" + hex(t.lo) + ", " + hex(t.hi) + ")";
  std::string what = t.read ? "the " + std::string(t.call) + issuer + " at " + (t.file ? t.file : "?") + ":" +
                                  std::to_string(t.line) + " is still landing in " + range +
                                  ": its data arrives at noc_async_read_barrier(); wait for it before using the data"
                            : "it is the source of the " + std::string(t.call) + issuer + " at " +
                                  (t.file ? t.file : "?") + ":" + std::to_string(t.line) + ", " + range +
                                  ", still being read: wait with noc_async_write_barrier() or "
                                  "noc_async_writes_flushed() before changing it";
  return at + "kernel '" + (f.kernel_name ? f.kernel_name : "?") + "' " + verb + " L1 " + hex(off) +
         (frame.outside.empty() ? "" : " (in " + frame.outside + ", called from here)") + " while " + what +
         " (noc=checked)";
}

GuardedFault checked_noc_fault(Fiber* running, uintptr_t address, uintptr_t pc, int write) {
  for (auto& slot : g_registry)
    if (CheckedNoc* c = slot.load(std::memory_order_acquire))
      if (GuardedFault r = c->on_fault(running, address, pc, write); r != GuardedFault::NotGuarded) return r;
  return GuardedFault::NotGuarded;
}

} // namespace tessel::sim
