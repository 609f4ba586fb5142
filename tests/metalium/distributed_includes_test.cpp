// What a Metalium mesh program reaches after including only distributed.hpp:
// the host API, fmt, TT_FATAL, the log calls, SystemMesh.
#include <gtest/gtest.h>

#include "tt-metalium/distributed.hpp"

namespace {

using namespace tt::tt_metal;

TEST(DistributedIncludesTest, DistributedHppReachesTheHostApiAndItsHelpers) {
  Program program = CreateProgram();
  program.set_runtime_id(42);
  EXPECT_EQ(program.get_runtime_id(), 42u);
  EXPECT_EQ(fmt::format("{}", CoreRange({0, 0}, {1, 1})), "[(x=0,y=0) - (x=1,y=1)]");
  EXPECT_THROW(TT_FATAL(program.num_kernels() == 1, "{} kernels", program.num_kernels()), tessel::Error);
  EXPECT_EQ(tt::constants::TILE_HW, 1024u);
  const std::vector<bfloat16> identity = create_identity_matrix(3, 4, 2);
  ASSERT_EQ(identity.size(), 12u);
  for (size_t i = 0; i < identity.size(); ++i)
    EXPECT_EQ(identity[i].to_float(), (i == 0 || i == 5) ? 1.0f : 0.0f) << i;
  EXPECT_THROW(create_identity_matrix(2, 2, 3), tessel::ValidationError);
}

} // namespace
