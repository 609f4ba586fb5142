// The watchdog (src/sim/watchdog.cpp): a kernel spinning on L1 without calling
// the kernel API is stopped with a report naming core, RISC and source line.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kSpin = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  volatile uint32_t* flag = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  while (*flag == 0) {  // spin: never yields
  }
}
)";

constexpr const char* kBusy = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  // Long, legitimate work that keeps calling the kernel API.
  const uint32_t sem = get_semaphore(0);
  const uint32_t n = get_arg_val<uint32_t>(0);
  for (uint32_t i = 0; i < n; ++i) noc_semaphore_set(reinterpret_cast<volatile uint32_t*>(sem), i);
}
)";

class WatchdogTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("TESSEL_WATCHDOG_S", "0.3", 1);
    device = open_device();
  }
  void TearDown() override { unsetenv("TESSEL_WATCHDOG_S"); }
  std::shared_ptr<Device> device;
};

TEST_F(WatchdogTest, RawSpinLoopIsStoppedWithItsSourceLine) {
  Program p;
  p.add_semaphore(CoreCoord{1, 1}, 0);
  p.add_kernel_from_source(kSpin, "spin.cpp", CoreCoord{1, 1}, DataMovementConfig{});
  const std::string msg = error_of<KernelFault>(device->command_queue(), p);
  EXPECT_NE(msg.find("core (1,1) BRISC: kernel 'spin.cpp' crashed: ran for more than"), std::string::npos) << msg;
  EXPECT_NE(msg.find("raw spin loop"), std::string::npos) << msg;
  EXPECT_NE(msg.find("spin.cpp:4"), std::string::npos) << msg;
  expect_device_works(device);
}

TEST_F(WatchdogTest, BusyKernelThatCallsTheApiIsNotStopped) {
  Program p;
  p.add_semaphore(CoreCoord{0, 0}, 0);
  KernelHandle k = p.add_kernel_from_source(kBusy, "busy.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  // ~1 s of work at 0.3 s watchdog: progress is counted per API call, not per switch.
  p.set_runtime_args(k, CoreCoord{0, 0}, {60'000'000u});
  EXPECT_NO_THROW(device->command_queue().enqueue_program(p));
}

} // namespace
} // namespace tessel::test
