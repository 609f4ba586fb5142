// TT-Metalium's mesh coordinates, for 2-D meshes: MeshShape (rows x cols),
// MeshCoordinate (row, col) and MeshCoordinateRange (an inclusive rectangle
// of coordinates). tessel's meshes are 1x1, so the only coordinate is (0, 0).
// Plain values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace tt::tt_metal::distributed {

class MeshShape {
public:
  MeshShape(uint32_t num_rows, uint32_t num_cols) : rows_(num_rows), cols_(num_cols) {}
  uint32_t operator[](size_t dim) const { return dim == 0 ? rows_ : cols_; }
  size_t dims() const { return 2; }
  size_t mesh_size() const { return size_t(rows_) * cols_; }
  std::string str() const { return "MeshShape([" + std::to_string(rows_) + ", " + std::to_string(cols_) + "])"; }
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
  std::string str() const { return "MeshCoordinate([" + std::to_string(row_) + ", " + std::to_string(col_) + "])"; }
  friend bool operator==(const MeshCoordinate&, const MeshCoordinate&) = default;

private:
  uint32_t row_, col_;
};

class MeshCoordinateRange {
public:
  // Every coordinate of a mesh of this shape.
  explicit MeshCoordinateRange(const MeshShape& shape)
      : start_(0, 0), end_(shape[0] == 0 ? 0 : shape[0] - 1, shape[1] == 0 ? 0 : shape[1] - 1) {}
  MeshCoordinateRange(const MeshCoordinate& start, const MeshCoordinate& end) : start_(start), end_(end) {}
  // The one coordinate.
  explicit MeshCoordinateRange(const MeshCoordinate& coord) : start_(coord), end_(coord) {}

  const MeshCoordinate& start_coord() const { return start_; }
  const MeshCoordinate& end_coord() const { return end_; }
  bool contains(const MeshCoordinate& c) const {
    return c[0] >= start_[0] && c[0] <= end_[0] && c[1] >= start_[1] && c[1] <= end_[1];
  }
  std::string str() const { return "MeshCoordinateRange(" + start_.str() + ", " + end_.str() + ")"; }
  friend bool operator==(const MeshCoordinateRange&, const MeshCoordinateRange&) = default;

private:
  MeshCoordinate start_, end_;
};

} // namespace tt::tt_metal::distributed

template <>
struct std::hash<tt::tt_metal::distributed::MeshCoordinateRange> {
  size_t operator()(const tt::tt_metal::distributed::MeshCoordinateRange& r) const {
    size_t h = 0;
    for (uint32_t v : {r.start_coord()[0], r.start_coord()[1], r.end_coord()[0], r.end_coord()[1]})
      h = h * 1000003u ^ v;
    return h;
  }
};
