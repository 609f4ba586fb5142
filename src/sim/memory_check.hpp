// The device-memory checker (design §1.3, the strict half): every byte a NoC
// transfer touches, at both ends, must lie inside one live allocation.
//
// The map of live allocations:
//  - DRAM: the live DRAM buffers (memory_map.hpp), per bank;
//  - L1 of a core: the reserved base (mailboxes, runtime arguments, the
//    zeros region; always live), the semaphores and CBs of the program being run on that core
//    (live while Core::configuration == Chip::configuration()), and the live
//    L1 buffers' pages on that core.
// A transfer that touches bytes of no live allocation (a gap, a freed buffer,
// a core the program does not configure) or crosses from one allocation into
// another is a KernelError naming the call, the range, the memory and every
// allocation it touched; except a write that lies wholly in free L1 (above
// the reserved base, no live or freed allocation there), which silicon makes
// without disturbing anything: a warning. The zeros region (MEM_ZEROS_BASE)
// is read-only: a write into it is an error. This catches a program re-enqueued after its buffers
// were freed, one device's addresses used on another, and reads or writes
// that overrun a CB or a buffer.
//
// Cost: a fiber remembers the allocation each kind of endpoint hit last
// (MemoryCheckCache); a hit is a few compares, a miss one lookup.
// Chip::check_memory() turns the whole check off (TESSEL_CHECK_MEMORY=0).
#pragma once

#include <cstdint>
#include <string>

#include "sim/chip.hpp"
#include "sim/l1_layout.hpp"
#include "sim/memory_map.hpp"

namespace tessel::sim {

enum class TransferEnd : uint8_t { Source, Destination };

// Slow paths (memory_check.cpp): look the range up and record it in one of
// the set's ways, or stop the fiber with the report.
void check_l1_slow(Fiber* f, MemoryCheckCache::Set& set, const Core& target, uint64_t lo, uint64_t hi, TransferEnd end,
                   const char* call, const char* file, uint32_t line);
void check_dram_slow(Fiber* f, MemoryCheckCache::Set& set, uint32_t bank, uint64_t lo, uint64_t hi, TransferEnd end,
                     const char* call, const char* file, uint32_t line);
// The same for a bank of `chip`, which need not be f's (a fabric packet's destination).
void check_dram_slow(Fiber* f, MemoryCheckCache::Set& set, const Chip& chip, uint32_t bank, uint64_t lo, uint64_t hi,
                     TransferEnd end, const char* call, const char* file, uint32_t line);
// The same checks of a transfer's destination with no fiber to stop (a
// fabric packet, checked where it lands): Ok, or the report in `message`.
enum class TransferVerdict : uint8_t { Ok, Warning, Error };
TransferVerdict l1_destination_verdict(const Core& target, uint64_t lo, uint64_t hi, const char* call,
                                      std::string& message);
TransferVerdict dram_destination_verdict(const Chip& chip, uint32_t bank, uint64_t lo, uint64_t hi, const char* call,
                                         std::string& message);
// Stops the fiber: a transfer's destination overlaps the zeros region.
[[noreturn]] void fail_zeros_write(Fiber* f, const Core& target, uint64_t lo, uint64_t hi, const char* call,
                                   const char* file, uint32_t line);

inline bool cached_l1(const MemoryCheckCache::Entry& e, uint64_t generation, uint64_t configuration, const Core& c,
                      uint64_t lo, uint64_t hi) {
  if (e.generation != generation || e.configuration != configuration) return false;
  if (e.buffer) return lo >= e.buffer->base && hi <= e.buffer->end_in_bank(c.index);
  if (lo < e.lo || hi > e.hi) return false;
  if (e.cb < 0) return e.core == c.index;
  const tessel_cb_iface& q = c.cbs[e.cb];
  return c.configuration == configuration && q.configured && (q.fifo_addr & TESSEL_L1_SLOT_MASK) == e.lo &&
         q.fifo_size == e.hi - e.lo;
}

// [l1_offset, +size) of `target`'s L1; `local`: the transfer's own core.
inline void check_l1(Fiber* f, const Core& target, uint64_t l1_offset, uint32_t size, bool local, TransferEnd end,
                     const char* call, const char* file, uint32_t line) {
  const Chip& chip = *target.chip;
  if (!chip.check_memory()) return;
  if (end == TransferEnd::Destination && l1_offset < kL1ZerosEnd && l1_offset + size > kL1ZerosBase) [[unlikely]]
    fail_zeros_write(f, target, l1_offset, l1_offset + size, call, file, line);
  MemoryCheckCache::Set& set = local ? f->mem_cache.l1_local : f->mem_cache.l1_remote;
  const uint64_t generation = chip.memory_map().generation(), configuration = chip.configuration();
  for (const MemoryCheckCache::Entry& e : set.ways)
    if (cached_l1(e, generation, configuration, target, l1_offset, l1_offset + size)) return;
  check_l1_slow(f, set, target, l1_offset, l1_offset + size, end, call, file, line);
}

inline void check_dram(Fiber* f, const Chip& chip, uint32_t bank, uint64_t address, uint32_t size, TransferEnd end,
                       const char* call, const char* file, uint32_t line) {
  if (!chip.check_memory()) return;
  MemoryCheckCache::Set& set = f->mem_cache.dram;
  const uint64_t generation = chip.memory_map().generation();
  for (const MemoryCheckCache::Entry& e : set.ways)
    if (e.generation == generation && address >= e.buffer->base && address + size <= e.buffer->end_in_bank(bank))
      return;
  check_dram_slow(f, set, bank, address, address + size, end, call, file, line);
}

} // namespace tessel::sim
