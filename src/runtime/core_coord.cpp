#include "tessel/core_coord.hpp"

#include <algorithm>
#include <map>

#include "tessel/error.hpp"

namespace tessel {

namespace {

// The cores of a set as rectangles: runs along x per row, then runs of
// equal x-extent stacked along y are joined. Input cores may repeat.
std::vector<CoreRange> rectangles_of(std::vector<CoreCoord> cores) {
  std::sort(cores.begin(), cores.end(), [](CoreCoord a, CoreCoord b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  std::vector<CoreRange> runs;
  for (CoreCoord c : cores) {
    if (!runs.empty() && runs.back().end_coord.y == c.y && runs.back().end_coord.x + 1 == c.x)
      runs.back().end_coord.x = c.x;
    else
      runs.push_back(CoreRange(c));
  }
  // Join a run to the open rectangle above it with the same x-extent that
  // ends on the row just above.
  std::vector<CoreRange> rects;
  std::map<std::pair<uint32_t, uint32_t>, size_t> open; // (x0, x1) -> index in rects
  for (const CoreRange& run : runs) {
    const auto key = std::make_pair(run.start_coord.x, run.end_coord.x);
    auto it = open.find(key);
    if (it != open.end() && rects[it->second].end_coord.y + 1 == run.start_coord.y) {
      rects[it->second].end_coord.y = run.end_coord.y;
    } else {
      open[key] = rects.size();
      rects.push_back(run);
    }
  }
  return rects;
}

} // namespace

std::vector<CoreCoord> CoreRange::cores() const {
  std::vector<CoreCoord> v;
  v.reserve(size());
  for (uint32_t y = start_coord.y; y <= end_coord.y; ++y)
    for (uint32_t x = start_coord.x; x <= end_coord.x; ++x)
      v.push_back({x, y});
  return v;
}

std::optional<CoreRange> CoreRange::intersection(const CoreRange& o) const {
  if (!intersects(o)) return std::nullopt;
  return CoreRange({std::max(start_coord.x, o.start_coord.x), std::max(start_coord.y, o.start_coord.y)},
                   {std::min(end_coord.x, o.end_coord.x), std::min(end_coord.y, o.end_coord.y)});
}

bool CoreRange::adjacent(const CoreRange& o) const {
  if (intersects(o)) return false;
  const bool x_overlap = start_coord.x <= o.end_coord.x && o.start_coord.x <= end_coord.x;
  const bool y_overlap = start_coord.y <= o.end_coord.y && o.start_coord.y <= end_coord.y;
  const bool x_touch = end_coord.x + 1 == o.start_coord.x || o.end_coord.x + 1 == start_coord.x;
  const bool y_touch = end_coord.y + 1 == o.start_coord.y || o.end_coord.y + 1 == start_coord.y;
  return (x_touch && y_overlap) || (y_touch && x_overlap);
}

std::optional<CoreRange> CoreRange::merge(const CoreRange& o) const {
  if (contains(o)) return *this;
  if (o.contains(*this)) return o;
  if (!intersects(o) && !adjacent(o)) return std::nullopt;
  const bool same_columns = start_coord.x == o.start_coord.x && end_coord.x == o.end_coord.x;
  const bool same_rows = start_coord.y == o.start_coord.y && end_coord.y == o.end_coord.y;
  if (!same_columns && !same_rows) return std::nullopt;
  return CoreRange({std::min(start_coord.x, o.start_coord.x), std::min(start_coord.y, o.start_coord.y)},
                   {std::max(end_coord.x, o.end_coord.x), std::max(end_coord.y, o.end_coord.y)});
}

uint32_t CoreRangeSet::num_cores() const {
  uint32_t n = 0;
  for (auto& r : ranges_)
    n += r.size();
  return n;
}

bool CoreRangeSet::contains(CoreCoord c) const {
  for (auto& r : ranges_)
    if (r.contains(c)) return true;
  return false;
}

bool CoreRangeSet::contains(const CoreRange& r) const {
  for (CoreCoord c : r)
    if (!contains(c)) return false;
  return true;
}

bool CoreRangeSet::contains(const CoreRangeSet& o) const {
  for (auto& r : o.ranges_)
    if (!contains(r)) return false;
  return true;
}

bool CoreRangeSet::intersects(const CoreRange& r) const {
  for (auto& a : ranges_)
    if (a.intersects(r)) return true;
  return false;
}

bool CoreRangeSet::intersects(const CoreRangeSet& o) const {
  for (auto& b : o.ranges_)
    if (intersects(b)) return true;
  return false;
}

CoreRange CoreRangeSet::bounding_box() const {
  if (ranges_.empty())
    throw ValidationError("CoreRangeSet::bounding_box: the set is empty: expected at least one core");
  CoreRange box = ranges_.front();
  for (auto& r : ranges_)
    box = CoreRange({std::min(box.start_coord.x, r.start_coord.x), std::min(box.start_coord.y, r.start_coord.y)},
                    {std::max(box.end_coord.x, r.end_coord.x), std::max(box.end_coord.y, r.end_coord.y)});
  return box;
}

CoreRangeSet CoreRangeSet::merge_ranges() const { return CoreRangeSet(rectangles_of(cores())); }

CoreRangeSet CoreRangeSet::merge(const CoreRangeSet& o) const {
  std::vector<CoreCoord> all = cores();
  const std::vector<CoreCoord> more = o.cores();
  all.insert(all.end(), more.begin(), more.end());
  return CoreRangeSet(rectangles_of(std::move(all)));
}

CoreRangeSet CoreRangeSet::subtract(const CoreRangeSet& o) const {
  std::vector<CoreCoord> left;
  for (CoreCoord c : cores())
    if (!o.contains(c)) left.push_back(c);
  return CoreRangeSet(rectangles_of(std::move(left)));
}

CoreRangeSet CoreRangeSet::intersection(const CoreRangeSet& o) const {
  std::vector<CoreCoord> both;
  for (CoreCoord c : cores())
    if (o.contains(c)) both.push_back(c);
  return CoreRangeSet(rectangles_of(std::move(both)));
}

std::vector<CoreCoord> CoreRangeSet::cores() const {
  std::vector<CoreCoord> v;
  for (auto& r : ranges_) {
    auto c = r.cores();
    v.insert(v.end(), c.begin(), c.end());
  }
  return v;
}

std::string CoreRangeSet::str() const {
  std::string s = "{";
  for (size_t i = 0; i < ranges_.size(); ++i)
    s += (i ? ", " : "") + ranges_[i].str();
  return s + "}";
}

} // namespace tessel
