// Core coordinates: a logical core (x, y) of the worker grid, inclusive
// rectangles of cores, and sets of rectangles. Plain values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace tessel {

struct CoreCoord {
  uint32_t x = 0;
  uint32_t y = 0;
  friend bool operator==(const CoreCoord&, const CoreCoord&) = default;
  // Ordered by x, then y.
  friend auto operator<=>(const CoreCoord&, const CoreCoord&) = default;
  std::string str() const { return "(" + std::to_string(x) + "," + std::to_string(y) + ")"; }
};

class CoreRange;

// Walks a CoreRange row-major (x fastest), for `for (CoreCoord c : range)`.
// end() is the first core of the row past the range.
class CoreRangeIterator {
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = CoreCoord;
  using difference_type = std::ptrdiff_t;
  using pointer = const CoreCoord*;
  using reference = const CoreCoord&;

  CoreRangeIterator() = default;
  CoreRangeIterator(uint32_t first_x, uint32_t last_x, CoreCoord at) : first_x_(first_x), last_x_(last_x), at_(at) {}
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

// An inclusive rectangle of cores from start_coord to end_coord; the corners
// may be given in any order (they are stored lowest first).
class CoreRange {
public:
  CoreCoord start_coord;
  CoreCoord end_coord;

  CoreRange() = default;
  CoreRange(CoreCoord c) : start_coord(c), end_coord(c) {}
  CoreRange(CoreCoord a, CoreCoord b)
      : start_coord{a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y}, end_coord{a.x < b.x ? b.x : a.x,
                                                                             a.y < b.y ? b.y : a.y} {}

  size_t size() const { return size_t(end_coord.x - start_coord.x + 1) * (end_coord.y - start_coord.y + 1); }
  // Columns and rows of the rectangle.
  CoreCoord grid_size() const { return {end_coord.x - start_coord.x + 1, end_coord.y - start_coord.y + 1}; }
  bool contains(CoreCoord c) const {
    return c.x >= start_coord.x && c.x <= end_coord.x && c.y >= start_coord.y && c.y <= end_coord.y;
  }
  bool contains(const CoreRange& o) const { return contains(o.start_coord) && contains(o.end_coord); }
  bool intersects(const CoreRange& o) const {
    return start_coord.x <= o.end_coord.x && o.start_coord.x <= end_coord.x && start_coord.y <= o.end_coord.y &&
           o.start_coord.y <= end_coord.y;
  }
  // The cores in both, if any.
  std::optional<CoreRange> intersection(const CoreRange& o) const;
  // Whether the two share an edge without overlapping.
  bool adjacent(const CoreRange& o) const;
  // The union when it is a rectangle (the two overlap or touch and line up
  // in x or y, or one contains the other); otherwise nothing.
  std::optional<CoreRange> merge(const CoreRange& o) const;
  // Row-major list of the cores.
  std::vector<CoreCoord> cores() const;
  CoreRangeIterator begin() const { return {start_coord.x, end_coord.x, start_coord}; }
  CoreRangeIterator end() const { return {start_coord.x, end_coord.x, CoreCoord{start_coord.x, end_coord.y + 1}}; }
  std::string str() const {
    return start_coord == end_coord ? start_coord.str() : start_coord.str() + "-" + end_coord.str();
  }
  friend bool operator==(const CoreRange&, const CoreRange&) = default;
  // Ordered by start_coord, then end_coord.
  friend auto operator<=>(const CoreRange&, const CoreRange&) = default;
};

// A set of core rectangles (they must not overlap: the runtime checks where
// a set is used).
class CoreRangeSet {
public:
  CoreRangeSet() = default;
  CoreRangeSet(CoreCoord c) : ranges_{CoreRange(c)} {}
  CoreRangeSet(CoreRange r) : ranges_{r} {}
  CoreRangeSet(std::initializer_list<CoreRange> rs) : ranges_(rs) {}
  CoreRangeSet(std::vector<CoreRange> rs) : ranges_(std::move(rs)) {}
  CoreRangeSet(const std::set<CoreRange>& rs) : ranges_(rs.begin(), rs.end()) {}
  // One single-core range per core.
  explicit CoreRangeSet(std::span<const CoreCoord> cores) : ranges_(cores.begin(), cores.end()) {}

  const std::vector<CoreRange>& ranges() const { return ranges_; }
  bool empty() const { return ranges_.empty(); }
  // The number of ranges (num_cores() counts cores).
  size_t size() const { return ranges_.size(); }
  uint32_t num_cores() const;
  bool contains(CoreCoord c) const;
  bool contains(const CoreRange& r) const;
  bool contains(const CoreRangeSet& o) const;
  bool intersects(CoreCoord c) const { return contains(c); }
  bool intersects(const CoreRange& r) const;
  bool intersects(const CoreRangeSet& o) const;
  // The smallest rectangle holding every core; throws ValidationError when empty.
  CoreRange bounding_box() const;
  // The same cores in as few rectangles as a row-then-column sweep finds.
  CoreRangeSet merge_ranges() const;
  // The cores of either set, merged (overlaps allowed).
  CoreRangeSet merge(const CoreRangeSet& o) const;
  // The cores of this set not in `o`.
  CoreRangeSet subtract(const CoreRangeSet& o) const;
  // The cores of both.
  CoreRangeSet intersection(const CoreRangeSet& o) const;
  // Range by range, each row-major.
  std::vector<CoreCoord> cores() const;
  std::string str() const;
  friend bool operator==(const CoreRangeSet&, const CoreRangeSet&) = default;

private:
  std::vector<CoreRange> ranges_;
};

} // namespace tessel

template <>
struct std::hash<tessel::CoreCoord> {
  size_t operator()(const tessel::CoreCoord& c) const noexcept { return (size_t(c.x) << 32) ^ c.y; }
};
template <>
struct std::hash<tessel::CoreRange> {
  size_t operator()(const tessel::CoreRange& r) const noexcept {
    const std::hash<tessel::CoreCoord> h;
    return h(r.start_coord) * 0x9E3779B97F4A7C15ull ^ h(r.end_coord);
  }
};
template <>
struct std::hash<tessel::CoreRangeSet> {
  size_t operator()(const tessel::CoreRangeSet& s) const noexcept {
    size_t h = s.size();
    for (const tessel::CoreRange& r : s.ranges())
      h = h * 0x9E3779B97F4A7C15ull ^ std::hash<tessel::CoreRange>{}(r);
    return h;
  }
};
