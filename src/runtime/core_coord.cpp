#include "tessel/core_coord.hpp"

namespace tessel {

std::vector<CoreCoord> CoreRange::cores() const {
  std::vector<CoreCoord> v;
  v.reserve(size());
  for (uint32_t y = start.y; y <= end.y; ++y)
    for (uint32_t x = start.x; x <= end.x; ++x)
      v.push_back({x, y});
  return v;
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

bool CoreRangeSet::intersects(const CoreRangeSet& o) const {
  for (auto& a : ranges_)
    for (auto& b : o.ranges_)
      if (a.intersects(b)) return true;
  return false;
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
