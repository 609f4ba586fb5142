// TT-Metalium's mesh coordinates, for 2-D meshes: MeshShape (rows x cols),
// MeshCoordinate (row, col), MeshCoordinateRange (an inclusive rectangle of
// coordinates, iterated row-major) and MeshCoordinateRangeSet (rectangles
// that do not overlap).
//
// A range's start may not lie past its end in either dimension: the
// constructor throws tessel::ValidationError. Whether a coordinate or range
// lies inside a particular mesh is checked by the calls that take them
// (MeshDevice, MeshBuffer, the distributed calls), which know the shape.
// Plain values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tt::tt_metal::distributed {

class MeshShape {
public:
  MeshShape(uint32_t num_rows, uint32_t num_cols) : rows_(num_rows), cols_(num_cols) {}
  uint32_t operator[](size_t dim) const { return dim == 0 ? rows_ : cols_; }
  size_t dims() const { return 2; }
  // Linear-index distance between neighbours along `dim` (row-major).
  size_t get_stride(size_t dim) const { return dim == 0 ? cols_ : 1; }
  size_t mesh_size() const { return size_t(rows_) * cols_; }
  std::string str() const;
  friend bool operator==(const MeshShape&, const MeshShape&) = default;

private:
  uint32_t rows_, cols_;
};

class MeshCoordinate {
public:
  MeshCoordinate(uint32_t row, uint32_t col) : row_(row), col_(col) {}
  static MeshCoordinate zero_coordinate(size_t /*dims*/) { return {0, 0}; }
  uint32_t operator[](size_t dim) const { return dim == 0 ? row_ : col_; }
  size_t dims() const { return 2; }
  // Row-major index in a mesh of `shape`; throws tessel::ValidationError if
  // the coordinate lies outside it.
  size_t to_linear_index(const MeshShape& shape) const;
  std::string str() const;
  friend bool operator==(const MeshCoordinate&, const MeshCoordinate&) = default;
  // Lexicographic: row first.
  friend auto operator<=>(const MeshCoordinate& a, const MeshCoordinate& b) {
    return a.row_ != b.row_ ? a.row_ <=> b.row_ : a.col_ <=> b.col_;
  }

private:
  uint32_t row_, col_;
};

// Free spelling of MeshCoordinate::to_linear_index.
size_t to_linear_index(const MeshShape& shape, const MeshCoordinate& coord);

class MeshCoordinateRange {
public:
  // Every coordinate of a mesh of this shape (which must have no zero dimension).
  explicit MeshCoordinateRange(const MeshShape& shape);
  MeshCoordinateRange(const MeshCoordinate& start, const MeshCoordinate& end);
  // The one coordinate.
  explicit MeshCoordinateRange(const MeshCoordinate& coord) : start_(coord), end_(coord) {}

  size_t dims() const { return 2; }
  const MeshCoordinate& start_coord() const { return start_; }
  const MeshCoordinate& end_coord() const { return end_; }
  // Rows x cols of the rectangle.
  MeshShape shape() const { return MeshShape(end_[0] - start_[0] + 1, end_[1] - start_[1] + 1); }
  size_t size() const { return shape().mesh_size(); }
  bool contains(const MeshCoordinate& coord) const {
    return coord[0] >= start_[0] && coord[0] <= end_[0] && coord[1] >= start_[1] && coord[1] <= end_[1];
  }
  bool contains(const MeshCoordinateRange& range) const {
    return contains(range.start_coord()) && contains(range.end_coord());
  }
  bool intersects(const MeshCoordinateRange& range) const { return intersection(range).has_value(); }
  std::optional<MeshCoordinateRange> intersection(const MeshCoordinateRange& range) const;
  std::string str() const;

  // Visits the coordinates row-major.
  class Iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = MeshCoordinate;
    using difference_type = std::ptrdiff_t;
    using pointer = const MeshCoordinate*;
    using reference = const MeshCoordinate&;

    Iterator& operator++();
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    const MeshCoordinate& operator*() const { return current_; }
    const MeshCoordinate* operator->() const { return &current_; }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

  private:
    friend class MeshCoordinateRange;
    Iterator(const MeshCoordinateRange* range, size_t index, MeshCoordinate current)
        : range_(range), index_(index), current_(current) {}
    const MeshCoordinateRange* range_;
    size_t index_; // how many coordinates precede current_ in the range
    MeshCoordinate current_;
  };
  Iterator begin() const { return Iterator(this, 0, start_); }
  Iterator end() const { return Iterator(this, size(), start_); }

  friend bool operator==(const MeshCoordinateRange&, const MeshCoordinateRange&) = default;
  // By start, then end: the order MeshCoordinateRangeSet keeps its ranges in.
  friend bool operator<(const MeshCoordinateRange& a, const MeshCoordinateRange& b) {
    return a.start_ != b.start_ ? a.start_ < b.start_ : a.end_ < b.end_;
  }

private:
  MeshCoordinate start_, end_;
};

// Ranges that cover each coordinate at most once. merge() adds the part of a
// range not yet covered, then joins ranges whose union is a rectangle; the
// set is not guaranteed minimal.
class MeshCoordinateRangeSet {
public:
  MeshCoordinateRangeSet() = default;
  explicit MeshCoordinateRangeSet(const MeshCoordinateRange& range) : ranges_{range} {}

  void merge(const MeshCoordinateRange& range);
  size_t size() const { return ranges_.size(); }
  bool empty() const { return ranges_.empty(); }
  // Sorted by start coordinate.
  const std::vector<MeshCoordinateRange>& ranges() const { return ranges_; }
  // Every covered coordinate, sorted lexicographically.
  std::vector<MeshCoordinate> coords() const;
  friend bool operator==(const MeshCoordinateRangeSet&, const MeshCoordinateRangeSet&) = default;

private:
  std::vector<MeshCoordinateRange> ranges_;
};

} // namespace tt::tt_metal::distributed

template <>
struct std::hash<tt::tt_metal::distributed::MeshCoordinate> {
  size_t operator()(const tt::tt_metal::distributed::MeshCoordinate& c) const { return (size_t(c[0]) << 32) ^ c[1]; }
};

template <>
struct std::hash<tt::tt_metal::distributed::MeshCoordinateRange> {
  size_t operator()(const tt::tt_metal::distributed::MeshCoordinateRange& r) const {
    const std::hash<tt::tt_metal::distributed::MeshCoordinate> coord_hash;
    return coord_hash(r.start_coord()) * 1000003u ^ coord_hash(r.end_coord());
  }
};
