#include "runtime/allocator.hpp"

#include <stdexcept>

namespace tessel::runtime {

RangeAllocator::RangeAllocator(uint64_t begin, uint64_t end) : begin_(begin), end_(end) {
  if (end > begin) free_[begin] = end - begin;
}

std::optional<uint64_t> RangeAllocator::allocate(uint64_t size, uint64_t alignment, bool from_top) {
  if (size == 0) return std::nullopt;
  auto take = [&](std::map<uint64_t, uint64_t>::iterator it, uint64_t at) {
    uint64_t start = it->first, len = it->second;
    free_.erase(it);
    if (at > start) free_[start] = at - start;
    if (at + size < start + len) free_[at + size] = start + len - (at + size);
    used_[at] = size;
    allocated_bytes_ += size;
    return at;
  };
  if (from_top) {
    for (auto it = free_.end(); it != free_.begin();) {
      --it;
      uint64_t start = it->first, len = it->second;
      if (len < size) continue;
      uint64_t at = (start + len - size) / alignment * alignment;
      if (at >= start) return take(it, at);
    }
  } else {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      uint64_t start = it->first, len = it->second;
      uint64_t at = (start + alignment - 1) / alignment * alignment;
      if (at + size <= start + len) return take(it, at);
    }
  }
  return std::nullopt;
}

void RangeAllocator::free(uint64_t address) {
  auto it = used_.find(address);
  if (it == used_.end()) throw std::logic_error("RangeAllocator::free of an address that is not allocated");
  uint64_t start = address, len = it->second;
  allocated_bytes_ -= len;
  used_.erase(it);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += len;
      return;
    }
  }
  free_[start] = len;
}

uint64_t RangeAllocator::lowest_allocated() const { return used_.empty() ? end_ : used_.begin()->first; }

uint64_t RangeAllocator::largest_free() const {
  uint64_t best = 0;
  for (auto& [s, n] : free_)
    best = n > best ? n : best;
  return best;
}

} // namespace tessel::runtime
