// The compute calls of ttnn's pooling kernels that tessel does not model
// (kernel/include/tessel/pool_not_modelled.h): the headers that declare them
// build, ckernel::DataLayout and llk_math_reconfig_remap (a no-op: tessel's
// DST has no address remap) are there, and calling one fails to compile,
// naming it and saying why.
#include <gtest/gtest.h>

#include <string>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kIncludes = R"(#include "api/compute/compute_kernel_api.h"
#include "api/compute/tilize.h"
#include "api/compute/reduce.h"
#include "compute_kernel_api.h"
#include "compute_kernel_api/tilize.h"
static_assert(uint32_t(ckernel::DataLayout::ROW_MAJOR) == 1);
void kernel_main() { MATH((llk_math_reconfig_remap(true))); }
)";

std::string compile_error(const std::shared_ptr<Device>& device, const std::string& body) {
  Program p;
  p.add_kernel_from_source("#include \"api/compute/compute_kernel_api.h\"\n#include \"api/compute/tilize.h\"\n"
                           "#include \"api/compute/reduce.h\"\nvoid kernel_main() { " +
                               body + " }\n",
                           "pool.cpp", CoreCoord{0, 0}, ComputeConfig{});
  return error_of<ProgramError>(device->command_queue(), p);
}

TEST(PoolNotModelledTest, HeadersBuildAndCallsAreRefusedByName) {
  auto device = open_device("blackhole", 1, 1);
  Program p;
  p.add_kernel_from_source(kIncludes, "includes.cpp", CoreCoord{0, 0}, ComputeConfig{});
  device->command_queue().enqueue_program(p);

  const std::string tilize_ab = " is not supported by tessel: the unpacker's tilize of a block of sticks beside a "
                                "scaler (tilizeA_B), whose result depends on the CB's face geometry, is not modelled";
  const std::string mpwi = " is not supported by tessel: max pool with indices (an SFPU sort of rows in the layout "
                           "the CB's face geometry gave them) is not modelled";
  struct Call {
    const char* body;
    std::string message;
  };
  const Call calls[] = {
      {"tilizeA_B_reduce_init<true, false>(0, 1, 8, 16);", "tilizeA_B_reduce_init" + tilize_ab},
      {"unpack_tilizeA_B_block<false, true, false, true>(0, 1, 8, 0);", "unpack_tilizeA_B_block" + tilize_ab},
      {"UNPACK((llk_unpack_tilizeA_B_init<true, true, false, false>(0, 1, 8)));",
       "llk_unpack_tilizeA_B_init" + tilize_ab},
      {"unpack_tilizeA_B_uninit(0);", "unpack_tilizeA_B_uninit" + tilize_ab},
      {"reduce_tile_math<PoolType::MAX, ReduceDim::REDUCE_COL>(0, 2);",
       "reduce_tile_math is not supported by tessel: the math half of reduce_tile (over source registers an unpack "
       "call left), used only after the tilizeA_B unpack, is not modelled"},
      {"max_reduce_with_indices_init<ckernel::DataLayout::ROW_MAJOR>();", "max_reduce_with_indices_init" + mpwi},
      {"max_reduce_with_indices<9, ckernel::DataLayout::ROW_MAJOR, false>(0, 2, 0);", "max_reduce_with_indices" + mpwi},
  };
  for (const Call& c : calls) {
    const std::string error = compile_error(device, c.body);
    EXPECT_NE(error.find(c.message), std::string::npos) << c.body << "\n" << error;
  }
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
