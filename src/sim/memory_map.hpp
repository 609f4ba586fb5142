// The device's live buffer allocations, as the memory checker sees them
// (memory_check.hpp): DRAM buffers interleaved over the DRAM banks and L1
// buffers interleaved over the cores (one L1 bank per core), each at the same
// base address in every bank it uses.
//
//   page p of a buffer lives in bank p % banks at base + (p / banks) * stride
//
// so bank b holds rows(b) = pages / banks + (b < pages % banks) pages, the
// range [base, base + rows(b) * stride). CBs, semaphores and the reserved
// base are not here: they belong to the program being run, and the checker
// reads them from the cores.
//
// The runtime's allocator is the owner of addresses; it tells the map of
// every allocation and free. A bounded record of freed buffers lets an error
// say "a freed buffer" instead of "no allocation".
//
// Thread-safety: changed only by the host thread that owns the device, while
// no kernel runs; read by the kernel API during runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace tessel::sim {

enum class MemoryKind : uint8_t { Dram, L1 };

struct BufferExtent {
  MemoryKind kind = MemoryKind::Dram;
  uint64_t base = 0;
  uint64_t size_bytes = 0;
  uint32_t page_bytes = 0;
  uint32_t stride = 0; // page_bytes aligned up to the bank's alignment
  uint32_t banks = 0;
  uint32_t full_rows = 0; // pages / banks
  uint32_t extra = 0;     // pages % banks: banks below this hold one more page

  uint64_t end_in_bank(uint32_t bank) const { return base + uint64_t(full_rows + (bank < extra)) * stride; }
  uint64_t end_max() const { return base + uint64_t(full_rows + (extra != 0)) * stride; }
};

// The memory checker's record, per fiber, of the allocations each kind of
// endpoint hit last: most transfers of a kernel land in one of the few
// allocations its previous ones did (a reader alternates two input buffers
// and two CBs), and are checked in a few compares (memory_check.hpp).
struct MemoryCheckCache {
  struct Entry {
    const BufferExtent* buffer = nullptr; // a buffer (any bank), else a region [lo, hi)
    uint32_t core = ~0u;                  // a region's core (unused for CB regions)
    int32_t cb = -1;                      // a CB region: valid on every core that configures it the same
    uint64_t lo = 0, hi = 0;
    uint64_t generation = 0;    // MemoryMap::generation() when recorded (0: empty)
    uint64_t configuration = 0; // Chip::configuration() when recorded
  };
  static constexpr uint32_t kWays = 4;
  struct Set {
    Entry ways[kWays];
    uint32_t next = 0; // the way the next miss replaces
    Entry& replace() { return ways[next++ % kWays]; }
  };
  Set dram, l1_local, l1_remote;
};

class MemoryMap {
public:
  void add(MemoryKind kind, uint64_t base, uint64_t size_bytes, uint32_t page_bytes, uint32_t stride, uint32_t banks);
  void remove(MemoryKind kind, uint64_t base);

  // Changes with every add and remove: the checker's cached lookups carry it.
  uint64_t generation() const { return generation_; }

  // The live buffer whose range in `bank` holds `address`, or null.
  const BufferExtent* find(MemoryKind kind, uint32_t bank, uint64_t address) const;
  // The live buffers with bytes in [lo, hi) of `bank`, in address order.
  std::vector<const BufferExtent*> overlapping(MemoryKind kind, uint32_t bank, uint64_t lo, uint64_t hi) const;
  // The most recently freed buffer with bytes in [lo, hi) of `bank`, or null.
  const BufferExtent* freed_overlapping(MemoryKind kind, uint32_t bank, uint64_t lo, uint64_t hi) const;

private:
  std::vector<BufferExtent>& live(MemoryKind kind) { return kind == MemoryKind::Dram ? dram_ : l1_; }
  const std::vector<BufferExtent>& live(MemoryKind kind) const { return kind == MemoryKind::Dram ? dram_ : l1_; }

  static constexpr size_t kFreedKept = 64;
  std::vector<BufferExtent> dram_, l1_; // sorted by base; ranges never overlap
  std::deque<BufferExtent> freed_;      // newest first
  uint64_t generation_ = 1;
};

} // namespace tessel::sim
