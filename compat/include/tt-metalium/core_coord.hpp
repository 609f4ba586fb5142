// TT-Metalium's core coordinates, as tessel's types.
//
// CoreCoord, CoreRange and CoreRangeSet are tessel's (include/tessel/core_coord.hpp),
// reachable globally and in tt::tt_metal as Metalium code spells them. They
// differ from Metalium's in small ways: CoreCoord's members are uint32_t
// (Metalium: size_t), a CoreRange accepts its corners in either order, and
// CoreRangeSet keeps the ranges it was given (no merging). Range-for over a
// CoreRange visits its cores row-major (x fastest), as Metalium's does.
//
// Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "tessel/core_coord.hpp"

using CoreCoord = tessel::CoreCoord;
using CoreRange = tessel::CoreRange;
using CoreRangeSet = tessel::CoreRangeSet;

// The cores of `cores`, range by range: row-major within a range when
// row_wise, else column-major; at most max_cores of them.
std::vector<CoreCoord> corerange_to_cores(const CoreRangeSet& cores, std::optional<uint32_t> max_cores = std::nullopt,
                                          bool row_wise = false);

namespace tt::tt_metal {
using ::CoreCoord;
using ::CoreRange;
using ::corerange_to_cores;
using ::CoreRangeSet;

namespace detail {
// Walks a CoreRange row-major; end() is the first core of the row past it.
class CoreRangeIterator {
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = CoreCoord;
  using difference_type = std::ptrdiff_t;
  using pointer = const CoreCoord*;
  using reference = const CoreCoord&;

  CoreRangeIterator() = default;
  CoreRangeIterator(const CoreRange& range, CoreCoord at) : first_x_(range.start.x), last_x_(range.end.x), at_(at) {}
  const CoreCoord& operator*() const { return at_; }
  const CoreCoord* operator->() const { return &at_; }
  CoreRangeIterator& operator++() {
    if (++at_.x > last_x_) {
      at_.x = first_x_;
      ++at_.y;
    }
    return *this;
  }
  CoreRangeIterator operator++(int) {
    CoreRangeIterator before = *this;
    ++*this;
    return before;
  }
  friend bool operator==(const CoreRangeIterator& a, const CoreRangeIterator& b) { return a.at_ == b.at_; }

private:
  uint32_t first_x_ = 0, last_x_ = 0;
  CoreCoord at_;
};
} // namespace detail
} // namespace tt::tt_metal

// Range-for finds these by argument-dependent lookup on tessel::CoreRange.
namespace tessel {
inline tt::tt_metal::detail::CoreRangeIterator begin(const CoreRange& range) { return {range, range.start}; }
inline tt::tt_metal::detail::CoreRangeIterator end(const CoreRange& range) {
  return {range, CoreCoord{range.start.x, range.end.y + 1}};
}
} // namespace tessel
