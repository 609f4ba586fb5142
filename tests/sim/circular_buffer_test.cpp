// Circular-buffer protocol of the simulator (src/sim/kernel_api.cpp): 16-bit
// counters, cumulative reserves and waits, the lap rule, shared config
// regions, one producer and one consumer, and data integrity under every
// scheduling policy.
#include <gtest/gtest.h>

#include <cstdlib>

#include <map>

#include "ops_kernel.hpp"
#include "runtime/device_state.hpp"
#include "sim/l1_layout.hpp"

namespace tessel::test {
namespace {

constexpr CoreCoord kCore{0, 0};
constexpr auto kBrisc = DataMovementProcessor::RISCV_0;
constexpr auto kNcrisc = DataMovementProcessor::RISCV_1;

CircularBufferConfig cb_config(uint32_t pages, uint32_t page_bytes, std::vector<uint8_t> indices = {0}) {
  std::map<uint8_t, DataFormat> formats;
  for (uint8_t i : indices)
    formats[i] = DataFormat::Float16_b;
  CircularBufferConfig config(pages * page_bytes, formats);
  for (uint8_t i : indices)
    config.set_page_size(i, page_bytes);
  return config;
}

class CircularBufferTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = open_device();
    rec = std::make_unique<Recorder>(device);
  }

  // A program with one CB config on `cores` and scripts for BRISC and NCRISC
  // (an empty script means no kernel on that RISC).
  Program program(const CoreRangeSet& cores, const CircularBufferConfig& config, const Script* brisc,
                  const Script* ncrisc) {
    Program p;
    p.add_circular_buffer(cores, config);
    if (brisc) set_script(p, add_ops(p, cores, kBrisc), cores, *brisc, *rec);
    if (ncrisc) set_script(p, add_ops(p, cores, kNcrisc), cores, *ncrisc, *rec);
    return p;
  }

  std::string kernel_error(Program& p) {
    std::string message = error_of<KernelError>(device->command_queue(), p);
    expect_device_works(device);
    return message;
  }

  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
};

TEST_F(CircularBufferTest, CountersWrapPast65536Pages) {
  // 70000 pages through a 4-page CB: the 16-bit received/acked counters wrap.
  constexpr uint32_t kPages = 70000;
  Script producer, consumer;
  producer.op(kProduce, 0, 2, kPages / 2, 16).op(kRecordCounter, 1);
  consumer.op(kConsume, 0, 1, kPages, 16, 0).op(kRecordCounter, 0);
  Program p = program(kCore, cb_config(4, 16), &producer, &consumer);
  device->command_queue().enqueue_program(p);
  // The consumer checked every word it popped; both saw 4 words per page.
  EXPECT_EQ(rec->at(0), kPages * 4);
  EXPECT_EQ(rec->at(1), kPages * 4);
}

TEST_F(CircularBufferTest, WaitsAreCumulative) {
  Script producer, consumer;
  producer.op(kReserve, 0, 4, 1).op(kPush, 0, 4, 1);
  consumer.op(kWait, 0, 1, 1)
      .op(kWait, 0, 2, 1)
      .op(kPop, 0, 1, 1)
      .op(kPop, 0, 1, 1)
      .op(kWait, 0, 2, 1)
      .op(kPop, 0, 2, 1)
      .op(kRecordValue, 0, 1);
  Program ok = program(kCore, cb_config(4, 32), &producer, &consumer);
  device->command_queue().enqueue_program(ok);
  EXPECT_EQ(rec->at(0), 1u);
}

TEST_F(CircularBufferTest, PopMoreThanWaitedFails) {
  Script producer, consumer;
  producer.op(kReserve, 0, 4, 1).op(kPush, 0, 4, 1);
  consumer.op(kWait, 0, 1, 1).op(kWait, 0, 2, 1).op(kPop, 0, 3, 1);
  Program p = program(kCore, cb_config(4, 32), &producer, &consumer);
  EXPECT_EQ(kernel_error(p), ops_site("pop") +
                                 ": core (0,0) NCRISC: cb_pop_front(cb=0, pages=3): pops more pages than the consumer "
                                 "has waited for (2); cb_wait_front counts are cumulative: wait for the total before "
                                 "popping it");
}

TEST_F(CircularBufferTest, PopAfterWaitedPagesAreUsedUpFails) {
  Script producer, consumer;
  producer.op(kReserve, 0, 4, 1).op(kPush, 0, 4, 1);
  consumer.op(kWait, 0, 2, 1).op(kPop, 0, 1, 2).op(kPop, 0, 1, 1);
  Program p = program(kCore, cb_config(4, 32), &producer, &consumer);
  EXPECT_NE(kernel_error(p).find("cb_pop_front(cb=0, pages=1): pops more pages than the consumer has waited for (0)"),
            std::string::npos);
}

TEST_F(CircularBufferTest, ReservesAreCumulative) {
  // As with waits, a reserve of fewer pages keeps the pages already reserved.
  Script producer, consumer;
  producer.op(kReserve, 0, 2, 1).op(kReserve, 0, 1, 1).op(kPush, 0, 2, 1);
  consumer.op(kWait, 0, 2, 1).op(kPop, 0, 2, 1).op(kRecordValue, 0, 7);
  Program p = program(kCore, cb_config(4, 32), &producer, &consumer);
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec->at(0), 7u);
}

TEST_F(CircularBufferTest, LapOfFiveThenSevenIsLegal) {
  Script producer, consumer;
  producer.op(kReserve, 0, 5, 1).op(kPush, 0, 5, 1).op(kReserve, 0, 7, 1).op(kPush, 0, 7, 1);
  producer.op(kReserve, 0, 5, 1).op(kPush, 0, 5, 1).op(kReserve, 0, 7, 1).op(kPush, 0, 7, 1);
  consumer.op(kWait, 0, 12, 1)
      .op(kPop, 0, 12, 1)
      .op(kWait, 0, 7, 1)
      .op(kPop, 0, 7, 1)
      .op(kWait, 0, 5, 1)
      .op(kPop, 0, 5, 1)
      .op(kRecordWrPtr, 0, 0)
      .op(kRecordRdPtr, 0, 1);
  Program p = program(kCore, cb_config(12, 64), &producer, &consumer);
  device->command_queue().enqueue_program(p);
  // Two full laps: both pointers are back at the start of the FIFO.
  EXPECT_NE(rec->at(0), 0u);
  EXPECT_EQ(rec->at(0), rec->at(1));
}

TEST_F(CircularBufferTest, ReserveThatRunsPastTheEndFails) {
  Script producer;
  producer.op(kReserve, 0, 7, 1).op(kPush, 0, 7, 1).op(kReserve, 0, 7, 1);
  Program p = program(kCore, cb_config(12, 64), &producer, nullptr);
  EXPECT_EQ(kernel_error(p), ops_site("reserve") +
                                 ": core (0,0) BRISC: cb_reserve_back(cb=0, pages=7) at page 7 of a 12-page CB would "
                                 "run past its end: the CB pointer wraps only at its limit, so within one lap the "
                                 "pages must add up to exactly 12");
}

TEST_F(CircularBufferTest, WaitThatRunsPastTheEndFails) {
  Script producer, consumer;
  producer.op(kReserve, 0, 12, 1).op(kPush, 0, 12, 1);
  consumer.op(kWait, 0, 7, 1).op(kPop, 0, 7, 1).op(kWait, 0, 7, 1);
  Program p = program(kCore, cb_config(12, 64), &producer, &consumer);
  EXPECT_NE(kernel_error(p).find(ops_site("wait") + ": core (0,0) NCRISC: cb_wait_front(cb=0, pages=7) at page 7 of a "
                                                    "12-page CB would run past its end"),
            std::string::npos);
}

TEST_F(CircularBufferTest, IndicesOfOneConfigShareItsRegion) {
  Program p;
  p.add_circular_buffer(kCore, cb_config(4, 256, {0, 1, 16}));
  p.add_circular_buffer(kCore, cb_config(2, 64, {2}));
  Script s;
  s.op(kRecordWrPtr, 0, 0).op(kRecordWrPtr, 1, 1).op(kRecordWrPtr, 16, 2).op(kRecordRdPtr, 1, 3).op(kRecordWrPtr, 2, 4);
  set_script(p, add_ops(p, kCore), kCore, s, *rec);
  device->command_queue().enqueue_program(p);
  const auto words = rec->read();
  const uint32_t l1 = uint32_t(reinterpret_cast<uintptr_t>(device->state().chip->core(0).l1));
  EXPECT_EQ(words[0], l1 + sim::kL1UnreservedBase);
  EXPECT_EQ(words[1], words[0]);
  EXPECT_EQ(words[2], words[0]);
  EXPECT_EQ(words[3], words[0]);
  // The next config starts after the first one's 1024 bytes.
  EXPECT_EQ(words[4], words[0] + 1024);
}

TEST_F(CircularBufferTest, PushMoreThanReservedIntoFreePagesWarns) {
  // Silicon pushes them (a reservation only waits for room): a warning, an error under TESSEL_STRICT=1.
  Script producer;
  producer.op(kReserve, 0, 2, 1).op(kPush, 0, 3, 1);
  Program p = program(kCore, cb_config(4, 32), &producer, nullptr);
  const std::string message = ops_site("push") + ": core (0,0) BRISC: cb_push_back(cb=0, pages=3): pushes more pages "
                                                 "than are reserved (2); the CB has room for them, so silicon runs "
                                                 "this, but nothing waited for that room: call cb_reserve_back for "
                                                 "them first";
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_EQ(kernel_error(p), message + " (a warning, made an error by TESSEL_STRICT=1)");
  unsetenv("TESSEL_STRICT");
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(device->command_queue().enqueue_program(p));
  EXPECT_NO_THROW(device->command_queue().enqueue_program(p));
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings, "tessel: warning: " + message + "\n") << "printed once per kernel and call site";
  // A push without any reservation is the same case.
  Script bare;
  bare.op(kPush, 0, 1, 1);
  Program q = program(kCore, cb_config(4, 32), &bare, nullptr);
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_NE(kernel_error(q).find("cb_push_back(cb=0, pages=1): pushes more pages than are reserved (0); the CB has "
                                 "room for them"),
            std::string::npos);
  unsetenv("TESSEL_STRICT");
}

TEST_F(CircularBufferTest, PushBeyondTheFreePagesFails) {
  // Nothing pops: the fifth page would overwrite the first, which the consumer can still read.
  Script producer;
  producer.op(kReserve, 0, 4, 1).op(kPush, 0, 4, 1).op(kPush, 0, 1, 1);
  Program p = program(kCore, cb_config(4, 32), &producer, nullptr);
  EXPECT_EQ(kernel_error(p), ops_site("push") + ": core (0,0) BRISC: cb_push_back(cb=0, pages=1): pushes more pages "
                                                "than are reserved (0), and more than the CB has free (0 of 4): the "
                                                "consumer has not popped the rest, so this would overwrite pages it "
                                                "can still read; call cb_reserve_back for them first");
}

TEST_F(CircularBufferTest, TwoProducersFail) {
  Script a, b;
  a.op(kReserve, 0, 1, 1).op(kPush, 0, 1, 1);
  b.op(kReserve, 0, 1, 1);
  Program p = program(kCore, cb_config(4, 32), &a, &b);
  // The message names where the first producer claimed the CB.
  EXPECT_EQ(kernel_error(p), ops_site("reserve") +
                                 ": core (0,0) NCRISC: cb_reserve_back(cb=0): CB 0 already has a "
                                 "producer on this core (BRISC at " +
                                 ops_site("reserve") + "); a CB has one producer RISC");
}

TEST_F(CircularBufferTest, TwoConsumersFail) {
  Script a, b;
  a.op(kReserve, 0, 2, 1).op(kPush, 0, 2, 1).op(kWait, 0, 1, 1).op(kPop, 0, 1, 1);
  b.op(kWait, 0, 1, 1);
  Program p = program(kCore, cb_config(4, 32), &a, &b);
  EXPECT_NE(kernel_error(p).find("core (0,0) NCRISC: cb_wait_front(cb=0): CB 0 already has a consumer on this core "
                                 "(BRISC at " +
                                 ops_site("wait") + "); a CB has one consumer RISC"),
            std::string::npos);
}

TEST_F(CircularBufferTest, RolesAreResetBetweenLaunches) {
  // The producer of one launch does not stay the producer of the next.
  Script a, b;
  a.op(kReserve, 0, 1, 1).op(kPush, 0, 1, 1);
  b.op(kWait, 0, 1, 1).op(kPop, 0, 1, 1).op(kRecordValue, 0, 3);
  Program first = program(kCore, cb_config(4, 32), &a, &b);
  device->command_queue().enqueue_program(first);
  Program second = program(kCore, cb_config(4, 32), &b, &a); // roles swapped
  rec->clear();
  EXPECT_NO_THROW(device->command_queue().enqueue_program(second));
  EXPECT_EQ(rec->at(0), 3u);
}

TEST_F(CircularBufferTest, UnconfiguredCbFails) {
  Script s;
  s.op(kReserve, 5, 1, 1);
  Program p = program(kCore, cb_config(4, 32), &s, nullptr);
  EXPECT_EQ(kernel_error(p), ops_site("reserve") + ": core (0,0) BRISC: cb_reserve_back(cb=5): CB 5 is not configured "
                                                   "on this core by the program");
}

TEST_F(CircularBufferTest, CbOfAnotherProgramIsNotConfigured) {
  Script s;
  s.op(kReserve, 0, 1, 1).op(kPush, 0, 1, 1);
  Program with_cb = program(kCore, cb_config(4, 32), &s, nullptr);
  device->command_queue().enqueue_program(with_cb);
  Program without_cb;
  set_script(without_cb, add_ops(without_cb, kCore), kCore, Script().op(kWait, 0, 1, 1), *rec);
  EXPECT_NE(error_of<KernelError>(device->command_queue(), without_cb).find("CB 0 is not configured on this core"),
            std::string::npos);
  expect_device_works(device);
}

TEST_F(CircularBufferTest, CbIndexOutOfRangeFails) {
  Script s;
  s.op(kWait, 64, 1, 1);
  Program p = program(kCore, cb_config(4, 32), &s, nullptr);
  EXPECT_EQ(kernel_error(p), ops_site("wait") + ": core (0,0) BRISC: cb_wait_front(cb=64): CB index out of range: this "
                                                "architecture has 64 CB indices (0..63)");
  Script ptr;
  ptr.op(kRecordWrPtr, 70, 0);
  Program q = program(kCore, cb_config(4, 32), &ptr, nullptr);
  EXPECT_EQ(kernel_error(q), ops_site("get_write_ptr") +
                                 ": core (0,0) BRISC: get_write_ptr(cb=70): CB index out of range: this architecture "
                                 "has 64 CB indices (0..63)");
}

TEST_F(CircularBufferTest, ZeroPagesWarnAndDoNothing) {
  // Silicon waits for no pages and moves no pointer: a warning, an error under TESSEL_STRICT=1.
  Script zero;
  zero.op(kReserve, 0, 0, 1).op(kPush, 0, 0, 1);
  Script consumer;
  consumer.op(kWait, 0, 0, 1).op(kPop, 0, 0, 1);
  Program p = program(kCore, cb_config(4, 32), &zero, &consumer);
  const std::string message = ops_site("reserve") + ": core (0,0) BRISC: cb_reserve_back(cb=0, pages=0): 0 pages; "
                                                    "silicon does nothing here (it waits for no pages and moves no "
                                                    "pointer), so the call has no effect: expected 1..4 pages";
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_EQ(kernel_error(p), message + " (a warning, made an error by TESSEL_STRICT=1)");
  unsetenv("TESSEL_STRICT");
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(device->command_queue().enqueue_program(p));
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("tessel: warning: " + message + "\n"), std::string::npos) << warnings;
  for (const char* call : {"cb_push_back", "cb_wait_front", "cb_pop_front"})
    EXPECT_NE(warnings.find(std::string(call) + "(cb=0, pages=0): 0 pages; silicon does nothing here"),
              std::string::npos)
        << warnings;
}

TEST_F(CircularBufferTest, PageCountOutOfRangeFails) {
  Script many;
  many.op(kReserve, 0, 4, 1).op(kPush, 0, 4, 1);
  Script wait_many;
  wait_many.op(kWait, 0, 5, 1);
  Program q = program(kCore, cb_config(4, 32), &many, &wait_many);
  EXPECT_NE(kernel_error(q).find("core (0,0) NCRISC: cb_wait_front(cb=0, pages=5): CB 0 has 4 pages; expected 1..4"),
            std::string::npos);
}

class CircularBufferPolicyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CircularBufferPolicyTest, DataArrivesInOrderOnEveryCore) {
  auto device = open_device("blackhole", 2, 2, GetParam());
  Recorder rec(device);
  constexpr uint32_t kPages = 96, kPageBytes = 64;
  const CoreRange all({0, 0}, {1, 1});
  Program p;
  p.add_circular_buffer(all, cb_config(8, kPageBytes));
  KernelHandle producer = add_ops(p, all, kBrisc);
  KernelHandle consumer = add_ops(p, all, kNcrisc);
  std::vector<std::shared_ptr<Buffer>> outputs;
  for (CoreCoord c : all.cores()) {
    outputs.push_back(Buffer::create(device, {kPages * kPageBytes, kPageBytes, BufferType::DRAM}));
    set_script(p, producer, c, Script().op(kProduce, 0, 2, kPages / 2, kPageBytes), rec);
    set_script(p, consumer, c,
               Script()
                   .op(kConsume, 0, 1, kPages / 4, kPageBytes, outputs.back()->address())
                   .op(kConsume, 0, 4, kPages / 8, kPageBytes, outputs.back()->address())
                   .op(kConsume, 0, 2, kPages / 8, kPageBytes, outputs.back()->address()),
               rec);
  }
  device->command_queue().enqueue_program(p);
  std::vector<uint32_t> expected(kPages * kPageBytes / 4);
  for (uint32_t i = 0; i < expected.size(); ++i)
    expected[i] = i;
  for (auto& out : outputs) {
    std::vector<uint32_t> got;
    device->command_queue().enqueue_read_buffer(*out, got);
    EXPECT_EQ(got, expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, CircularBufferPolicyTest, ::testing::ValuesIn(policies()), policy_name);

} // namespace
} // namespace tessel::test
