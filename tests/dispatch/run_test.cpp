// A persistent run end to end: load, commands, events, results, errors,
// stop and abort (spec: persistent-dispatch-host-api, Run and Errors).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <numeric>

#include "dispatch/run_state.hpp"
#include "kernels/basic.hpp"
#include "tessel/buffer.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/persistent_abi.h"

using namespace tessel;
using namespace tessel::dispatch;

namespace {
const std::string kKernels = TESSEL_DISPATCH_TEST_KERNELS "/basic/";

ProgramSpec basic_program(uint32_t depth = 4) {
  ProgramSpec p;
  p.name = "basic";
  p.reader_path = kKernels + "reader.cpp";
  p.writer_path = kKernels + "writer.cpp";
  p.compute_path = kKernels + "compute.cpp";
  p.buffers = {BufferSpec{kScratchCb, "uint32", 64, 1}};
  p.depth = depth;
  p.handlers = {{"fill", kHandlerFill},   {"spin", kHandlerSpin},   {"result", kHandlerResult},
                {"fault", kHandlerFault}, {"count", kHandlerCount}, {"nap", kHandlerNap}};
  return p;
}

std::unique_ptr<Session> small_session(uint32_t gx = 4, uint32_t gy = 2, const std::string& policy = "deterministic") {
  DeviceConfig dc;
  dc.grid_x = gx;
  dc.grid_y = gy;
  dc.policy = policy;
  SessionConfig sc;
  sc.device = Device::open(dc);
  return Session::open(sc);
}

// Stores a raw command line as the host API never would (the kernel's own checks).
uint64_t submit_raw(dispatch::Run& run, uint32_t handler, uint32_t flags, uint32_t first, uint32_t count) {
  dispatch::Run::Impl& r = run.impl();
  const uint64_t handle = r.next_handle++;
  CommandLine line{};
  line.tag = uint32_t(handle);
  line.handler_flags = handler | flags << 8;
  line.group = first | count << 16;
  r.handles.push_back(HandleState{});
  r.handles.back().count = count;
  r.queue.push_back(line);
  return handle;
}
} // namespace

TEST(PersistentRun, NopsComeBackInOrderWithTheirSequences) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program());
  std::vector<uint64_t> handles;
  for (uint32_t i = 0; i < 200; ++i)
    handles.push_back(run.submit(KM_HANDLER_NOP, Group{i % 8, 1}));
  EXPECT_EQ(handles.front(), 1u);
  const std::vector<dispatch::Event> events = run.wait(handles, 10.0);
  ASSERT_EQ(events.size(), 200u);
  for (uint32_t i = 0; i < 200; ++i) {
    EXPECT_EQ(events[i].handle, handles[i]);
    EXPECT_EQ(events[i].kind, EventKind::Done);
    EXPECT_EQ(events[i].auxiliary, i % 8); // the group's first core
  }
  const ResultBlock result = run.stop();
  EXPECT_TRUE(result.ready);
  EXPECT_EQ(result.state, KM_STATE_DONE);
  EXPECT_EQ(result.error, KM_ERROR_NONE);
  EXPECT_EQ(result.commands, 200u);
  EXPECT_EQ(result.events, 200u);
  const std::vector<uint32_t> words = run.state_words();
  ASSERT_EQ(words.size(), 8u * KM_STATE_WORDS);
  for (uint32_t c = 0; c < 8; ++c) {
    EXPECT_EQ(words[c * KM_STATE_WORDS + KM_WORD_TAKEN], 25u) << "core " << c;
    EXPECT_EQ(words[c * KM_STATE_WORDS + KM_WORD_DONE], 25u) << "core " << c;
    EXPECT_EQ(words[c * KM_STATE_WORDS + KM_WORD_PHASE], KM_PHASE_EXITED);
  }
}

TEST(PersistentRun, HandlersDoRealWorkOnEveryCoreOfTheGroup) {
  auto session = small_session();
  auto buffer = Buffer::create(session->device_ptr(), BufferConfig{8 * 64, 64, BufferType::DRAM});
  dispatch::Run& run = session->load(basic_program());
  std::vector<uint64_t> handles;
  const uint32_t args[] = {buffer->address(), 64, 1000};
  handles.push_back(run.submit(kHandlerFill, Group{0, 8}, args));
  run.wait(handles);
  run.stop();
  std::vector<uint32_t> data;
  session->device().command_queue().enqueue_read_buffer(*buffer, data);
  for (uint32_t page = 0; page < 8; ++page)
    for (uint32_t i = 0; i < 16; ++i)
      ASSERT_EQ(data[page * 16 + i], 1000 + page) << "page " << page;
}

TEST(PersistentRun, ResultWordsComeFromTheLeader) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program());
  const uint32_t arg[] = {21};
  const uint64_t h = run.submit(kHandlerResult, Group{3, 4}, arg, SubmitFlags{.result = true});
  const uint64_t plain = run.submit(kHandlerResult, Group{3, 4}, arg);
  const std::vector<uint64_t> both = {h, plain};
  const std::vector<dispatch::Event> events = run.wait(both);
  EXPECT_TRUE(events[0].has_result);
  EXPECT_EQ(events[0].result, 42u); // index 0: the leader's word
  EXPECT_EQ(events[0].ticks, 42u);
  EXPECT_FALSE(events[1].has_result);
  run.stop();
}

TEST(PersistentRun, TheKernelRejectsWhatTheHostWouldNotSend) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program());
  struct Case {
    uint32_t handler, flags, first, count, reason;
    const char* name;
  } cases[] = {{245, 0, 0, 1, KMD_REJECT_HANDLER, "handler"},
               {0, KM_FLAG_RESERVED, 0, 1, KMD_REJECT_FLAGS, "flags"},
               {0, 0, 6, 3, KMD_REJECT_GROUP, "group"},
               {0, 0, 0, 0, KMD_REJECT_GROUP, "group"}};
  for (const Case& c : cases) {
    const uint64_t h = submit_raw(run, c.handler, c.flags, c.first, c.count);
    const uint64_t one[] = {h};
    try {
      run.wait(one);
      FAIL() << "expected CommandRejected for " << c.name;
    } catch (const CommandRejected& e) {
      EXPECT_EQ(e.handle, h);
      EXPECT_EQ(e.reason, c.reason);
      EXPECT_EQ(e.reason_name, c.name);
    }
    run.forget(one);
  }
  // The run goes on.
  const uint64_t ok[] = {run.submit(KM_HANDLER_NOP, Group{})};
  EXPECT_EQ(run.wait(ok)[0].kind, EventKind::Done);
  run.stop();
}

TEST(PersistentRun, ACommandAfterExitIsRejectedWithReasonExited) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program());
  submit_raw(run, KM_HANDLER_EXIT, 0, 0, 0); // EXIT, then a NOP behind it in the same batch
  const uint64_t late[] = {submit_raw(run, KM_HANDLER_NOP, 0, 0, 1)};
  try {
    run.wait(late);
    FAIL() << "expected CommandRejected";
  } catch (const CommandRejected& e) {
    EXPECT_EQ(e.reason, uint32_t(KMD_REJECT_EXITED));
    EXPECT_EQ(e.reason_name, "exited");
  }
  const ResultBlock r = run.stop(); // the kernel has finished: stop reads it back
  EXPECT_EQ(r.error, KM_ERROR_NONE);
  EXPECT_EQ(r.rejected, 1u);
}

TEST(PersistentRun, TheHostChecksHandlersAndGroupsBeforeQueuing) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program());
  EXPECT_THROW(run.submit(240, Group{0, 1}), ValidationError);
  EXPECT_THROW(run.submit(0, Group{7, 2}), ValidationError);
  const uint32_t eleven[11] = {};
  EXPECT_THROW(run.submit(0, Group{0, 1}, eleven), ValidationError);
  EXPECT_THROW(run.submit(0, Group{0, 1}, {}, SubmitFlags{.exclusive = true, .queued = true}), ValidationError);
  EXPECT_EQ(run.submitted(), 0u); // nothing was queued
  run.stop();
  EXPECT_THROW(run.submit(0, Group{0, 1}), ValidationError);
}

TEST(PersistentRun, QueuedCommandsGetTheLowestFreeGroup) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program(16));
  std::vector<uint64_t> handles;
  for (int i = 0; i < 64; ++i) // at most 64 unfinished: none is rejected
    handles.push_back(run.submit(KM_HANDLER_NOP, Group{0, 2}, {}, SubmitFlags{.queued = true}));
  EXPECT_FALSE(run.group(handles[0])->first_known);
  EXPECT_EQ(run.wait(std::span(handles).first(1), 10.0)[0].auxiliary, 0u); // nothing ran: the lowest group
  EXPECT_FALSE(run.group(handles[0]).has_value());                         // waited for: forgotten
  const std::vector<dispatch::Event> events = run.wait(std::span(handles).subspan(1), 10.0);
  for (const dispatch::Event& e : events) {
    EXPECT_EQ(e.kind, EventKind::Done);
    EXPECT_LE(e.auxiliary + 2, 8u) << "the group lies inside the grid";
  }
  run.stop();
}

TEST(PersistentRun, TheJobQueueHolds64QueuedCommandsAndRejectsOneMore) {
  auto session = small_session();
  LoadOptions o;
  o.deadline_s = 30;
  dispatch::Run& run = session->load(basic_program(16), o);
  const uint64_t held = run.submit(kHandlerSpin, Group{0, 8}); // every core busy: nothing queued can start
  std::vector<uint64_t> handles;
  for (int i = 0; i < 65; ++i)
    handles.push_back(run.submit(KM_HANDLER_NOP, Group{0, 1}, {}, SubmitFlags{.queued = true}));
  const uint64_t last[] = {handles.back()};
  try {
    run.wait(last, 5.0);
    FAIL() << "expected CommandRejected";
  } catch (const CommandRejected& e) {
    EXPECT_EQ(e.reason, uint32_t(KMD_REJECT_QUEUE));
    EXPECT_EQ(e.reason_name, "queue");
  }
  EXPECT_FALSE(run.event(handles[63]).has_value());
  EXPECT_FALSE(run.event(held).has_value());
  const ResultBlock r = run.abort();
  EXPECT_EQ(r.abandoned.size(), 65u); // the spinning command and the 64 queued
}

TEST(PersistentRun, ExclusiveCommandsAndATinyEventRingStillComplete) {
  auto session = small_session();
  LoadOptions o;
  o.event_depth = 4;
  o.host_depth = 4;
  o.batch = 3;
  dispatch::Run& run = session->load(basic_program(4), o);
  std::vector<uint64_t> handles;
  for (int i = 0; i < 300; ++i)
    handles.push_back(run.submit(KM_HANDLER_NOP, Group{uint32_t(i % 3), 4}, {}, SubmitFlags{.exclusive = i % 2 == 0}));
  const std::vector<dispatch::Event> events = run.wait(handles, 20.0);
  EXPECT_EQ(events.size(), 300u);
  for (size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(run.sequence(handles[i]), std::nullopt) << "waited handles are forgotten";
  run.stop();
}

TEST(PersistentRun, AMissedDeadlineStopsTheGridAndSaysWhereTheCoresWere) {
  auto session = small_session();
  LoadOptions o;
  o.deadline_s = 0.2;
  dispatch::Run& run = session->load(basic_program(), o);
  const uint64_t h[] = {run.submit(kHandlerSpin, Group{2, 2})};
  try {
    run.wait(h, 5.0);
    FAIL() << "expected CommandTimeout";
  } catch (const CommandTimeout& e) {
    EXPECT_EQ(e.handle, h[0]);
    EXPECT_EQ(e.group, (std::pair<uint32_t, uint32_t>{2, 2}));
    ASSERT_EQ(e.cores.size(), 2u);
    EXPECT_EQ(e.cores[0].x, 2u);
    EXPECT_NE(e.cores[0].reader.find("cb_wait_front(cb=0, pages=1)"), std::string::npos) << e.cores[0].reader;
    EXPECT_NE(e.cores[0].reader.find("reader.cpp:5"), std::string::npos) << e.cores[0].reader;
    EXPECT_NE(std::string(e.what()).find("missed its deadline"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(run.stopped());
  EXPECT_EQ(run.result().error, KM_ERROR_DEADLINE);
  // The session loads again without any reset.
  dispatch::Run& again = session->load(basic_program());
  const uint64_t nop[] = {again.submit(0, Group{})};
  EXPECT_EQ(again.wait(nop)[0].kind, EventKind::Done);
  again.stop();
}

TEST(PersistentRun, AFaultInAHandlerIsKernelFailedNamingCoreRiscAndLine) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program());
  const uint64_t h[] = {run.submit(kHandlerFault, Group{5, 1})};
  try {
    run.wait(h, 5.0);
    FAIL() << "expected KernelFailed";
  } catch (const KernelFailed& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("compute.cpp:7"), std::string::npos) << m;
    EXPECT_NE(m.find("core (1,1) COMPUTE"), std::string::npos) << m;
    EXPECT_NE(m.find("null pointer"), std::string::npos) << m;
  }
  dispatch::Run& again = session->load(basic_program());
  const uint64_t nop[] = {again.submit(0, Group{})};
  EXPECT_EQ(again.wait(nop)[0].kind, EventKind::Done);
  again.stop();
}

// A host wait on the card past 2 s shows the commands done on stderr
// (TESSEL_PROGRESS=1 shows it though stderr is a file here), then erases it.
TEST(PersistentRun, ALongWaitShowsTheCommandsDone) {
  auto session = small_session();
  dispatch::Run& run = session->load(basic_program());
  std::vector<uint64_t> handles;
  const uint32_t ms[] = {100};
  for (uint32_t i = 0; i < 25; ++i)
    handles.push_back(run.submit(kHandlerNap, Group{0, 1}, ms));
  char path[] = "/tmp/tessel-wait-progress-XXXXXX";
  const int fd = mkstemp(path);
  const int saved = dup(STDERR_FILENO);
  setenv("TESSEL_PROGRESS", "1", 1);
  dup2(fd, STDERR_FILENO);
  const size_t events = run.wait(handles, 30.0).size();
  dup2(saved, STDERR_FILENO);
  unsetenv("TESSEL_PROGRESS");
  close(saved);
  std::string text(4096, '\0');
  text.resize(size_t(std::max<ssize_t>(0, pread(fd, text.data(), text.size(), 0))));
  close(fd);
  unlink(path);
  run.stop();
  EXPECT_EQ(events, 25u);
  EXPECT_NE(text.find("\r[tessel] waiting 2."), std::string::npos) << text;
  EXPECT_NE(text.find(" commands done ("), std::string::npos) << text;
  EXPECT_NE(text.find(" commands/s)\033[K"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() >= 4 ? text.size() - 4 : 0), "\r\033[K") << "the line is erased at the end";
}

TEST(PersistentRun, AWaitThatRunsOutLeavesTheRunLoaded) {
  auto session = small_session();
  LoadOptions o;
  o.deadline_s = 30;
  dispatch::Run& run = session->load(basic_program(), o);
  const uint64_t h[] = {run.submit(kHandlerSpin, Group{0, 1})};
  try {
    run.wait(h, 0.1);
    FAIL() << "expected WaitTimeout";
  } catch (const WaitTimeout& e) {
    EXPECT_EQ(e.pending, std::vector<uint64_t>{h[0]});
    EXPECT_NE(std::string(e.what()).find("core 0 pass marker"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(run.stopped());
  const ResultBlock r = run.abort();
  EXPECT_EQ(r.abandoned, std::vector<uint64_t>{h[0]});
}

TEST(PersistentRun, TracedCommandsRecordWhenEachCoreTookThem) {
  auto session = small_session();
  LoadOptions o;
  o.trace = 64;
  dispatch::Run& run = session->load(basic_program(), o);
  std::vector<uint64_t> handles;
  for (int i = 0; i < 10; ++i)
    handles.push_back(run.submit(0, Group{0, 8}, {}, SubmitFlags{.exclusive = true}));
  run.wait(handles);
  run.stop();
  uint32_t previous = 0;
  for (uint64_t h : handles) {
    ASSERT_EQ(run.sequence(h), h - 1);
    const std::vector<TraceEntry> t = run.trace(h);
    ASSERT_EQ(t.size(), 8u);
    EXPECT_GE(t[0].taken, previous);
    EXPECT_GE(t[0].written, t[0].taken);
    EXPECT_GE(t[0].sent, t[0].written);
    previous = t[0].taken;
  }
}

TEST(PersistentRun, KernelSizesAreMeasuredAndLogged) {
  std::vector<std::string> lines;
  DeviceConfig dc;
  dc.grid_x = 2;
  dc.grid_y = 1;
  SessionConfig sc;
  sc.device = Device::open(dc);
  sc.log = [&](const std::string& l) { lines.push_back(l); };
  auto session = Session::open(sc);
  dispatch::Run& run = session->load(basic_program());
  const KernelSizes& sizes = run.sizes();
  ASSERT_EQ(sizes.threads.size(), 5u);
  EXPECT_EQ(sizes.threads[0].name, "reader");
  EXPECT_EQ(sizes.buffer_bytes, Session::kDefaultKernelBytes);
  uint32_t total = 0;
  for (const auto& t : sizes.threads) {
    EXPECT_GT(t.text_bytes, 64u) << t.name;
    total += t.text_bytes;
  }
  EXPECT_EQ(sizes.total_bytes, total);
  bool logged = false;
  for (const std::string& l : lines)
    logged |= l.rfind("kernel sizes (estimate): reader ", 0) == 0 &&
              l.find(std::to_string(total) + " of 70656") != std::string::npos;
  EXPECT_TRUE(logged);
  run.stop();
}

TEST(PersistentRun, AProgramTooLargeForTheKernelBufferIsKernelSizeErrorBeforeAnythingLoads) {
  SessionConfig sc;
  sc.kernel_bytes = 1024;
  auto session = Session::open(sc);
  try {
    session->load(basic_program());
    FAIL() << "expected KernelSizeError";
  } catch (const KernelSizeError& e) {
    EXPECT_EQ(e.sizes.buffer_bytes, 1024u);
    EXPECT_GT(e.sizes.total_bytes, 1024u);
    EXPECT_NE(std::string(e.what()).find("more than the session's kernel buffer of 1024 bytes"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(session->run(), nullptr); // nothing was loaded
  EXPECT_EQ(session->l1(), (std::pair<uint32_t, uint32_t>{1024, Session::kL1Budget - 1024}));
}

TEST(PersistentRun, AFloatDivideInAComputeKernelIsKernelInstructionError) {
  auto session = small_session(2, 1);
  ProgramSpec p = basic_program();
  p.compute_path = kKernels + "../fdiv/compute.cpp";
  try {
    session->load(p);
    FAIL() << "expected KernelInstructionError";
  } catch (const KernelInstructionError& e) {
    ASSERT_FALSE(e.findings.empty());
    EXPECT_EQ(e.findings[0].instruction, "fdiv.s");
    EXPECT_NE(e.findings[0].function.find("scale"), std::string::npos) << e.findings[0].function;
    EXPECT_NE(e.findings[0].file.find("fdiv/compute.cpp"), std::string::npos) << e.findings[0].file;
    EXPECT_EQ(e.findings[0].line, 6u);
  }
  EXPECT_EQ(session->run(), nullptr);
}

namespace {
uint64_t resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;
  if (f) {
    if (std::fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE));
}
} // namespace

TEST(PersistentRun, AMillionCommandsInOneRunGrowResidentMemoryByAtMostOneMiB) {
#ifdef TESSEL_ASAN
  GTEST_SKIP() << "AddressSanitizer keeps freed memory resident (its quarantine): resident size says nothing here";
#endif
  auto session = small_session(4, 2);
  dispatch::Run& run = session->load(basic_program(16));
  constexpr uint32_t kChunk = 10000;
  std::vector<uint32_t> firsts(kChunk);
  for (uint32_t i = 0; i < kChunk; ++i)
    firsts[i] = i % 8;
  const uint32_t one[] = {1};
  std::vector<uint64_t> handles(kChunk);
  const auto chunk = [&] {
    const uint64_t first = run.submit_many(KM_HANDLER_NOP, firsts, one, {}, 0);
    for (uint32_t i = 0; i < kChunk; ++i)
      handles[i] = first + i;
    ASSERT_EQ(run.wait(handles, 60.0).size(), kChunk);
  };
  for (int i = 0; i < 10; ++i) // warm-up: every container at its steady size
    chunk();
  const uint64_t before = resident_bytes();
  for (int i = 0; i < 100; ++i)
    chunk();
  const uint64_t after = resident_bytes();
  EXPECT_EQ(run.submitted(), 110u * kChunk);
  EXPECT_LE(after, before + (1u << 20)) << "resident memory grew by " << (after - before) << " bytes";
  EXPECT_EQ(run.stop().commands, 110u * kChunk);
}

TEST(PersistentRun, ServingCommandsForLongerThanTheWatchdogLimitIsProgress) {
  // NOP commands touch no CB or semaphore: taking and reporting them is what
  // the host sees. A session that serves them for five watchdog limits runs on.
  for (const char* policy : {"deterministic", "parallel:2"}) {
    setenv("TESSEL_WATCHDOG_S", "0.2", 1);
    auto session = small_session(2, 1, policy);
    dispatch::Run& run = session->load(basic_program(16));
    unsetenv("TESSEL_WATCHDOG_S");
    const std::vector<uint32_t> firsts(1000, 0);
    const uint32_t one[] = {1};
    std::vector<uint64_t> handles(firsts.size());
    uint64_t submitted = 0;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < end) {
      const uint64_t first = run.submit_many(KM_HANDLER_NOP, firsts, one, {}, 0);
      std::iota(handles.begin(), handles.end(), first);
      ASSERT_EQ(run.wait(handles, 60.0).size(), handles.size()) << policy;
      submitted += handles.size();
    }
    EXPECT_EQ(run.stop().commands, submitted) << policy;
  }
}

TEST(PersistentRun, AKernelThatNeverReturnsIsGridTimeoutAndTheSessionCannotLoadAgain) {
  // In a child: the spinning card thread is left running, as the spec's card is.
  const pid_t child = fork();
  if (child == 0) {
    setenv("TESSEL_WATCHDOG_S", "0", 1);
    DeviceConfig dc;
    dc.grid_x = 1;
    dc.grid_y = 1;
    SessionConfig sc;
    sc.device = Device::open(dc);
    sc.grid_timeout_s = 0.2;
    auto session = Session::open(sc);
    ProgramSpec p = basic_program();
    p.reader_path = kKernels + "../spin/reader.cpp";
    dispatch::Run& run = session->load(p);
    const uint64_t h[] = {run.submit(1, Group{0, 1})};
    try {
      run.wait(h, 0.1);
      _exit(10);
    } catch (const WaitTimeout&) {
    }
    try {
      run.abort();
      _exit(11);
    } catch (const GridTimeout& e) {
      if (std::string(e.what()).find("did not return within 2.2") == std::string::npos) _exit(12);
    }
    try {
      session->load(basic_program());
      _exit(13);
    } catch (const DispatchError& e) {
      if (std::string(e.what()).find("GridTimeout") == std::string::npos) _exit(14);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(PersistentRun, APortStreamsBlocksFromOneCoreToAnotherAcrossCommands) {
  auto session = small_session(4, 1);
  ProgramSpec p = basic_program();
  p.reader_path = kKernels + "../ports/reader.cpp";
  p.handlers = {{"stream", 6}};
  dispatch::Run& run = session->load(p);
  std::vector<uint64_t> handles;
  for (uint32_t blocks : {5u, 1u, 12u}) {
    const uint32_t args[] = {blocks, blocks};
    handles.push_back(run.submit(6, Group{1, 2}, args));
  }
  EXPECT_EQ(run.wait(handles, 10.0).size(), 3u);
  run.stop();
  // The words of port 3 on both cores: running totals over the three streams.
  const std::vector<uint32_t> words = run.broadcast_words();
  EXPECT_EQ(words.size(), 4u * KM_BCAST_WORDS);
  const std::vector<uint32_t> ports = run.port_words();
  ASSERT_EQ(ports.size(), 4u * KM_PORTS * KM_PORT_WORDS);
  const auto port = [&](uint32_t core, uint32_t word) { return ports[(core * KM_PORTS + 3) * KM_PORT_WORDS + word]; };
  EXPECT_EQ(port(1, KM_PORT_SENT), 18u);
  EXPECT_EQ(port(1, KM_PORT_WANTED), 18u);
  EXPECT_EQ(port(2, KM_PORT_COUNT), 18u);
  EXPECT_EQ(port(2, KM_PORT_RECEIVED), 18u);
  EXPECT_EQ(port(1, KM_PORT_GAVE_UP) + port(2, KM_PORT_GAVE_UP), 0u);
}

class PersistentRunPolicy : public testing::TestWithParam<std::string> {};

// The cores on host threads too: the card's wait timeout ends a wait that
// another thread's core owns.
TEST_P(PersistentRunPolicy, AReceiverWhoseSenderStopsShortGivesUpAfterTheWaitTimeout) {
  auto session = small_session(4, 1, GetParam());
  ProgramSpec p = basic_program();
  p.reader_path = kKernels + "../ports/reader.cpp";
  p.handlers = {{"stream", 6}};
  LoadOptions o;
  o.wait_s = 0.1;
  dispatch::Run& run = session->load(p, o);
  const uint32_t args[] = {1, 2}; // the sender sends one block, the receiver waits for two
  const uint64_t h[] = {run.submit(6, Group{0, 2}, args)};
  try {
    run.wait(h, 10.0);
    FAIL() << "expected KernelFailed";
  } catch (const KernelFailed& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("port: gave up waiting (the session's wait timeout) for the sender's block"), std::string::npos)
        << m;
    EXPECT_NE(m.find("ports/reader.cpp:"), std::string::npos) << m;
    EXPECT_NE(m.find("core (1,0) NCRISC"), std::string::npos) << m;
  }
  const std::vector<uint32_t> ports = run.port_words();
  EXPECT_EQ(ports[(1 * KM_PORTS + 3) * KM_PORT_WORDS + KM_PORT_GAVE_UP], 2u); // core 1 gave up receiving
  EXPECT_EQ(ports[(1 * KM_PORTS + 3) * KM_PORT_WORDS + KM_PORT_RECEIVED], 1u);
}

// Timed: a command that waited for the program's only slot starts when the
// command before it ended, whichever host thread delivers it, and the reader
// that waited for it counts that time as waiting. (Deliveries used to carry
// the clock of whatever RISC ran beside the card's call: none at all when the
// card's poll delivered it, so core 1 below started at its own early clock.)
TEST_P(PersistentRunPolicy, ATimedCommandStartsWhenItsSlotFreesAndItsReaderWaitedForIt) {
  DeviceConfig dc;
  dc.grid_x = 2, dc.grid_y = 1;
  dc.policy = GetParam();
  dc.timing = true;
  SessionConfig sc;
  sc.device = Device::open(dc);
  auto session = Session::open(sc);
  auto buffer = Buffer::create(session->device_ptr(), BufferConfig{64 * 64, 64, BufferType::DRAM});
  dispatch::Run& run = session->load(basic_program(1));
  std::vector<uint64_t> first, second;
  for (uint32_t i = 0; i < 8; ++i) { // the writer's DRAM writes take estimated time
    const uint32_t args[] = {buffer->address(), 64, i};
    first.push_back(run.submit(kHandlerFill, Group{0, 1}, args));
  }
  run.wait(first, 10.0);
  second.push_back(run.submit(KM_HANDLER_NOP, Group{1, 1})); // submitted after: the slot is free
  run.wait(second, 10.0);
  run.stop();
  const TimingReport r = session->device().last_run_timing();
  auto find = [&](CoreCoord core, const char* risc) {
    for (const RiscTiming& x : r.riscs)
      if (x.core == core && x.risc == risc) return x;
    ADD_FAILURE() << "no " << risc << " of core " << core.str();
    return RiscTiming{};
  };
  const RiscTiming writer0 = find({0, 0}, "BRISC"), reader0 = find({0, 0}, "NCRISC");
  const RiscTiming reader1 = find({1, 0}, "NCRISC");
  EXPECT_GE(writer0.busy_cycles, 8u * 40u); // 8 fills
  // Core 1's reader waited for its NOP until core 0's fills had ended (then
  // for EXIT, which came when the last command had ended): it ends with core
  // 0, having done little itself. (Before: 48 cycles in all, none waiting.)
  EXPECT_GE(reader1.wait_cycles, writer0.busy_cycles);
  EXPECT_LT(reader1.busy_cycles, writer0.busy_cycles / 4);
  EXPECT_GE(reader1.total_cycles() + 64, writer0.total_cycles());
  // Core 0's reader takes 8 commands and mostly waits for them.
  EXPECT_GT(reader0.wait_cycles, 4 * reader0.busy_cycles);
}

INSTANTIATE_TEST_SUITE_P(Policies, PersistentRunPolicy, testing::Values("deterministic", "parallel:2", "parallel:4"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (ch == ':') ch = '_';
                           return name;
                         });
