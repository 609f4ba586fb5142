// Interrupt requests (include/tessel/interrupt.hpp): a run in progress stops
// with tessel::Interrupted soon after tessel::request_interrupt(), whether its
// kernels switch fibers all the time or one of them spins without calling
// anything, and the device runs the next program normally.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ops_kernel.hpp"
#include "tessel/interrupt.hpp"

namespace tessel::test {
namespace {

// Two RISCs passing pages forever: a run that switches fibers constantly.
constexpr const char* kForeverProducer = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  for (;;) { cb_reserve_back(0, 1); cb_push_back(0, 1); }
}
)";
constexpr const char* kForeverConsumer = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  for (;;) { cb_wait_front(0, 1); cb_pop_front(0, 1); }
}
)";
// One RISC that never calls the kernel API.
constexpr const char* kSpin = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  volatile uint32_t* flag = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  while (*flag == 0) {
  }
}
)";

// Runs p while another thread requests an interrupt after 50 ms; returns the
// Interrupted message and how long the run went on after the request.
std::pair<std::string, double> interrupted_run(const std::shared_ptr<Device>& device, Program& p) {
  clear_interrupt();
  std::chrono::steady_clock::time_point requested;
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    requested = std::chrono::steady_clock::now();
    request_interrupt();
  });
  std::string message = error_of<Interrupted>(device->command_queue(), p);
  const auto stopped = std::chrono::steady_clock::now();
  interrupter.join();
  clear_interrupt();
  return {message, std::chrono::duration<double, std::milli>(stopped - requested).count()};
}

class InterruptTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("TESSEL_WATCHDOG_S", "0", 1); // only the interrupt may stop these runs
    device = open_device();
  }
  void TearDown() override {
    unsetenv("TESSEL_WATCHDOG_S");
    clear_interrupt();
  }
  std::shared_ptr<Device> device;
};

TEST_F(InterruptTest, StopsARunThatSwitchesFibers) {
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, one_cb_config(4096, 2048));
  p.add_kernel_from_source(kForeverProducer, "producer.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.add_kernel_from_source(kForeverConsumer, "consumer.cpp", CoreCoord{0, 0},
                           DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  const auto [message, ms] = interrupted_run(device, p);
  EXPECT_NE(message.find("the run was interrupted (tessel::request_interrupt, Ctrl-C) after "), std::string::npos)
      << message;
  EXPECT_NE(message.find("fiber switches of its 2 kernels; it was stopped and the device stays usable"),
            std::string::npos)
      << message;
  EXPECT_LT(ms, 10000.0); // stopped, not left running (how promptly: python -m tessel bench interrupt)
  expect_device_works(device);
}

TEST_F(InterruptTest, StopsAKernelThatNeverSwitches) {
  SKIP_UNDER_TSAN();
  Program p;
  p.add_semaphore(CoreCoord{1, 0}, 0);
  p.add_kernel_from_source(kSpin, "spin.cpp", CoreCoord{1, 0}, DataMovementConfig{});
  const auto [message, ms] = interrupted_run(device, p);
  EXPECT_NE(message.find("fiber switches of its 1 kernels"), std::string::npos) << message;
  EXPECT_LT(ms, 10000.0); // stopped, not left running (how promptly: python -m tessel bench interrupt)
  expect_device_works(device);
}

TEST_F(InterruptTest, APendingRequestStopsTheNextRunUntilCleared) {
  Program p;
  p.add_semaphore(CoreCoord{1, 0}, 1); // the spin ends at once
  p.add_kernel_from_source(kSpin, "spin.cpp", CoreCoord{1, 0}, DataMovementConfig{});
  request_interrupt();
  EXPECT_TRUE(interrupt_requested());
  error_of<Interrupted>(device->command_queue(), p);
  clear_interrupt();
  device->command_queue().enqueue_program(p);
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
