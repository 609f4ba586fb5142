#include "tessel/work_split.hpp"

#include <algorithm>

#include "tessel/error.hpp"

namespace tessel {

namespace {
// Cores [first, first + count) of the enumeration order, as rectangles: one per
// row (row_wise) or column segment.
CoreRangeSet cores_in_order(CoreCoord grid, uint32_t first, uint32_t count, bool row_wise) {
  std::vector<CoreRange> ranges;
  const uint32_t line = row_wise ? grid.x : grid.y;
  for (uint32_t i = first; i < first + count;) {
    const uint32_t major = i / line, minor = i % line;
    const uint32_t run = std::min(line - minor, first + count - i);
    if (row_wise)
      ranges.emplace_back(CoreCoord{minor, major}, CoreCoord{minor + run - 1, major});
    else
      ranges.emplace_back(CoreCoord{major, minor}, CoreCoord{major, minor + run - 1});
    i += run;
  }
  return CoreRangeSet(std::move(ranges));
}
} // namespace

WorkSplit split_work_to_cores(CoreCoord grid, uint32_t units, bool row_wise) {
  if (grid.x == 0 || grid.y == 0)
    throw ValidationError("split_work_to_cores: grid " + std::to_string(grid.x) + "x" + std::to_string(grid.y) +
                          " has no cores");
  WorkSplit w;
  const uint32_t cores = grid.x * grid.y;
  w.num_cores = units < cores ? units : cores;
  if (w.num_cores == 0) return w;
  const uint32_t base = units / w.num_cores, extra = units % w.num_cores;
  w.all_cores = cores_in_order(grid, 0, w.num_cores, row_wise);
  if (extra == 0) {
    w.group_1 = w.all_cores;
    w.units_per_core_group_1 = base;
  } else {
    w.group_1 = cores_in_order(grid, 0, extra, row_wise);
    w.group_2 = cores_in_order(grid, extra, w.num_cores - extra, row_wise);
    w.units_per_core_group_1 = base + 1;
    w.units_per_core_group_2 = base;
  }
  return w;
}

} // namespace tessel
