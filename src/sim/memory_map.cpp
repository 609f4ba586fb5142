#include "sim/memory_map.hpp"

#include <algorithm>

namespace tessel::sim {

void MemoryMap::add(MemoryKind kind, uint64_t base, uint64_t size_bytes, uint32_t page_bytes, uint32_t stride,
                    uint32_t banks) {
  const uint64_t pages = size_bytes / page_bytes;
  BufferExtent e{kind, base, size_bytes, page_bytes, stride, banks, uint32_t(pages / banks), uint32_t(pages % banks)};
  auto& v = live(kind);
  v.insert(std::upper_bound(v.begin(), v.end(), base, [](uint64_t b, const BufferExtent& x) { return b < x.base; }), e);
  ++generation_;
}

void MemoryMap::remove(MemoryKind kind, uint64_t base) {
  auto& v = live(kind);
  auto it = std::lower_bound(v.begin(), v.end(), base, [](const BufferExtent& x, uint64_t b) { return x.base < b; });
  if (it == v.end() || it->base != base) return;
  freed_.push_front(*it);
  if (freed_.size() > kFreedKept) freed_.pop_back();
  v.erase(it);
  ++generation_;
}

const BufferExtent* MemoryMap::find(MemoryKind kind, uint32_t bank, uint64_t address) const {
  const auto& v = live(kind);
  auto it = std::upper_bound(v.begin(), v.end(), address, [](uint64_t a, const BufferExtent& x) { return a < x.base; });
  if (it == v.begin()) return nullptr;
  --it;
  return address < it->end_in_bank(bank) ? &*it : nullptr;
}

std::vector<const BufferExtent*> MemoryMap::overlapping(MemoryKind kind, uint32_t bank, uint64_t lo,
                                                        uint64_t hi) const {
  std::vector<const BufferExtent*> out;
  for (const BufferExtent& e : live(kind))
    if (e.base < hi && lo < e.end_in_bank(bank)) out.push_back(&e);
  return out;
}

const BufferExtent* MemoryMap::freed_overlapping(MemoryKind kind, uint32_t bank, uint64_t lo, uint64_t hi) const {
  for (const BufferExtent& e : freed_)
    if (e.kind == kind && e.base < hi && lo < e.end_in_bank(bank)) return &e;
  return nullptr;
}

} // namespace tessel::sim
