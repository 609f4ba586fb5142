// Semaphores (src/sim/kernel_api.cpp, chip.cpp): waits that wake on remote
// increments and on plain pointer stores, placement at the same L1 address
// on every core, initial values re-applied on every launch, id checks.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"
#include "sim/l1_layout.hpp"
#include "sim/memory.hpp"

namespace tessel::test {
namespace {

const CoreRange kAll({0, 0}, {1, 1});

class SemaphorePolicyTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    device = open_device("blackhole", 2, 2, GetParam());
    rec = std::make_unique<Recorder>(device);
  }
  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
};

TEST_P(SemaphorePolicyTest, WaitsWakeOnIncrementsFromOtherCores) {
  Program p;
  const uint32_t count = p.add_semaphore(kAll, 0);
  const uint32_t go = p.add_semaphore(kAll, 0);
  KernelHandle brisc = add_ops(p, kAll, DataMovementProcessor::RISCV_0);
  KernelHandle ncrisc = add_ops(p, kAll, DataMovementProcessor::RISCV_1);
  const CoreCoord home = device->worker_core_from_logical_core({0, 0});
  const CoreCoord last = device->worker_core_from_logical_core({1, 1});
  // (0,0) waits for three increments, then releases (1,1)'s NCRISC with 5.
  set_script(p, brisc, CoreCoord{0, 0},
             Script().op(kSemWaitMin, count, 3).op(kRecordSem, count, 0).op(kSemInc, last.x, last.y, go, 5), *rec);
  for (CoreCoord c : std::vector<CoreCoord>{{1, 0}, {0, 1}, {1, 1}})
    set_script(p, brisc, c, Script().op(kSemInc, home.x, home.y, count, 1), *rec);
  for (CoreCoord c : kAll.cores()) {
    Script s;
    if (c == CoreCoord{1, 1})
      s.op(kSemWait, go, 5).op(kRecordSem, go, 1);
    else
      s.op(kRecordValue, 2 + c.y * 2 + c.x, 1);
    set_script(p, ncrisc, c, s, *rec);
  }
  device->command_queue().enqueue_program(p);
  const auto words = rec->read();
  EXPECT_EQ(words[0], 3u);
  EXPECT_EQ(words[1], 5u);
  EXPECT_EQ(words[2], 1u);
  EXPECT_EQ(words[3], 1u);
  EXPECT_EQ(words[4], 1u);
}

TEST_P(SemaphorePolicyTest, WaitSeesAPlainStoreFromAnotherRisc) {
  // NCRISC stores with a plain pointer write (no API call to wake anyone):
  // the scheduler re-polls the waiter when nothing else can run.
  Program p;
  const CoreCoord core{0, 0};
  p.add_semaphore(core, 0);
  p.add_semaphore(core, 0);
  set_script(p, add_ops(p, core, DataMovementProcessor::RISCV_0), core,
             Script().op(kSemWait, 0, 9).op(kRecordSem, 0, 0).op(kSemWaitMin, 1, 4).op(kRecordSem, 1, 1), *rec);
  set_script(p, add_ops(p, core, DataMovementProcessor::RISCV_1), core,
             Script().op(kSemStore, 0, 9).op(kSemStore, 1, 6), *rec);
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec->at(0), 9u);
  EXPECT_EQ(rec->at(1), 6u);
}

INSTANTIATE_TEST_SUITE_P(Policies, SemaphorePolicyTest, ::testing::ValuesIn(policies()), policy_name);

class SemaphoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = open_device();
    rec = std::make_unique<Recorder>(device);
  }
  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
};

TEST_F(SemaphoreTest, SemaphoresSitAtTheSameL1OffsetOnEveryCore) {
  Program p;
  p.add_semaphore(kAll, 0);
  p.add_semaphore(kAll, 0);
  KernelHandle k = add_ops(p, kAll);
  for (CoreCoord c : kAll.cores())
    set_script(p, k, c, Script().op(kGetSemaphore, 1, c.y * 2 + c.x), *rec);
  device->command_queue().enqueue_program(p);
  const auto words = rec->read();
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(words[i] & TESSEL_L1_SLOT_MASK, sim::semaphore_offset(1)) << "core " << i;
    EXPECT_EQ(words[i] & ~TESSEL_L1_SLOT_MASK,
              (words[0] & ~TESSEL_L1_SLOT_MASK) + i * sim::DeviceMemory::kCoreStrideBytes);
  }
}

TEST_F(SemaphoreTest, InitialValuesAreAppliedOnEveryLaunch) {
  Program p;
  p.add_semaphore(CoreCoord{0, 0}, 4);
  set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0},
             Script().op(kRecordSem, 0, 0).op(kSemSet, 0, 100).op(kRecordSem, 0, 1), *rec);
  for (int run = 0; run < 2; ++run) {
    rec->clear();
    device->command_queue().enqueue_program(p);
    EXPECT_EQ(rec->at(0), 4u) << "run " << run;
    EXPECT_EQ(rec->at(1), 100u) << "run " << run;
  }
}

TEST_F(SemaphoreTest, SemaphoreIdOutOfRangeFails) {
  Program p;
  p.add_semaphore(CoreCoord{0, 0}, 0);
  p.add_semaphore(CoreCoord{0, 0}, 0);
  set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kGetSemaphore, 2, 0), *rec);
  const std::string message = error_of<KernelError>(device->command_queue(), p);
  EXPECT_EQ(message.rfind(ops_site("get_semaphore") + ": core (0,0) BRISC: get_semaphore(2): ", 0), 0u) << message;
  EXPECT_NE(message.find(" 2 semaphores"), std::string::npos) << message;
  expect_device_works(device);

  Program none;
  set_script(none, add_ops(none, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kSemWait, 0, 1), *rec);
  const std::string none_message = error_of<KernelError>(device->command_queue(), none);
  EXPECT_NE(none_message.find("core (0,0) BRISC: get_semaphore(0): "), std::string::npos) << none_message;
  EXPECT_NE(none_message.find(" 0 semaphores"), std::string::npos) << none_message;
  expect_device_works(device);
}

TEST_F(SemaphoreTest, SemaphoreCreatedOnlyOnOtherCoresFails) {
  // Semaphore 0 exists on core (1,1) only, semaphore 1 on (0,0): id 0 is in
  // range on (0,0) but was never created there.
  Program p;
  p.add_semaphore(CoreCoord{1, 1}, 0);
  p.add_semaphore(CoreCoord{0, 0}, 0);
  set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kGetSemaphore, 0, 0), *rec);
  const std::string message = error_of<KernelError>(device->command_queue(), p);
  EXPECT_NE(message.find("core (0,0) BRISC: get_semaphore(0): semaphore 0 was not created on this core"),
            std::string::npos)
      << message;
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
