// The small value helpers: core lists, datum sizes, runtime-arg views.
#include <algorithm>
#include <string>

#include "tessel/error.hpp"
#include "tessel/work_split.hpp"
#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/runtime_args_data.hpp"
#include "tt-metalium/tt_backend_api_types.hpp"
#include "tt-metalium/work_split.hpp"

std::vector<CoreCoord> corerange_to_cores(const CoreRangeSet& cores, std::optional<uint32_t> max_cores, bool row_wise) {
  std::vector<CoreCoord> out;
  const uint32_t limit = max_cores.value_or(cores.num_cores());
  for (const CoreRange& r : cores.ranges()) {
    const uint32_t outer_end = row_wise ? r.end_coord.y : r.end_coord.x,
                   inner_end = row_wise ? r.end_coord.x : r.end_coord.y;
    for (uint32_t o = row_wise ? r.start_coord.y : r.start_coord.x; o <= outer_end; ++o)
      for (uint32_t i = row_wise ? r.start_coord.x : r.start_coord.y; i <= inner_end; ++i) {
        if (out.size() == limit) return out;
        out.push_back(row_wise ? CoreCoord{i, o} : CoreCoord{o, i});
      }
  }
  return out;
}

std::vector<CoreCoord> grid_to_cores(uint32_t num_cores, uint32_t grid_size_x, uint32_t grid_size_y, bool row_wise) {
  if (uint64_t(num_cores) > uint64_t(grid_size_x) * grid_size_y) {
    const std::string message = "grid_to_cores: " + std::to_string(num_cores) + " cores asked of a " +
                                std::to_string(grid_size_x) + "x" + std::to_string(grid_size_y) +
                                " grid: expected at most " + std::to_string(uint64_t(grid_size_x) * grid_size_y);
    throw tessel::ValidationError(message);
  }
  std::vector<CoreCoord> out;
  out.reserve(num_cores);
  for (uint32_t i = 0; i < num_cores; ++i)
    out.push_back(row_wise ? CoreCoord{i % grid_size_x, i / grid_size_x} : CoreCoord{i / grid_size_y, i % grid_size_y});
  return out;
}

std::vector<CoreCoord> grid_to_cores(CoreCoord start, CoreCoord end, bool row_wise) {
  return corerange_to_cores(CoreRange(start, end), std::nullopt, row_wise);
}

namespace tt {

uint32_t datum_size(DataFormat format) {
  switch (format) {
  case DataFormat::Float32:
  case DataFormat::Int32:
  case DataFormat::UInt32: return 4;
  case DataFormat::Float16:
  case DataFormat::Float16_b:
  case DataFormat::UInt16: return 2;
  case DataFormat::Int8:
  case DataFormat::UInt8: return 1;
  default:
    throw tessel::ValidationError("tt::datum_size: " + tessel::to_string(format) +
                                  " has no per-value size (block-float formats share exponents; use tt::tile_size)");
  }
}

} // namespace tt

namespace tt::tt_metal {

namespace {
void check_index(size_t index, size_t count) {
  if (index >= count)
    throw tessel::ValidationError("RuntimeArgsData: index " + std::to_string(index) + " is past the " +
                                  std::to_string(count) + " runtime args set for this kernel");
}
} // namespace

uint32_t& RuntimeArgsData::at(size_t index) {
  check_index(index, rt_args_count);
  return rt_args_data[index];
}

const uint32_t& RuntimeArgsData::at(size_t index) const {
  check_index(index, rt_args_count);
  return rt_args_data[index];
}

std::tuple<uint32_t, CoreRangeSet, CoreRangeSet, CoreRangeSet, uint32_t, uint32_t>
split_work_to_cores(const CoreCoord grid_size, const uint32_t units_to_divide, const bool row_wise) {
  tessel::WorkSplit s = tessel::split_work_to_cores(grid_size, units_to_divide, row_wise);
  return {s.num_cores,          std::move(s.all_cores),   std::move(s.group_1),
          std::move(s.group_2), s.units_per_core_group_1, s.units_per_core_group_2};
}

namespace {

// Metalium's layout of `count` cores from `start` in a grid: the rest of the
// start's row (column), then whole rows (columns), then a partial one; each
// piece one range.
CoreRangeSet cores_from(CoreCoord start, uint32_t count, CoreCoord grid, bool row_wise) {
  const uint32_t along = row_wise ? grid.x : grid.y;  // cores per row (column)
  const uint32_t across = row_wise ? grid.y : grid.x; // rows (columns)
  const uint32_t first_line = row_wise ? start.y : start.x;
  const uint32_t first_pos = row_wise ? start.x : start.y;
  const uint64_t available = uint64_t(across - std::min(first_line, across)) * along - std::min(first_pos, along);
  if (start.x >= grid.x || start.y >= grid.y || count > available) {
    const std::string message = "num_cores_to_corerangeset: " + std::to_string(count) + " cores from " +
                                fmt::format("{}", start) + " in a " + std::to_string(grid.x) + "x" +
                                std::to_string(grid.y) + " grid: expected a start inside the grid and at most " +
                                std::to_string(start.x < grid.x && start.y < grid.y ? available : 0) + " cores";
    throw tessel::ValidationError(message);
  }
  // A range covering positions [p0, p1] of lines [l0, l1].
  auto range = [row_wise](uint32_t l0, uint32_t l1, uint32_t p0, uint32_t p1) {
    return row_wise ? CoreRange(CoreCoord{p0, l0}, CoreCoord{p1, l1}) : CoreRange(CoreCoord{l0, p0}, CoreCoord{l1, p1});
  };
  std::vector<CoreRange> ranges;
  uint32_t line = first_line, left = count;
  if (left > 0 && first_pos > 0) {
    const uint32_t n = std::min(left, along - first_pos);
    ranges.push_back(range(line, line, first_pos, first_pos + n - 1));
    left -= n;
    ++line;
  }
  if (left >= along) {
    const uint32_t lines = left / along;
    ranges.push_back(range(line, line + lines - 1, 0, along - 1));
    line += lines;
    left -= lines * along;
  }
  if (left > 0) ranges.push_back(range(line, line, 0, left - 1));
  return CoreRangeSet(std::move(ranges));
}

} // namespace

CoreRangeSet num_cores_to_corerangeset(uint32_t target_num_cores, CoreCoord grid_size, bool row_wise) {
  return cores_from(CoreCoord{0, 0}, target_num_cores, grid_size, row_wise);
}

CoreRangeSet num_cores_to_corerangeset(CoreCoord start_core, uint32_t target_num_cores, CoreCoord grid_size,
                                       bool row_wise) {
  return cores_from(start_core, target_num_cores, grid_size, row_wise);
}

} // namespace tt::tt_metal
