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
using CoreRangeIterator = ::tessel::CoreRangeIterator; // range-for over CoreRange: tessel's begin()/end()
} // namespace detail
} // namespace tt::tt_metal
