// The fiber scheduler (src/sim/chip.cpp): deadlock detection and its report,
// the device staying usable afterwards, and replayable scheduling policies.
#include <gtest/gtest.h>

#include <map>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

const CoreRange kAll({0, 0}, {1, 1});

CircularBufferConfig cb_config(uint32_t pages, uint32_t page_bytes) {
  CircularBufferConfig config(pages * page_bytes, {{0, DataFormat::Float16_b}});
  config.set_page_size(0, page_bytes);
  return config;
}

class SchedulerTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = open_device();
    rec = std::make_unique<Recorder>(device);
  }
  std::string deadlock(Program& p) { return error_of<DeadlockError>(device->command_queue(), p); }

  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
};

TEST_F(SchedulerTest, DeadlockOnACbNobodyFillsIsReportedOncePerRange) {
  Program p;
  p.add_circular_buffer(kAll, cb_config(2, 32));
  KernelHandle reader = add_ops(p, kAll, DataMovementProcessor::RISCV_0);
  KernelHandle writer = add_ops(p, kAll, DataMovementProcessor::RISCV_1);
  for (CoreCoord c : kAll.cores())
    set_script(p, reader, c, Script().op(kRecordValue, c.y * 2 + c.x, 1), *rec);
  set_script(p, writer, kAll, Script().op(kWait, 0, 1, 1), *rec);
  const std::string expected = "deadlock: no RISC can make progress (4 blocked):\n  cores (0,0)-(1,1) NCRISC at " +
                               ops_site("wait") +
                               " in cb_wait_front(cb=0, pages=1): CB 0 has 0 visible, 0 reserved, 2 free of 2 pages";
  // Under every policy, and again on the same device: no state leaks between launches.
  for (const std::string& policy : policies()) {
    SCOPED_TRACE(policy);
    device->set_policy(policy);
    rec->clear();
    EXPECT_EQ(deadlock(p), expected);
    // The readers ran to completion before the deadlock was found.
    const auto words = rec->read();
    for (uint32_t i = 0; i < 4; ++i)
      EXPECT_EQ(words[i], 1u) << "core " << i;
    expect_device_works(device);
  }
}

TEST_F(SchedulerTest, DeadlockReportShowsPageCounts) {
  // BRISC pushes 1 of the 2 pages it reserved in CB 0, then waits on CB 1,
  // which nobody fills; NCRISC waits for 3 pages of CB 0.
  const CoreCoord core{1, 0};
  Program p;
  p.add_circular_buffer(core, cb_config(4, 32));
  CircularBufferConfig second(64, {{1, DataFormat::Float16_b}});
  second.set_page_size(1, 32);
  p.add_circular_buffer(core, second);
  set_script(p, add_ops(p, core, DataMovementProcessor::RISCV_0), core,
             Script().op(kReserve, 0, 2, 1).op(kPush, 0, 1, 1).op(kWait, 1, 1, 1), *rec);
  set_script(p, add_ops(p, core, DataMovementProcessor::RISCV_1), core, Script().op(kWait, 0, 3, 1), *rec);
  EXPECT_EQ(deadlock(p), "deadlock: no RISC can make progress (2 blocked):\n  core (1,0) BRISC at " + ops_site("wait") +
                             " in cb_wait_front(cb=1, pages=1): CB 1 has 0 visible, 0 reserved, 2 free of 2 pages"
                             "\n  core (1,0) NCRISC at " +
                             ops_site("wait") +
                             " in cb_wait_front(cb=0, pages=3): CB 0 has 1 visible, 1 reserved, 3 free of 4 pages");
  expect_device_works(device);
}

TEST_F(SchedulerTest, DeadlockOnSemaphoresShowsValueAndWantedValue) {
  Program p;
  p.add_semaphore(kAll, 3);
  KernelHandle k = add_ops(p, CoreRangeSet{CoreRange(CoreCoord{0, 0}), CoreRange(CoreCoord{1, 1})});
  set_script(p, k, CoreCoord{0, 0}, Script().op(kSemWait, 0, 5), *rec);
  set_script(p, k, CoreCoord{1, 1}, Script().op(kSemWaitMin, 0, 10), *rec);
  EXPECT_EQ(deadlock(p),
            "deadlock: no RISC can make progress (2 blocked):\n  core (0,0) BRISC at " + ops_site("sem_wait") +
                " in noc_semaphore_wait(L1 0x2500): value 3, waiting for == 5\n  core (1,1) BRISC at " +
                ops_site("sem_wait_min") + " in noc_semaphore_wait_min(L1 0x2500): value 3, waiting for >= 10");
  expect_device_works(device);
}

TEST_F(SchedulerTest, IdenticalRowsOnScatteredCoresAreListed) {
  Program p;
  p.add_semaphore(kAll, 0);
  const CoreRangeSet diagonal{CoreRange(CoreCoord{0, 0}), CoreRange(CoreCoord{1, 1})};
  set_script(p, add_ops(p, diagonal), diagonal, Script().op(kSemWait, 0, 1), *rec);
  const std::string report = deadlock(p);
  EXPECT_NE(report.find("(2 blocked):\n  cores (0,0), (1,1) BRISC at " + ops_site("sem_wait")), std::string::npos)
      << report;
  expect_device_works(device);
}

// The order in which 8 RISCs (producer/consumer pairs on 4 cores) pass their
// CB hand-offs, as logged by the kernels themselves.
std::vector<uint32_t> interleaving(const std::shared_ptr<Device>& device) {
  Recorder rec(device);
  Program p;
  constexpr uint32_t kRounds = 10;
  p.add_circular_buffer(kAll, cb_config(2, 16));
  p.add_semaphore(kAll, 0); // scratch word for the log
  KernelHandle producer = add_ops(p, kAll, DataMovementProcessor::RISCV_0);
  KernelHandle consumer = add_ops(p, kAll, DataMovementProcessor::RISCV_1);
  for (CoreCoord c : kAll.cores()) {
    const uint32_t tag = 10 * (c.y * 2 + c.x + 1);
    set_script(p, producer, c, Script().op(kPingPongLog, 0, kRounds, tag, 0, 0), rec);
    set_script(p, consumer, c, Script().op(kPingPongLog, 0, kRounds, tag + 1, 1, 0), rec);
  }
  device->command_queue().enqueue_program(p);
  const auto words = rec.read();
  EXPECT_EQ(words[0], 8 * kRounds);
  std::vector<uint32_t> log(words.begin() + 1, words.begin() + 1 + words[0]);
  std::map<uint32_t, uint32_t> per_tag;
  for (uint32_t t : log)
    ++per_tag[t];
  EXPECT_EQ(per_tag.size(), 8u);
  for (auto [tag, n] : per_tag)
    EXPECT_EQ(n, kRounds) << "tag " << tag;
  return log;
}

TEST(SchedulingPolicy, DeterministicRunsAreIdentical) {
  auto a = open_device();
  const auto first = interleaving(a);
  EXPECT_EQ(interleaving(a), first);
  EXPECT_EQ(interleaving(open_device()), first);
}

TEST(SchedulingPolicy, RandomSeedReplaysIdentically) {
  auto a = open_device("blackhole", 2, 2, "random:7");
  const auto seven = interleaving(a);
  EXPECT_EQ(interleaving(open_device("blackhole", 2, 2, "random:7")), seven);
  a->set_policy("random:7");
  EXPECT_EQ(a->policy(), "random:7");
  EXPECT_EQ(interleaving(a), seven);
  // Other seeds, and the deterministic policy, interleave differently.
  EXPECT_NE(interleaving(open_device("blackhole", 2, 2, "random:8")), seven);
  EXPECT_NE(interleaving(open_device()), seven);
}

TEST(SchedulingPolicy, BadPolicyIsRejectedAndTheOldOneKept) {
  auto device = open_device("blackhole", 2, 2, "random:3");
  for (const char* bad : {"random", "fastest", "parallel2"}) {
    EXPECT_EQ(error_from<ValidationError>([&] { device->set_policy(bad); }),
              std::string("unknown scheduling policy '") + bad +
                  "': expected 'deterministic', 'random:<seed>', 'parallel' or 'parallel:<threads>'");
    EXPECT_EQ(device->policy(), "random:3");
  }
  // Numbers are decimal: no octal, no hex, no sign, nothing after.
  for (const char* bad :
       {"random:", "random:x1", "random:0x10", "random:-1", "random:18446744073709551616", "random:5 "}) {
    EXPECT_EQ(error_from<ValidationError>([&] { device->set_policy(bad); }),
              std::string("scheduling policy '") + bad +
                  "': the seed must be a whole number from 0 to 18446744073709551615");
    EXPECT_EQ(device->policy(), "random:3");
  }
  device->set_policy("random:010");
  EXPECT_EQ(device->policy(), "random:10");
  device->set_policy("parallel:010");
  EXPECT_EQ(device->policy(), "parallel:10");
  device->set_policy("parallel:08");
  EXPECT_EQ(device->policy(), "parallel:8");
  device->set_policy("random:3");
  for (const char* bad : {"parallel:", "parallel:0", "parallel:x", "parallel:65", "parallel:-1", "parallel:0x3"}) {
    EXPECT_EQ(error_from<ValidationError>([&] { device->set_policy(bad); }),
              std::string("scheduling policy '") + bad + "': the thread count must be a whole number from 1 to 64");
    EXPECT_EQ(device->policy(), "random:3");
  }
  device->set_policy("parallel");
  EXPECT_EQ(device->policy(), "parallel");
  device->set_policy("parallel:3");
  EXPECT_EQ(device->policy(), "parallel:3");
  device->set_policy("deterministic");
  EXPECT_EQ(device->policy(), "deterministic");
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
