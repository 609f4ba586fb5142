// TT-Metalium's core coordinates, as tessel's types.
//
// CoreCoord, CoreRange and CoreRangeSet are tessel's (include/tessel/core_coord.hpp),
// reachable globally and in tt::tt_metal as Metalium code spells them. They
// differ from Metalium's in small ways: CoreCoord's members are uint32_t
// (Metalium: size_t) and its str() is "(1,2)", a CoreRange accepts its
// corners in either order, and CoreRangeSet keeps the ranges it was given
// (no merging). Range-for over a CoreRange visits its cores row-major
// (x fastest), as Metalium's does. fmt prints them as Metalium does:
// "(x=1,y=2)", "[(x=0,y=0) - (x=1,y=1)]", "{[...], [...]}".
//
// Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tt_stl/fmt.hpp"
#include "umd/device/types/xy_pair.hpp"

using CoreCoord = tessel::CoreCoord;
using CoreRange = tessel::CoreRange;
using CoreRangeSet = tessel::CoreRangeSet;

// The cores of `cores`, range by range: row-major within a range when
// row_wise, else column-major; at most max_cores of them.
std::vector<CoreCoord> corerange_to_cores(const CoreRangeSet& cores, std::optional<uint32_t> max_cores = std::nullopt,
                                          bool row_wise = false);

// The cores of `cores` in order, row-major when row_wise, else column-major.
std::vector<CoreCoord> grid_to_cores(uint32_t num_cores, uint32_t grid_size_x, uint32_t grid_size_y,
                                     bool row_wise = false);
std::vector<CoreCoord> grid_to_cores(CoreCoord start, CoreCoord end, bool row_wise = false);

template <>
struct fmt::formatter<tessel::CoreCoord> : tessel_compat::PlainFormatter {
  auto format(const tessel::CoreCoord& c, format_context& ctx) const -> format_context::iterator {
    return fmt::format_to(ctx.out(), "(x={},y={})", c.x, c.y);
  }
};
template <>
struct fmt::formatter<tessel::CoreRange> : tessel_compat::PlainFormatter {
  auto format(const tessel::CoreRange& r, format_context& ctx) const -> format_context::iterator {
    return fmt::format_to(ctx.out(), "[(x={},y={}) - (x={},y={})]", r.start_coord.x, r.start_coord.y, r.end_coord.x,
                          r.end_coord.y);
  }
};
template <>
struct fmt::formatter<tessel::CoreRangeSet> : tessel_compat::PlainFormatter {
  auto format(const tessel::CoreRangeSet& s, format_context& ctx) const -> format_context::iterator {
    return tessel_compat::format_sequence(ctx.out(), s.ranges().begin(), s.ranges().end());
  }
};

namespace tt::tt_metal {
using ::CoreCoord;
using ::CoreRange;
using ::corerange_to_cores;
using ::CoreRangeSet;
using ::grid_to_cores;

} // namespace tt::tt_metal
