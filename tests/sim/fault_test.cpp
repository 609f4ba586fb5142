// Faults in kernel code (src/sim/fault.cpp, chip.cpp): a null pointer, stack overflow, and argument checks; each is
// reported with core, RISC and source line, and the device stays usable.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

class FaultTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = open_device();
    rec = std::make_unique<Recorder>(device);
  }
  template <class E>
  std::string error(const Script& script, CoreCoord core = {0, 0},
                    DataMovementProcessor risc = DataMovementProcessor::RISCV_0) {
    Program p;
    set_script(p, add_ops(p, core, risc), core, script, *rec);
    std::string message = error_of<E>(device->command_queue(), p);
    expect_device_works(device);
    return message;
  }
  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
};

TEST_F(FaultTest, NullPointerFaults) {
  const std::string message = error<KernelFault>(Script().op(kFaultStore, 0, 1));
  EXPECT_NE(message.find("core (0,0) BRISC: kernel 'ops.cpp' crashed: null pointer dereference (address 0x0)"),
            std::string::npos)
      << message;
  if (have_addr2line()) {
    EXPECT_NE(message.find(ops_site("fault_store") + ": core (0,0) BRISC"), std::string::npos) << message;
  }
}

TEST_F(FaultTest, RepeatedFaultsAreEachReported) {
  for (int i = 0; i < 3; ++i)
    EXPECT_NE(error<KernelFault>(Script().op(kFaultStore, 64, 1)).find("crashed: invalid memory access at 0x40"),
              std::string::npos);
}

TEST_F(FaultTest, DeepRecursionOverflowsTheStack) {
  const std::string message = error<KernelFault>(Script().op(kRecurse, 100000, 0), {1, 1});
  EXPECT_NE(message.find("core (1,1) BRISC: kernel 'ops.cpp' crashed: stack overflow (the kernel's stack is "),
            std::string::npos)
      << message;
  // Recursion that fits runs normally.
  Program p;
  set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kRecurse, 10, 3), *rec);
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec->at(3), 55u);
}

TEST_F(FaultTest, FaultStopsTheOtherRiscsOfTheLaunch) {
  // NCRISC waits on a CB that BRISC would fill after faulting: the launch
  // ends with the fault, not with a deadlock or a hang.
  Program p;
  CircularBufferConfig config(64, {{0, DataFormat::Float16_b}});
  config.set_page_size(0, 32);
  p.add_circular_buffer(CoreCoord{0, 0}, config);
  set_script(p, add_ops(p, CoreCoord{0, 0}, DataMovementProcessor::RISCV_1), CoreCoord{0, 0},
             Script().op(kWait, 0, 1, 1), *rec);
  set_script(p, add_ops(p, CoreCoord{0, 0}, DataMovementProcessor::RISCV_0), CoreCoord{0, 0},
             Script().op(kFaultStore, 0x100, 1).op(kReserve, 0, 1, 1).op(kPush, 0, 1, 1), *rec);
  EXPECT_NE(error_of<KernelFault>(device->command_queue(), p).find("core (0,0) BRISC: kernel 'ops.cpp' crashed"),
            std::string::npos);
  expect_device_works(device);
}

TEST_F(FaultTest, ArgumentIndexPastTheArgumentAreaFails) {
  // One step: 4 header words + 8 step words; the area holds TESSEL_MAX_RUNTIME_ARGS words.
  EXPECT_EQ(error<KernelError>(Script().op(kArg, 341, 0)),
            ops_site("arg") + ": core (0,0) BRISC: get_arg_val(341): runtime argument index out of range: this core "
                              "was given 12 runtime arguments");
}

TEST_F(FaultTest, AnArgumentPastTheOnesGivenIsAWarning) {
  // Silicon reads whatever the argument area holds there (Metalium's watcher
  // asserts): a warning, an error under TESSEL_STRICT=1.
  Program p;
  set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kArg, 50, 0), *rec);
  const std::string message =
      ops_site("arg") + ": core (0,0) BRISC: get_arg_val(50): reads past the 12 runtime arguments this core was "
                        "given: silicon reads whatever the argument area holds there (Metalium's watcher stops the "
                        "kernel with DebugAssertRtaOutOfBounds); expected an index 0..11";
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_EQ(error_of<KernelError>(device->command_queue(), p),
            message + " (a warning, made an error by TESSEL_STRICT=1)");
  unsetenv("TESSEL_STRICT");
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(device->command_queue().enqueue_program(p));
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("tessel: warning: " + message + "\n"), std::string::npos) << warnings;
  expect_device_works(device);
}

TEST_F(FaultTest, KernelWithoutArgumentsWarns) {
  Program p;
  add_ops(p, CoreCoord{0, 0});
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = error_of<KernelError>(device->command_queue(), p);
  unsetenv("TESSEL_STRICT");
  EXPECT_NE(message.find("core (0,0) BRISC: get_arg_val(0): reads past the 0 runtime arguments this core was given: "
                         "silicon reads whatever the argument area holds there"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("expected no runtime argument reads"), std::string::npos) << message;
  EXPECT_EQ(message.rfind("ops.cpp:", 0), 0u) << message;
  expect_device_works(device);
}

TEST_F(FaultTest, ACommonArgumentPastTheOnesGivenIsAWarning) {
  Program p;
  set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kCommonArg, 3, 0), *rec);
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = error_of<KernelError>(device->command_queue(), p);
  unsetenv("TESSEL_STRICT");
  EXPECT_NE(message.find("get_common_arg_val(3): reads past the 0 common runtime arguments this core was given: "
                         "silicon reads whatever the argument area holds there"),
            std::string::npos)
      << message;
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(device->command_queue().enqueue_program(p));
  testing::internal::GetCapturedStderr();
}

} // namespace
} // namespace tessel::test
