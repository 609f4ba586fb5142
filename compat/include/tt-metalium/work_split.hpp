// TT-Metalium's split_work_to_cores over tessel's (include/tessel/work_split.hpp):
//   auto [num_cores, all_cores, core_group_1, core_group_2, units_per_core_1,
//         units_per_core_2] = split_work_to_cores(grid, units);
// Cores are taken column-major from (0,0) (row-major when row_wise), and
// group 1 gets the extra unit when the split is uneven.
//
// Defined out of line so that this header does not declare
// tessel::split_work_to_cores: argument-dependent lookup on CoreCoord (a
// tessel type) would find it too and make unqualified calls ambiguous. For
// the same reason a file using this one should not include
// tessel/work_split.hpp (or tessel/tessel.hpp).
#pragma once

#include <cstdint>
#include <tuple>

#include "tt-metalium/core_coord.hpp"

namespace tt::tt_metal {

std::tuple<uint32_t, CoreRangeSet, CoreRangeSet, CoreRangeSet, uint32_t, uint32_t>
split_work_to_cores(const CoreCoord grid_size, const uint32_t units_to_divide, const bool row_wise = false);

// `target_num_cores` cores of a grid as ranges, column by column from (0,0)
// (row by row when row_wise), or from `start_core` on: whole columns (rows)
// make one range, the partial ones one each. Throws tessel::ValidationError
// when the cores do not fit.
CoreRangeSet num_cores_to_corerangeset(uint32_t target_num_cores, CoreCoord grid_size, bool row_wise = false);
CoreRangeSet num_cores_to_corerangeset(CoreCoord start_core, uint32_t target_num_cores, CoreCoord grid_size,
                                       bool row_wise = false);

} // namespace tt::tt_metal
