// Programs (src/runtime/program.cpp, command_queue.cpp): runtime arguments
// re-applied on every dispatch, in-place mutation, layout changes, a program
// reused on another device.
#include <gtest/gtest.h>

#include "sim/ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr CoreCoord kCore{0, 0};

TEST(ProgramTest, RuntimeArgsAreReappliedOnEveryDispatch) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 11), rec);
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 11u);
  // Change the value in place (word 4 + 2 is the step's `b`).
  std::span<uint32_t> args = p.runtime_args(k, kCore);
  ASSERT_EQ(args.size(), 12u);
  args[6] = 22;
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 22u);
  // New args of another length change the layout; the new script runs.
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 33).op(kRecordValue, 1, 44), rec);
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 33u);
  EXPECT_EQ(rec.at(1), 44u);
  EXPECT_EQ(device->command_queue().programs_run(), 3u);
}

TEST(ProgramTest, CommonArgsReachEveryCore) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  const CoreRange all({0, 0}, {1, 1});
  KernelHandle k = add_ops(p, all);
  for (CoreCoord c : all.cores())
    set_script(p, k, c, Script().op(kCommonArg, 1, c.y * 2 + c.x), rec);
  p.set_common_runtime_args(k, {5, 6});
  device->command_queue().enqueue_program(p);
  const auto words = rec.read();
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(words[i], 6u);
  p.common_runtime_args(k)[1] = 9;
  device->command_queue().enqueue_program(p);
  const auto again = rec.read();
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(again[i], 9u);
}

TEST(ProgramTest, RuntimeArgsOfAnUnsetCoreAreNotAvailable) {
  Program p;
  KernelHandle k = add_ops(p, CoreRange({0, 0}, {1, 0}));
  EXPECT_EQ(error_from<ValidationError>([&] {
              p.runtime_args(k, {1, 0});
            }),
            "runtime_args: kernel 'ops.cpp' has no runtime args on core (1,0); set them first with set_runtime_args");
  EXPECT_EQ(error_from<ValidationError>([&] {
              p.runtime_args(3, {1, 0});
            }),
            "runtime_args: kernel handle 3 does not exist (the program has 1 kernels)");
}

TEST(ProgramTest, OneProgramRunsOnTwoDevices) {
  auto first = open_device();
  auto second = open_device("wormhole_b0");
  Recorder rec_first(first), rec_second(second);
  Program p;
  KernelHandle k = add_ops(p, kCore);
  // Both recorders sit at the top of L1 on core (0,0), so the same args serve both.
  ASSERT_EQ(rec_first.buffer->address(), rec_second.buffer->address());
  ASSERT_EQ(rec_first.noc, first->worker_core_from_logical_core(kCore));
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 1).op(kRecordWrPtr, 0, 1), rec_first);
  CircularBufferConfig config(64, {{0, DataFormat::Float16_b}});
  config.set_page_size(0, 32);
  p.add_circular_buffer(kCore, config);
  first->command_queue().enqueue_program(p);
  EXPECT_EQ(rec_first.at(0), 1u);
  // On wormhole_b0 core (0,0) has other NoC coordinates: update the record target.
  const CoreCoord wh = second->worker_core_from_logical_core(kCore);
  p.runtime_args(k, kCore)[1] = wh.x;
  p.runtime_args(k, kCore)[2] = wh.y;
  second->command_queue().enqueue_program(p);
  EXPECT_EQ(rec_second.at(0), 1u);
  // Each device's CB is in its own L1.
  EXPECT_NE(rec_first.at(1), rec_second.at(1));
  // And back on the first device.
  rec_first.clear();
  p.runtime_args(k, kCore)[1] = rec_first.noc.x;
  p.runtime_args(k, kCore)[2] = rec_first.noc.y;
  first->command_queue().enqueue_program(p);
  EXPECT_EQ(rec_first.at(0), 1u);
}

} // namespace
} // namespace tessel::test

namespace tessel::test {
namespace {

TEST(ProgramCbLayoutTest, CbsOnDisjointCoresShareOffsetsAndStackWhereTheyOverlap) {
  // Two 1 MiB CBs on different cores fit (each core needs 1 MiB); a third on
  // both cores sits above both and would not fit.
  Program p;
  auto config = [](uint8_t index, uint32_t bytes) {
    CircularBufferConfig c(bytes, {{index, DataFormat::Float16_b}});
    c.set_page_size(index, 1024);
    return c;
  };
  EXPECT_NO_THROW(p.add_circular_buffer(CoreCoord{0, 0}, config(0, 1 << 20)));
  EXPECT_NO_THROW(p.add_circular_buffer(CoreCoord{1, 0}, config(1, 1 << 20)));
  EXPECT_THROW(p.add_circular_buffer(CoreRange({0, 0}, {1, 0}), config(2, 1 << 19)), ValidationError);
  EXPECT_NO_THROW(p.add_circular_buffer(CoreCoord{0, 1}, config(2, 1 << 19)));
}

} // namespace
} // namespace tessel::test

namespace tessel::test {
namespace {

TEST(ProgramMoveTest, MovedFromProgramFailsClearly) {
  Program a;
  a.add_semaphore(CoreCoord{0, 0}, 0);
  Program b = std::move(a);
  try {
    a.add_semaphore(CoreCoord{0, 0}, 0); // NOLINT(bugprone-use-after-move): the point of the test
    ADD_FAILURE() << "a moved-from program accepted a call";
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "Program: this program was moved from; use the program it was moved to");
  }
  EXPECT_EQ(b.add_semaphore(CoreCoord{0, 0}, 0), 1u);
}

} // namespace
} // namespace tessel::test
