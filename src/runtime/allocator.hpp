// A first-fit range allocator over [begin, end) of one address space, used
// for DRAM (per-bank addresses, identical in every bank) and L1 (offsets,
// identical on every core). Allocations from the bottom or the top.
// Thread-compatible; not on any per-tile path.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace tessel::runtime {

class RangeAllocator {
public:
  RangeAllocator(uint64_t begin, uint64_t end);

  std::optional<uint64_t> allocate(uint64_t size_bytes, uint64_t alignment, bool from_top);
  // Throws std::logic_error for an address that is not allocated.
  void free(uint64_t address);

  uint64_t begin() const { return begin_; }
  uint64_t end() const { return end_; }
  // Lowest allocated address, or end() when nothing is allocated.
  uint64_t lowest_allocated() const;
  uint64_t bytes_allocated() const { return allocated_bytes_; }
  uint64_t largest_free() const;

private:
  uint64_t begin_, end_;
  std::map<uint64_t, uint64_t> free_; // start -> size
  std::map<uint64_t, uint64_t> used_; // start -> size
  uint64_t allocated_bytes_ = 0;
};

} // namespace tessel::runtime
