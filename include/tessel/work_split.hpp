// Splitting work units over a grid of cores, as TT-Metalium's
// split_work_to_cores does: every core gets units / cores units, and the
// first units % cores cores (group 1) get one more.
#pragma once

#include <cstdint>

#include "tessel/core_coord.hpp"

namespace tessel {

struct WorkSplit {
  uint32_t num_cores = 0; // cores that get work: min(units, grid cores)
  CoreRangeSet all_cores; // group_1 and group_2 together
  CoreRangeSet group_1;   // cores with units_per_core_group_1 units
  CoreRangeSet group_2;   // cores with units_per_core_group_2 units (may be empty)
  uint32_t units_per_core_group_1 = 0;
  uint32_t units_per_core_group_2 = 0;
};

// Cores are taken in row-major order (x fastest) when row_wise, else in
// column-major order (y fastest), from logical (0,0). units == 0 gives no cores.
WorkSplit split_work_to_cores(CoreCoord grid, uint32_t units, bool row_wise = false);

} // namespace tessel
