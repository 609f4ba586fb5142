// The small value helpers: core lists, datum sizes, runtime-arg views.
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
    const uint32_t outer_end = row_wise ? r.end.y : r.end.x, inner_end = row_wise ? r.end.x : r.end.y;
    for (uint32_t o = row_wise ? r.start.y : r.start.x; o <= outer_end; ++o)
      for (uint32_t i = row_wise ? r.start.x : r.start.y; i <= inner_end; ++i) {
        if (out.size() == limit) return out;
        out.push_back(row_wise ? CoreCoord{i, o} : CoreCoord{o, i});
      }
  }
  return out;
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

} // namespace tt::tt_metal
