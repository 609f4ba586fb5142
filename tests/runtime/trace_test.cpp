// Traces (src/runtime/trace.cpp): captured launches do not run until replay,
// replay equals direct execution, replay uses the dispatch values of the
// capture, and every misuse's message.
#include <gtest/gtest.h>

#include "example.hpp"
#include "sim/l1_layout.hpp"
#include "sim/ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr CoreCoord kCore{0, 0};

std::string during_capture(const std::string& call, uint32_t trace_id) {
  const std::string id = std::to_string(trace_id);
  return call + ": not allowed while trace " + id +
         " is being captured (a trace records only enqueue_program); call end_trace_capture(" + id + ") first";
}

TEST(TraceTest, ReplayEqualsDirectExecutionUnderEveryPolicy) {
  for (const std::string& policy : policies()) {
    SCOPED_TRACE(policy);
    auto device = open_device("blackhole", 2, 2, policy);
    CommandQueue& cq = device->command_queue();
    const CoreCoord grid = device->grid();
    const uint32_t pages_per_core = 8, page_bytes = 2048, cb_pages = 4;
    const uint64_t size_bytes = uint64_t(grid.x * grid.y * pages_per_core) * page_bytes;
    auto src = Buffer::create(device, {size_bytes, page_bytes, BufferType::DRAM});
    auto direct_dst = Buffer::create(device, {size_bytes, page_bytes, BufferType::DRAM});
    auto traced_dst = Buffer::create(device, {size_bytes, page_bytes, BufferType::DRAM});
    std::vector<uint32_t> input(size_bytes / 4), zeros(size_bytes / 4, 0);
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = uint32_t(i * 2654435761u);
    cq.enqueue_write_buffer(*src, input);
    cq.enqueue_write_buffer(*traced_dst, zeros);

    Program direct = examples::make_copy_program(grid, *src, *direct_dst, pages_per_core, cb_pages);
    cq.enqueue_program(direct);
    std::vector<uint32_t> direct_out, traced_out;
    cq.enqueue_read_buffer(*direct_dst, direct_out);
    ASSERT_EQ(direct_out, input);

    uint32_t trace_id = 0;
    {
      Program traced = examples::make_copy_program(grid, *src, *traced_dst, pages_per_core, cb_pages);
      trace_id = cq.begin_trace_capture();
      cq.enqueue_program(traced);
      cq.end_trace_capture(trace_id);
    } // the program is gone; the trace holds what replay needs
    EXPECT_EQ(cq.trace_launch_count(trace_id), 1u);
    // Captured, not run.
    EXPECT_EQ(cq.programs_run(), 1u);
    cq.enqueue_read_buffer(*traced_dst, traced_out);
    EXPECT_EQ(traced_out, zeros);

    cq.replay_trace(trace_id);
    EXPECT_EQ(cq.programs_run(), 2u);
    cq.enqueue_read_buffer(*traced_dst, traced_out);
    EXPECT_EQ(traced_out, direct_out);

    cq.enqueue_write_buffer(*traced_dst, zeros);
    cq.replay_trace(trace_id, false);
    cq.finish();
    cq.enqueue_read_buffer(*traced_dst, traced_out);
    EXPECT_EQ(traced_out, direct_out);
    cq.release_trace(trace_id);
  }
}

TEST(TraceTest, ReplayUsesTheDispatchValuesOfTheCapture) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  Program p;
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 11).op(kCommonArg, 0, 1), rec);
  p.set_common_runtime_args(k, {100});
  const uint32_t id = cq.begin_trace_capture();
  EXPECT_EQ(id, 1u);
  cq.enqueue_program(p);
  cq.end_trace_capture(id);
  EXPECT_EQ(rec.at(0), 0u);
  EXPECT_EQ(cq.programs_run(), 0u);

  // Word 4 + 2 is the first step's `b`.
  p.runtime_args(k, kCore)[6] = 22;
  p.common_runtime_args(k)[0] = 200;
  cq.replay_trace(id);
  EXPECT_EQ(rec.at(0), 11u);
  EXPECT_EQ(rec.at(1), 100u);
  cq.enqueue_program(p);
  EXPECT_EQ(rec.at(0), 22u);
  EXPECT_EQ(rec.at(1), 200u);
  cq.replay_trace(id);
  EXPECT_EQ(rec.at(0), 11u);
  EXPECT_EQ(rec.at(1), 100u);

  // Changes of structure (args of another length, a semaphore) do not reach it either.
  set_script(p, k, kCore, Script().op(kRecordValue, 2, 33), rec);
  p.add_semaphore(kCore, 1);
  cq.replay_trace(id);
  const auto words = rec.read();
  EXPECT_EQ(words[0], 11u);
  EXPECT_EQ(words[1], 100u);
  EXPECT_EQ(words[2], 0u);
  EXPECT_EQ(cq.programs_run(), 4u);
}

TEST(TraceTest, ReplayRestoresTheCapturedCircularBuffersAndSemaphores) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  // CB 0 at the bottom of L1; semaphore 0 starts at 5, and each run sets it to 9.
  Program p;
  p.add_circular_buffer(kCore, CircularBufferConfig(64, {{0, DataFormat::Float16_b}}).set_page_size(0, 32));
  p.add_semaphore(kCore, 5);
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordSem, 0, 0).op(kSemSet, 0, 9).op(kRecordWrPtr, 0, 1), rec);
  const uint32_t id = cq.begin_trace_capture();
  cq.enqueue_program(p);
  cq.end_trace_capture(id);
  cq.replay_trace(id);
  const auto first = rec.read();
  EXPECT_EQ(first[0], 5u);

  // Another program puts CB 0 elsewhere on the same core and leaves semaphore 0 at 9.
  Program other;
  other.add_circular_buffer(kCore, CircularBufferConfig(128, {{1, DataFormat::Float16_b}}).set_page_size(1, 32));
  other.add_circular_buffer(kCore, CircularBufferConfig(64, {{0, DataFormat::Float16_b}}).set_page_size(0, 32));
  other.add_semaphore(kCore, 9);
  KernelHandle ko = add_ops(other, kCore);
  set_script(other, ko, kCore, Script().op(kRecordWrPtr, 0, 2), rec);
  cq.enqueue_program(other);
  ASSERT_NE(rec.at(2), first[1]);

  rec.clear();
  cq.replay_trace(id);
  const auto again = rec.read();
  EXPECT_EQ(again[0], 5u);
  EXPECT_EQ(again[1], first[1]);
}

TEST(TraceTest, LaunchesReplayInCaptureOrder) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  Program p, q;
  KernelHandle k = add_ops(p, kCore);
  KernelHandle kq = add_ops(q, CoreCoord{1, 1});
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 1), rec);
  set_script(q, kq, CoreCoord{1, 1}, Script().op(kRecordValue, 1, 3), rec);
  const uint32_t id = cq.begin_trace_capture();
  cq.enqueue_program(p);
  p.runtime_args(k, kCore)[6] = 2;
  cq.enqueue_program(p);
  cq.enqueue_program(q);
  cq.end_trace_capture(id);
  EXPECT_EQ(cq.trace_launch_count(id), 3u);
  EXPECT_EQ(cq.programs_run(), 0u);
  cq.replay_trace(id);
  EXPECT_EQ(cq.programs_run(), 3u);
  const auto words = rec.read();
  EXPECT_EQ(words[0], 2u); // the second launch ran after the first
  EXPECT_EQ(words[1], 3u);
  // An empty trace replays as nothing.
  const uint32_t empty = cq.begin_trace_capture();
  EXPECT_EQ(empty, 2u);
  cq.end_trace_capture(empty);
  EXPECT_EQ(cq.trace_launch_count(empty), 0u);
  cq.replay_trace(empty);
  EXPECT_EQ(cq.programs_run(), 3u);
}

TEST(TraceTest, OnlyProgramLaunchesCanBeCapturedAndAFailedCallLeavesTheCaptureOpen) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  Program p;
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 7), rec);
  auto event = std::make_shared<Event>();
  cq.enqueue_record_event(event);
  const uint32_t earlier = cq.begin_trace_capture();
  cq.end_trace_capture(earlier);
  std::vector<uint32_t> words(Recorder::kBytes / 4, 1);

  const uint32_t id = cq.begin_trace_capture();
  ASSERT_EQ(id, 2u);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_write_buffer(*rec.buffer, words); }),
            during_capture("enqueue_write_buffer", id));
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_read_buffer(*rec.buffer, words); }),
            during_capture("enqueue_read_buffer", id));
  EXPECT_EQ(error_from<ValidationError>([&] { cq.finish(); }), during_capture("finish", id));
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_record_event(event); }),
            during_capture("enqueue_record_event", id));
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_wait_for_event(event); }),
            during_capture("enqueue_wait_for_event", id));
  EXPECT_EQ(error_from<ValidationError>([&] { cq.replay_trace(earlier); }), during_capture("replay_trace", id));
  EXPECT_EQ(error_from<ValidationError>([&] {
              Buffer::create(device, {4096, 4096, BufferType::DRAM});
            }),
            "Buffer::create: trace 2 is being captured on this device; allocate buffers before "
            "begin_trace_capture or after end_trace_capture(2)");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.begin_trace_capture(); }),
            "begin_trace_capture: trace 2 is already being captured; captures do not nest: call "
            "end_trace_capture(2) first");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.end_trace_capture(1); }),
            "end_trace_capture: trace 1 is not being captured; the open capture is trace 2");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.release_trace(id); }),
            "release_trace: trace 2 is still being captured; call end_trace_capture(2) first");
  Program empty;
  EXPECT_EQ(error_of<ValidationError>(cq, empty), "enqueue_program: the program has no kernels");
  // Host-side calls are not commands: allowed during a capture.
  EXPECT_TRUE(cq.query(*event));
  cq.synchronize(*event);
  cq.compile_program(p);

  // Nothing was recorded or run, the event did not move, and the capture is still open.
  EXPECT_EQ(cq.trace_launch_count(id), 0u);
  EXPECT_EQ(event->id(), 1u);
  EXPECT_EQ(rec.at(0), 0u);
  cq.enqueue_program(p);
  cq.end_trace_capture(id);
  EXPECT_EQ(cq.trace_launch_count(id), 1u);
  cq.replay_trace(id);
  EXPECT_EQ(rec.at(0), 7u);
  // Everything works again once the capture has ended.
  cq.enqueue_write_buffer(*rec.buffer, words);
  cq.enqueue_record_event(event);
  EXPECT_EQ(event->id(), 2u);
  EXPECT_NE(Buffer::create(device, {4096, 4096, BufferType::DRAM}), nullptr);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.end_trace_capture(id); }),
            "end_trace_capture: trace 2 is not being captured; no capture is open (begin one with "
            "begin_trace_capture)");
}

TEST(TraceTest, UnknownAndReleasedTracesAreRejected) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  EXPECT_EQ(error_from<ValidationError>([&] { cq.replay_trace(1); }),
            "replay_trace: trace 1 does not exist; expected an id returned by begin_trace_capture on this queue "
            "(none yet)");
  Recorder rec(device);
  Program p;
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 5), rec);
  const uint32_t id = cq.begin_trace_capture();
  cq.enqueue_program(p);
  cq.end_trace_capture(id);
  for (uint32_t bad : {0u, 2u, 99u})
    EXPECT_EQ(error_from<ValidationError>([&] { cq.replay_trace(bad); }),
              "replay_trace: trace " + std::to_string(bad) +
                  " does not exist; expected an id returned by begin_trace_capture on this queue (1..1)");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.release_trace(7); }),
            "release_trace: trace 7 does not exist; expected an id returned by begin_trace_capture on this queue "
            "(1..1)");
  cq.release_trace(id);
  const std::string released = ": trace 1 has been released; capture it again";
  EXPECT_EQ(error_from<ValidationError>([&] { cq.replay_trace(id); }), "replay_trace" + released);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.release_trace(id); }), "release_trace" + released);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.trace_launch_count(id); }), "trace_launch_count" + released);
  EXPECT_EQ(rec.at(0), 0u);
  EXPECT_EQ(cq.programs_run(), 0u);
  // Ids are not reused.
  const uint32_t next = cq.begin_trace_capture();
  EXPECT_EQ(next, 2u);
  cq.end_trace_capture(next);
}

TEST(TraceTest, ReplayChecksTheCapturedCircularBuffersStillFitUnderL1Buffers) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  constexpr uint32_t kCbBytes = 512 * 1024;
  Program p;
  p.add_circular_buffer(kCore, CircularBufferConfig(kCbBytes, {{0, DataFormat::Float16_b}}).set_page_size(0, kCbBytes));
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 3), rec);
  const uint32_t id = cq.begin_trace_capture();
  cq.enqueue_program(p);
  cq.end_trace_capture(id);
  // 1 MiB in each of the 4 L1 banks, from the top of L1: down into the CBs.
  const uint32_t banks = device->grid().x * device->grid().y;
  auto big = Buffer::create(device, {uint64_t(banks) << 20, 1u << 20, BufferType::L1});
  EXPECT_EQ(error_from<ValidationError>([&] { cq.replay_trace(id); }),
            "replay_trace: trace 1 has circular buffers up to L1 offset " +
                std::to_string(sim::kL1UnreservedBase + kCbBytes) + ", but an L1 buffer now starts at offset " +
                std::to_string(big->address()) + "; free that buffer, or allocate it before capturing");
  EXPECT_EQ(rec.at(0), 0u);
  big.reset();
  cq.replay_trace(id);
  EXPECT_EQ(rec.at(0), 3u);
}

TEST(TraceTest, AClosedDeviceCannotCaptureOrReplay) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  Program p;
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 3), rec);
  const uint32_t id = cq.begin_trace_capture();
  cq.enqueue_program(p);
  cq.end_trace_capture(id);
  device->close();
  EXPECT_EQ(error_from<ValidationError>([&] { cq.replay_trace(id); }), "replay_trace: the device is closed");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.begin_trace_capture(); }),
            "begin_trace_capture: the device is closed");
  // Bookkeeping still works: the trace can be released.
  EXPECT_EQ(cq.trace_launch_count(id), 1u);
  cq.release_trace(id);
}

TEST(TraceTest, AFailingLaunchStopsTheReplayAndLeavesTheDeviceUsable) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  Program good, bad, after;
  KernelHandle kg = add_ops(good, kCore);
  KernelHandle kb = add_ops(bad, kCore);
  KernelHandle ka = add_ops(after, kCore);
  set_script(good, kg, kCore, Script().op(kRecordValue, 0, 1), rec);
  set_script(bad, kb, kCore, Script().op(kWait, 3, 1, 1), rec); // CB 3 is not configured
  set_script(after, ka, kCore, Script().op(kRecordValue, 1, 2), rec);
  const uint32_t id = cq.begin_trace_capture();
  cq.enqueue_program(good);
  cq.enqueue_program(bad);
  cq.enqueue_program(after);
  cq.end_trace_capture(id);
  const std::string message = error_from<KernelError>([&] { cq.replay_trace(id); });
  EXPECT_NE(message.find(ops_site("wait")), std::string::npos) << message;
  const auto words = rec.read();
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], 0u);
  EXPECT_EQ(cq.programs_run(), 1u);
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
