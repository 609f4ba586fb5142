// Core coordinates: a logical core (x, y) of the worker grid, inclusive
// rectangles of cores, and sets of rectangles. Plain values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

namespace tessel {

struct CoreCoord {
  uint32_t x = 0;
  uint32_t y = 0;
  friend bool operator==(const CoreCoord&, const CoreCoord&) = default;
  std::string str() const { return "(" + std::to_string(x) + "," + std::to_string(y) + ")"; }
};

// An inclusive rectangle of cores; the corners may be given in any order.
struct CoreRange {
  CoreCoord start;
  CoreCoord end;
  CoreRange() = default;
  CoreRange(CoreCoord c) : start(c), end(c) {}
  CoreRange(CoreCoord a, CoreCoord b)
      : start{a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y}, end{a.x < b.x ? b.x : a.x, a.y < b.y ? b.y : a.y} {}
  uint32_t size() const { return (end.x - start.x + 1) * (end.y - start.y + 1); }
  bool contains(CoreCoord c) const { return c.x >= start.x && c.x <= end.x && c.y >= start.y && c.y <= end.y; }
  bool intersects(const CoreRange& o) const {
    return start.x <= o.end.x && o.start.x <= end.x && start.y <= o.end.y && o.start.y <= end.y;
  }
  // Row-major list of the cores.
  std::vector<CoreCoord> cores() const;
  std::string str() const { return start == end ? start.str() : start.str() + "-" + end.str(); }
  friend bool operator==(const CoreRange&, const CoreRange&) = default;
};

// Walks a CoreRange row-major, for `for (CoreCoord c : range)` (through the
// free begin()/end() below: CoreRange's `end` member is its last core, so it
// cannot also have member functions begin()/end()). end() is the first core
// of the row past the range.
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
inline CoreRangeIterator begin(const CoreRange& range) { return {range, range.start}; }
inline CoreRangeIterator end(const CoreRange& range) { return {range, CoreCoord{range.start.x, range.end.y + 1}}; }

// A set of core rectangles (they must not overlap).
class CoreRangeSet {
public:
  CoreRangeSet() = default;
  CoreRangeSet(CoreCoord c) : ranges_{CoreRange(c)} {}
  CoreRangeSet(CoreRange r) : ranges_{r} {}
  CoreRangeSet(std::initializer_list<CoreRange> rs) : ranges_(rs) {}
  explicit CoreRangeSet(std::vector<CoreRange> rs) : ranges_(std::move(rs)) {}

  const std::vector<CoreRange>& ranges() const { return ranges_; }
  uint32_t num_cores() const;
  bool contains(CoreCoord c) const;
  bool intersects(const CoreRangeSet& o) const;
  std::vector<CoreCoord> cores() const;
  std::string str() const;
  friend bool operator==(const CoreRangeSet&, const CoreRangeSet&) = default;

private:
  std::vector<CoreRange> ranges_;
};

} // namespace tessel
