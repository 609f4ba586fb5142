// split_work_to_cores: counts, groups, enumeration order.
#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/work_split.hpp"

namespace tessel::test {
namespace {

uint32_t total_units(const WorkSplit& w) {
  return w.group_1.num_cores() * w.units_per_core_group_1 + w.group_2.num_cores() * w.units_per_core_group_2;
}

TEST(WorkSplitTest, UnevenSplitGivesGroupOneAnExtraUnit) {
  const WorkSplit w = split_work_to_cores({12, 10}, 400); // 400 = 120 * 3 + 40
  EXPECT_EQ(w.num_cores, 120u);
  EXPECT_EQ(w.units_per_core_group_1, 4u);
  EXPECT_EQ(w.units_per_core_group_2, 3u);
  EXPECT_EQ(w.group_1.num_cores(), 40u);
  EXPECT_EQ(w.group_2.num_cores(), 80u);
  EXPECT_EQ(total_units(w), 400u);
  EXPECT_EQ(w.all_cores.num_cores(), 120u);
  // Column-major by default: the first 40 cores are columns 0..3 (10 rows each).
  EXPECT_EQ(w.group_1.str(), "{(0,0)-(0,9), (1,0)-(1,9), (2,0)-(2,9), (3,0)-(3,9)}");
  EXPECT_TRUE(w.group_2.contains({4, 0}));
  EXPECT_FALSE(w.group_1.intersects(w.group_2));
}

TEST(WorkSplitTest, RowWiseAndFewerUnitsThanCores) {
  const WorkSplit w = split_work_to_cores({4, 3}, 6, true);
  EXPECT_EQ(w.num_cores, 6u);
  EXPECT_EQ(w.units_per_core_group_1, 1u);
  EXPECT_EQ(w.group_2.num_cores(), 0u);
  EXPECT_EQ(w.all_cores.str(), "{(0,0)-(3,0), (0,1)-(1,1)}");
}

TEST(WorkSplitTest, EvenSplitAndEdgeCases) {
  const WorkSplit even = split_work_to_cores({2, 2}, 8);
  EXPECT_EQ(even.units_per_core_group_1, 2u);
  EXPECT_EQ(even.group_1.num_cores(), 4u);
  EXPECT_EQ(even.units_per_core_group_2, 0u);
  EXPECT_EQ(split_work_to_cores({2, 2}, 0).num_cores, 0u);
  EXPECT_THROW(split_work_to_cores({0, 3}, 5), ValidationError);
}

} // namespace
} // namespace tessel::test

namespace tessel {
namespace {
// Range-for over a CoreRange walks it row-major.
TEST(CoreRangeIteration, RowMajorOverEveryCore) {
  std::vector<CoreCoord> seen;
  for (CoreCoord c : CoreRange({1, 2}, {3, 3}))
    seen.push_back(c);
  EXPECT_EQ(seen, (std::vector<CoreCoord>{{1, 2}, {2, 2}, {3, 2}, {1, 3}, {2, 3}, {3, 3}}));
  EXPECT_EQ(seen, CoreRange({1, 2}, {3, 3}).cores());
  int n = 0;
  for (CoreCoord c : CoreRange({0, 0}, {0, 0}))
    n += int(c.x + c.y) + 1;
  EXPECT_EQ(n, 1);
}
} // namespace
} // namespace tessel
