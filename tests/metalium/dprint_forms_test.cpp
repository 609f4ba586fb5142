// DPRINT as today's Metalium spells it: the function-style form
// DPRINT("x = {}\n", x) beside the stream form, the per-RISC macros with
// either form, and compute kernels printing once per thread (TR0 unpack, TR1
// math, TR2 pack), or from the one thread a DPRINT_UNPACK/MATH/PACK names.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kMover = R"(void kernel_main() {
  DPRINT("x = {} y = {}\n", 3u, 4.5f);
  DPRINT("{{braces}} {} and {:x}\n", -7, 255u);
  DPRINT_DATA0("only on BRISC {}\n", 1u);
  DPRINT_DATA1(DPRINT << "never: this kernel is on BRISC" << ENDL());
  DPRINT_DATA0({ DPRINT << "a block " << 2u << ENDL(); });
  DEVICE_PRINT("device print {}\n", 9u);
}
)";

constexpr const char* kCompute = R"(void kernel_main() {
  DPRINT << "every thread" << ENDL();
  DPRINT_UNPACK(DPRINT << "unpack stream" << ENDL(););
  DPRINT_MATH("math literal\n");
  DPRINT_PACK({ DPRINT << "pack block" << ENDL(); });
  DPRINT_MATH("math {} of {}\n", 1u, 3u);
  DPRINT_PACK("no newline: printed when the kernel ends");
}
)";

std::string run_and_capture(const std::shared_ptr<Device>& device) {
  Program p;
  p.add_kernel_from_source(kMover, "mover.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.add_kernel_from_source(kCompute, "computer.cpp", CoreCoord{0, 0}, ComputeConfig{});
  testing::internal::CaptureStdout();
  device->command_queue().enqueue_program(p);
  return testing::internal::GetCapturedStdout();
}

TEST(DprintFormsTest, BothFormsOnEveryRiscTaggedWithItsThread) {
  setenv("TESSEL_DPRINT_CORES", "0,0", 1);
  auto device = open_device();
  unsetenv("TESSEL_DPRINT_CORES");
  const std::string out = run_and_capture(device);
  const std::string br = "0:(x=0,y=0):BR: ";
  const auto tr = [](int t) { return "0:(x=0,y=0):TR" + std::to_string(t) + ": "; };
  // Data movement: BRISC lines in program order; nothing from the DATA1 line.
  const std::string mover = br + "x = 3 y = 4.5\n" + br + "{braces} -7 and 255\n" + br + "only on BRISC 1\n" + br +
                            "a block 2\n" + br + "device print 9\n";
  EXPECT_NE(out.find(mover), std::string::npos) << out;
  EXPECT_EQ(out.find("never"), std::string::npos) << out;
  // Compute: a plain DPRINT from each thread, the named ones once.
  const std::string compute = tr(0) + "every thread\n" + tr(1) + "every thread\n" + tr(2) + "every thread\n" + tr(0) +
                              "unpack stream\n" + tr(1) + "math literal\n" + tr(2) + "pack block\n" + tr(1) +
                              "math 1 of 3\n" + tr(2) + "no newline: printed when the kernel ends\n";
  EXPECT_NE(out.find(compute), std::string::npos) << out;
}

TEST(DprintFormsTest, NothingPrintsOnCoresThatAreNotSelected) {
  unsetenv("TESSEL_DPRINT_CORES");
  EXPECT_EQ(run_and_capture(open_device()), "");
}

} // namespace
} // namespace tessel::test
