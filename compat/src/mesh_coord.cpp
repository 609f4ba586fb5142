// Mesh shapes, coordinates, ranges and range sets.
#include "tt-metalium/mesh_coord.hpp"

#include <algorithm>
#include <string>

#include "tessel/error.hpp"

namespace tt::tt_metal::distributed {

namespace {

// The parts of `range` outside `hole` (at most four rectangles: the rows
// above and below the hole, then the columns left and right of it).
std::vector<MeshCoordinateRange> subtract(const MeshCoordinateRange& range, const MeshCoordinateRange& hole) {
  const std::optional<MeshCoordinateRange> overlap = range.intersection(hole);
  if (!overlap) return {range};
  const MeshCoordinate& s = range.start_coord();
  const MeshCoordinate& e = range.end_coord();
  const MeshCoordinate& os = overlap->start_coord();
  const MeshCoordinate& oe = overlap->end_coord();
  std::vector<MeshCoordinateRange> parts;
  if (os[0] > s[0]) parts.emplace_back(s, MeshCoordinate(os[0] - 1, e[1]));
  if (oe[0] < e[0]) parts.emplace_back(MeshCoordinate(oe[0] + 1, s[1]), e);
  if (os[1] > s[1]) parts.emplace_back(MeshCoordinate(os[0], s[1]), MeshCoordinate(oe[0], os[1] - 1));
  if (oe[1] < e[1]) parts.emplace_back(MeshCoordinate(os[0], oe[1] + 1), MeshCoordinate(oe[0], e[1]));
  return parts;
}

// The union of two disjoint ranges if it is a rectangle: they span the same
// rows and touch side by side, or the same columns and touch one above the other.
std::optional<MeshCoordinateRange> join(const MeshCoordinateRange& a, const MeshCoordinateRange& b) {
  const MeshCoordinate &as = a.start_coord(), &ae = a.end_coord();
  const MeshCoordinate &bs = b.start_coord(), &be = b.end_coord();
  const bool same_rows = as[0] == bs[0] && ae[0] == be[0];
  const bool same_cols = as[1] == bs[1] && ae[1] == be[1];
  if (same_rows && (ae[1] + 1 == bs[1] || be[1] + 1 == as[1]))
    return MeshCoordinateRange(MeshCoordinate(as[0], std::min(as[1], bs[1])),
                               MeshCoordinate(ae[0], std::max(ae[1], be[1])));
  if (same_cols && (ae[0] + 1 == bs[0] || be[0] + 1 == as[0]))
    return MeshCoordinateRange(MeshCoordinate(std::min(as[0], bs[0]), as[1]),
                               MeshCoordinate(std::max(ae[0], be[0]), ae[1]));
  return std::nullopt;
}

} // namespace

std::string MeshShape::str() const {
  return "MeshShape([" + std::to_string(rows_) + ", " + std::to_string(cols_) + "])";
}

std::string MeshCoordinate::str() const {
  return "MeshCoordinate([" + std::to_string(row_) + ", " + std::to_string(col_) + "])";
}

size_t MeshCoordinate::to_linear_index(const MeshShape& shape) const {
  if (row_ >= shape[0] || col_ >= shape[1]) {
    const std::string message = str() + " is outside " + shape.str() + ": rows go up to " +
                                std::to_string(int64_t(shape[0]) - 1) + " and columns up to " +
                                std::to_string(int64_t(shape[1]) - 1);
    throw tessel::ValidationError(message);
  }
  return size_t(row_) * shape[1] + col_;
}

size_t to_linear_index(const MeshShape& shape, const MeshCoordinate& coord) { return coord.to_linear_index(shape); }

MeshCoordinateRange::MeshCoordinateRange(const MeshShape& shape) : start_(0, 0), end_(0, 0) {
  if (shape[0] == 0 || shape[1] == 0) {
    const std::string message = "MeshCoordinateRange: " + shape.str() +
                                " has no coordinates; both dimensions "
                                "must be at least 1";
    throw tessel::ValidationError(message);
  }
  end_ = MeshCoordinate(shape[0] - 1, shape[1] - 1);
}

MeshCoordinateRange::MeshCoordinateRange(const MeshCoordinate& start, const MeshCoordinate& end)
    : start_(start), end_(end) {
  if (start[0] > end[0] || start[1] > end[1]) {
    const std::string message = "MeshCoordinateRange: start " + start.str() + " lies past end " + end.str() +
                                "; the start's row and column must each be at most the end's";
    throw tessel::ValidationError(message);
  }
}

std::optional<MeshCoordinateRange> MeshCoordinateRange::intersection(const MeshCoordinateRange& range) const {
  const uint32_t row0 = std::max(start_[0], range.start_[0]), row1 = std::min(end_[0], range.end_[0]);
  const uint32_t col0 = std::max(start_[1], range.start_[1]), col1 = std::min(end_[1], range.end_[1]);
  if (row0 > row1 || col0 > col1) return std::nullopt;
  return MeshCoordinateRange(MeshCoordinate(row0, col0), MeshCoordinate(row1, col1));
}

std::string MeshCoordinateRange::str() const { return "MeshCoordinateRange(" + start_.str() + ", " + end_.str() + ")"; }

MeshCoordinateRange::Iterator& MeshCoordinateRange::Iterator::operator++() {
  ++index_;
  const uint32_t next_col = current_[1] + 1;
  current_ = next_col <= range_->end_[1] ? MeshCoordinate(current_[0], next_col)
                                         : MeshCoordinate(current_[0] + 1, range_->start_[1]);
  return *this;
}

void MeshCoordinateRangeSet::merge(const MeshCoordinateRange& range) {
  std::vector<MeshCoordinateRange> uncovered{range};
  for (const MeshCoordinateRange& held : ranges_) {
    std::vector<MeshCoordinateRange> remaining;
    for (const MeshCoordinateRange& part : uncovered)
      for (const MeshCoordinateRange& piece : subtract(part, held))
        remaining.push_back(piece);
    uncovered = std::move(remaining);
  }
  ranges_.insert(ranges_.end(), uncovered.begin(), uncovered.end());
  // Join pairs until no two ranges form a rectangle together.
  for (bool joined = true; joined;) {
    joined = false;
    for (size_t i = 0; i < ranges_.size() && !joined; ++i)
      for (size_t j = i + 1; j < ranges_.size() && !joined; ++j)
        if (std::optional<MeshCoordinateRange> both = join(ranges_[i], ranges_[j])) {
          ranges_[i] = *both;
          ranges_.erase(ranges_.begin() + std::ptrdiff_t(j));
          joined = true;
        }
  }
  std::sort(ranges_.begin(), ranges_.end());
}

std::vector<MeshCoordinate> MeshCoordinateRangeSet::coords() const {
  std::vector<MeshCoordinate> all;
  for (const MeshCoordinateRange& range : ranges_)
    all.insert(all.end(), range.begin(), range.end());
  std::sort(all.begin(), all.end());
  return all;
}

} // namespace tt::tt_metal::distributed
