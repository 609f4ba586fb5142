// The SFPU op headers ttnn's unary compute kernels include for whichever op
// chain the host picks (eltwise_sfpu.cpp, eltwise_sfpu_metal2.cpp): rpow.h
// (modelled) and rdiv.h (whose op tessel does not model) build together when
// included; a call of rdiv's functions fails to compile, naming it.
#include <gtest/gtest.h>

#include <string>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kIncludes = R"(#include "api/compute/eltwise_unary/rpow.h"
#include "api/compute/eltwise_unary/rdiv.h"
#include "compute_kernel_api/eltwise_unary/rpow.h"
#include "compute_kernel_api/eltwise_unary/rdiv.h"
#include "api/compute/eltwise_unary/exp.h"
static_assert(uint32_t(ckernel::RoundingMode::Floor) == 2);
void kernel_main() {}
)";

TEST(UnaryChainHeadersTest, RpowAndRdivHeadersBuildAndRdivCallsAreRefused) {
  auto device = open_device();
  Program p;
  p.add_kernel_from_source(kIncludes, "includes.cpp", CoreCoord{0, 0}, ComputeConfig{});
  device->command_queue().enqueue_program(p);

  Program rdiv;
  rdiv.add_kernel_from_source("#include \"compute_kernel_api/eltwise_unary/rdiv.h\"\n"
                              "void kernel_main() { rdiv_tile<ckernel::RoundingMode::Floor>(0, 0x40000000u); }\n",
                              "rdiv.cpp", CoreCoord{0, 0}, ComputeConfig{});
  const std::string rdiv_error = error_of<ProgramError>(device->command_queue(), rdiv);
  EXPECT_NE(
      rdiv_error.find("rdiv_tile is not supported by tessel: rdiv (a scalar divided by each element) is not modelled"),
      std::string::npos)
      << rdiv_error;
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
