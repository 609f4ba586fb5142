// TT-Metalium's tt::stl::StrongType: a value of T that does not mix with
// other StrongTypes of T (Rank, Size, MeshId, ...). *x and x.get() give the value.
#pragma once

#include <compare>
#include <functional>
#include <utility>

namespace tt::stl {

template <typename T, typename Tag>
class StrongType {
public:
  constexpr StrongType() = default;
  constexpr explicit StrongType(T value) : value_(std::move(value)) {}
  constexpr const T& operator*() const { return value_; }
  constexpr T& operator*() { return value_; }
  constexpr const T& get() const { return value_; }
  constexpr T& get() { return value_; }
  friend constexpr auto operator<=>(const StrongType&, const StrongType&) = default;
  friend constexpr bool operator==(const StrongType&, const StrongType&) = default;

private:
  T value_{};
};

} // namespace tt::stl

template <typename T, typename Tag>
struct std::hash<tt::stl::StrongType<T, Tag>> {
  size_t operator()(const tt::stl::StrongType<T, Tag>& v) const { return std::hash<T>()(*v); }
};
