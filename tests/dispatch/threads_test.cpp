// X280 threads on a loaded run: a thread's commands on the grid (a third
// source), its regions, its result; a crash that leaves the run usable; a
// thread stopped by run.stop(); no upload region beside a thread.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/basic.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"

using namespace tessel;
using namespace tessel::dispatch;

namespace {
const std::string kKernels = TESSEL_DISPATCH_TEST_KERNELS "/basic/";
const std::string kThreads = TESSEL_DISPATCH_TEST_KERNELS "/x280/";

ProgramSpec program_with(X280ThreadSpec thread, std::vector<X280Region> regions = {}) {
  ProgramSpec p;
  p.name = "basic";
  p.reader_path = kKernels + "reader.cpp";
  p.writer_path = kKernels + "writer.cpp";
  p.compute_path = kKernels + "compute.cpp";
  p.buffers = {BufferSpec{kScratchCb, "uint32", 64, 1}};
  p.handlers = {{"result", kHandlerResult}};
  p.threads = {std::move(thread)};
  p.regions = std::move(regions);
  return p;
}

std::unique_ptr<Session> session() {
  DeviceConfig dc;
  dc.grid_x = 4;
  dc.grid_y = 2;
  SessionConfig sc;
  sc.device = Device::open(dc);
  return Session::open(sc);
}

std::vector<uint8_t> words_bytes(const std::vector<uint32_t>& w) {
  std::vector<uint8_t> b(w.size() * 4);
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}
} // namespace

TEST(X280Threads, CommandsOnTheGridBesideTheHosts) {
  auto s = session();
  X280ThreadSpec t;
  t.cluster = 2;
  t.sources = {kThreads + "grid_submit.cpp"};
  t.regions = {"in", "out"};
  t.words = {40, kHandlerResult, 1, 2, 8};
  t.deadline_s = 20;
  dispatch::Run& run =
      s->load(program_with(t, {{"in", words_bytes({1, 2, 3, 4000000000u})}, {"out", std::vector<uint8_t>(8)}}));
  EXPECT_EQ(run.upload_region_bytes(), 0u);
  EXPECT_THROW(run.upload(std::vector<uint8_t>(64), "stream"), ValidationError);
  // The host's commands meanwhile.
  std::vector<uint64_t> host;
  for (uint32_t i = 0; i < 30; ++i)
    host.push_back(run.submit(kHandlerResult, Group{4, 4}, std::vector<uint32_t>{i}, SubmitFlags{false, true, false}));
  const std::vector<Event> events = run.wait(host, 10.0);
  for (uint32_t i = 0; i < 30; ++i)
    EXPECT_EQ(events[i].result, 2 * i);
  const std::vector<X280ThreadResult> results = run.thread_result(20.0);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, "done") << results[0].error;
  EXPECT_EQ(results[0].cluster, 2u);
  EXPECT_EQ(results[0].value, 40u);
  EXPECT_EQ(results[0].commands, 41u);
  const ResultBlock r = run.stop();
  EXPECT_EQ(r.commands, 30u + 40u); // one sequence: the host's and the thread's (the rejected one took none)
  EXPECT_EQ(r.rejected, 1u);
  const std::vector<uint8_t> out = run.thread_read(2, "out");
  uint64_t sum = 0;
  std::memcpy(&sum, out.data(), 8);
  EXPECT_EQ(sum, 1u + 2 + 3 + 4000000000ull);
  EXPECT_THROW(run.thread_read(1, "out"), ValidationError);
}

TEST(X280Threads, ACrashIsTheThreadsResultAndTheRunGoesOn) {
  auto s = session();
  X280ThreadSpec t;
  t.sources = {kThreads + "segv.cpp"};
  t.words = {16};
  dispatch::Run& run = s->load(program_with(t));
  const X280ThreadResult r = run.thread_result(10.0).at(0);
  EXPECT_EQ(r.status, "failed");
  EXPECT_NE(r.error.find("SIGSEGV"), std::string::npos) << r.error;
  const uint64_t h =
      run.submit(kHandlerResult, Group{0, 1}, std::vector<uint32_t>{21}, SubmitFlags{false, true, false});
  EXPECT_EQ(run.wait(std::vector<uint64_t>{h}, 10.0).at(0).result, 42u);
  run.stop();
}

TEST(X280Threads, StopEndsAThreadStillRunning) {
  auto s = session();
  X280ThreadSpec t;
  t.sources = {kThreads + "spin.cpp"};
  t.words = {1}; // cooperative: returns 5 when asked to stop
  dispatch::Run& run = s->load(program_with(t));
  run.stop();
  const X280ThreadResult r = run.thread_result(1.0).at(0);
  EXPECT_EQ(r.status, "stopped");
  EXPECT_EQ(r.value, 5u);
}

TEST(X280Threads, ACompileErrorLoadsNothing) {
  auto s = session();
  X280ThreadSpec t;
  t.sources = {kThreads + "compile_error.cpp"};
  EXPECT_THROW(s->load(program_with(t)), dispatch::ProgramError);
  EXPECT_EQ(s->run(), nullptr);
  ProgramSpec twice = program_with(t);
  twice.threads.push_back(twice.threads[0]);
  EXPECT_THROW(s->load(twice), dispatch::ProgramError); // one thread per cluster
}
