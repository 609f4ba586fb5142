// RangeAllocator (src/runtime/allocator.cpp): first fit from the bottom,
// top-down allocation, alignment, coalescing on free, fragmentation.
#include <gtest/gtest.h>

#include <stdexcept>

#include "runtime/allocator.hpp"

namespace tessel::runtime {
namespace {

TEST(RangeAllocator, FirstFitFromTheBottom) {
  RangeAllocator a(0x1000, 0x2000);
  EXPECT_EQ(a.allocate(0x100, 16, false), 0x1000u);
  EXPECT_EQ(a.allocate(0x10, 16, false), 0x1100u);
  // Alignment rounds the start up inside the free range.
  EXPECT_EQ(a.allocate(0x40, 0x100, false), 0x1200u);
  EXPECT_EQ(a.bytes_allocated(), 0x150u);
  EXPECT_EQ(a.lowest_allocated(), 0x1000u);
  // The gap 0x1110..0x1200 is the first fit for a small block.
  EXPECT_EQ(a.allocate(0x20, 16, false), 0x1110u);
}

TEST(RangeAllocator, TopDown) {
  RangeAllocator a(0x1000, 0x2000);
  EXPECT_EQ(a.allocate(0x100, 16, true), 0x1F00u);
  EXPECT_EQ(a.allocate(0x30, 0x40, true), 0x1EC0u); // 0x1ED0 rounded down to 0x40
  EXPECT_EQ(a.lowest_allocated(), 0x1EC0u);
  EXPECT_EQ(a.largest_free(), 0xEC0u);
  // Bottom and top allocations share the range.
  EXPECT_EQ(a.allocate(0x100, 16, false), 0x1000u);
  EXPECT_EQ(a.lowest_allocated(), 0x1000u);
}

TEST(RangeAllocator, FullAndEmpty) {
  RangeAllocator a(0, 0x400);
  EXPECT_EQ(a.lowest_allocated(), 0x400u); // nothing allocated: end()
  EXPECT_FALSE(a.allocate(0, 16, false).has_value());
  EXPECT_FALSE(a.allocate(0x401, 16, false).has_value());
  EXPECT_EQ(a.allocate(0x400, 16, true), 0u);
  EXPECT_EQ(a.largest_free(), 0u);
  EXPECT_FALSE(a.allocate(16, 16, false).has_value());
  EXPECT_FALSE(a.allocate(16, 16, true).has_value());
  a.free(0);
  EXPECT_EQ(a.largest_free(), 0x400u);
  EXPECT_EQ(a.bytes_allocated(), 0u);
}

TEST(RangeAllocator, FreeCoalescesWithBothNeighbours) {
  RangeAllocator a(0, 0x1000);
  const uint64_t x = *a.allocate(0x100, 16, false);
  const uint64_t y = *a.allocate(0x100, 16, false);
  const uint64_t z = *a.allocate(0x100, 16, false);
  const uint64_t w = *a.allocate(0x100, 16, false);
  a.free(x);
  a.free(z);
  EXPECT_EQ(a.largest_free(), 0xC00u); // the tail; w separates z from it
  a.free(y);                           // joins x, y and z into 0..0x300
  EXPECT_EQ(a.largest_free(), 0xC00u);
  EXPECT_EQ(a.allocate(0x300, 16, false), 0u);
  a.free(0);
  a.free(w);
  EXPECT_EQ(a.largest_free(), 0x1000u);
  EXPECT_EQ(a.bytes_allocated(), 0u);
  EXPECT_EQ(a.allocate(0x1000, 16, false), 0u);
}

TEST(RangeAllocator, FragmentationBlocksLargeAllocations) {
  RangeAllocator a(0, 1000);
  uint64_t blocks[10];
  for (auto& b : blocks)
    b = *a.allocate(100, 4, false);
  for (int i = 0; i < 10; i += 2)
    a.free(blocks[i]);
  // 500 bytes free, but in 100-byte pieces.
  EXPECT_EQ(a.bytes_allocated(), 500u);
  EXPECT_EQ(a.largest_free(), 100u);
  EXPECT_FALSE(a.allocate(200, 4, false).has_value());
  EXPECT_FALSE(a.allocate(200, 4, true).has_value());
  a.free(blocks[1]); // 0..300 is one range now
  EXPECT_EQ(a.largest_free(), 300u);
  EXPECT_EQ(a.allocate(200, 4, false), 0u);
  EXPECT_EQ(a.allocate(150, 4, true), std::nullopt); // top pieces are 100 bytes
  EXPECT_EQ(a.allocate(100, 4, true), 800u);
}

TEST(RangeAllocator, FreeOfAnUnknownAddressThrows) {
  RangeAllocator a(0, 0x1000);
  const uint64_t x = *a.allocate(0x100, 16, false);
  EXPECT_THROW(a.free(x + 16), std::logic_error);
  a.free(x);
  EXPECT_THROW(a.free(x), std::logic_error);
  EXPECT_EQ(a.bytes_allocated(), 0u);
}

} // namespace
} // namespace tessel::runtime
