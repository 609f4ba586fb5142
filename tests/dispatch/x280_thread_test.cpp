// X280 threads (src/dispatch/x280_thread.hpp): the build and its cache, the
// thread's API (tessel/x280.h) with the test playing the card, and every way
// a thread can end, none of which may reach the test's process.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "dispatch/x280_thread.hpp"
#include "tessel/error.hpp"
#include "tessel/x280.h"

namespace fs = std::filesystem;
using namespace tessel::dispatch;

namespace {

const std::string kKernels = std::string(TESSEL_DISPATCH_TEST_KERNELS) + "/x280/";

X280ThreadSpec spec_of(std::vector<std::string> sources, std::vector<uint32_t> words = {}, uint32_t cluster = 1) {
  X280ThreadSpec spec;
  spec.cluster = cluster;
  for (auto& s : sources)
    spec.sources.push_back(kKernels + s);
  spec.words = std::move(words);
  return spec;
}

// The 1-based line of `file` that contains `marker`.
int line_of(const std::string& file, const std::string& marker) {
  std::ifstream in(kKernels + file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using Card = std::function<uint32_t(const X280Command&)>;

// Starts the thread and plays the card until it ends: every command taken
// is completed at once with card(command).
X280ThreadResult run_with_card(X280Thread& thread, const Card& card = {}) {
  thread.start();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!thread.finished() && std::chrono::steady_clock::now() < give_up) {
    X280Command command;
    if (thread.take(command))
      thread.complete(command.ticket, card ? card(command) : 0);
    else
      std::this_thread::yield();
  }
  return thread.wait(1.0);
}

std::string expect_validation_error(const X280ThreadSpec& spec, const std::vector<X280Region>& regions = {}) {
  try {
    X280Thread::build(spec, regions);
  } catch (const tessel::ValidationError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ValidationError";
  return {};
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("tessel-x280-test-" + std::to_string(getpid()) + "-" +
                                        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

} // namespace

TEST(X280Thread, ReadsWordsAndRegionsAndWritesARegion) {
  X280ThreadSpec spec = spec_of({"words_regions.cpp", "words_regions_helper.c"}, {5, 6, 7}, /*cluster*/ 2);
  spec.regions = {"input", "output"};
  const std::vector<X280Region> regions = {
      {"absent", {9, 9}}, {"input", {1, 2, 3, 250}}, {"output", std::vector<uint8_t>(6, 0xAA)}};
  auto thread = X280Thread::build(spec, regions);
  EXPECT_EQ(thread->cluster(), 2u);
  EXPECT_EQ(thread->read_region("input"), (std::vector<uint8_t>{1, 2, 3, 250}));

  X280ThreadResult r = run_with_card(*thread);
  EXPECT_EQ(r.status, "done") << r.error;
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.cluster, 2u);
  EXPECT_EQ(r.value, 5u + 6 + 7 + 2000);
  EXPECT_EQ(r.commands, 0u);
  EXPECT_EQ(r.log, (std::vector<std::string>{"cluster 2 words 3", "two", "lines"}));
  EXPECT_EQ(r.log_dropped, 0u);
  EXPECT_EQ(r.output, "hello from the thread\n");
  EXPECT_GT(r.seconds, 0.0);
  // input + word 0, wrapping; the last two bytes untouched.
  EXPECT_EQ(thread->read_region("output"), (std::vector<uint8_t>{6, 7, 8, 255, 0xAA, 0xAA}));
  EXPECT_EQ(thread->read_region("input"), (std::vector<uint8_t>{1, 2, 3, 250}));
  try {
    thread->read_region("absent");
    FAIL() << "expected a ValidationError";
  } catch (const tessel::ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "run.thread.read('absent'): the thread on cluster 2 has no region 'absent' (its "
                                     "regions: 'input', 'output')");
  }
  // The result is kept.
  EXPECT_EQ(thread->wait(0).value, r.value);
}

TEST(X280Thread, SubmitsCommandsAndGetsTheirResults) {
  constexpr uint32_t kCommands = 40; // more than KM_X280_INFLIGHT: submit waits for room
  auto thread = X280Thread::build(spec_of({"submit.cpp"}, {kCommands}), {});
  thread->start();

  std::vector<X280Command> held;
  uint32_t taken = 0;
  size_t most_held = 0;
  bool saw_more_than_inflight = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!thread->finished() && std::chrono::steady_clock::now() < give_up) {
    X280Command c;
    if (thread->take(c)) {
      ++taken;
      if (c.handler == 7) {
        const uint32_t i = taken - 1;
        EXPECT_EQ(c.flags, KM_FLAG_RESULT);
        EXPECT_EQ(c.first, i % 4);
        EXPECT_EQ(c.count, 1u);
        ASSERT_EQ(c.arg_count, 2u);
        EXPECT_EQ(c.args[0], i);
        EXPECT_EQ(c.args[1], 3 * i);
        EXPECT_EQ(c.args[2], 0u);
      } else {
        EXPECT_EQ(c.handler, 8u);
        EXPECT_EQ(c.flags, KM_FLAG_EXCLUSIVE);
        EXPECT_EQ(c.first, 2u);
        EXPECT_EQ(c.count, 3u);
        ASSERT_EQ(c.arg_count, 10u);
        EXPECT_EQ(c.args[9], 10u);
      }
      held.push_back(c);
      most_held = std::max(most_held, held.size());
      if (held.size() < KM_X280_INFLIGHT && taken < kCommands) continue;
      // The thread has as many commands in flight as it may: it sends no
      // more until one completes.
      for (int i = 0; i < 2000; ++i) {
        X280Command more;
        if (thread->take(more)) saw_more_than_inflight = true;
      }
      // Complete them newest first: results are matched by ticket, not order.
      for (auto it = held.rbegin(); it != held.rend(); ++it) {
        uint32_t result = 0; // handler 7: args[0] + args[1]; handler 8: the sum of its ten
        for (uint32_t a = 0; a < it->arg_count; ++a)
          result += it->args[a];
        thread->complete(it->ticket, result);
      }
      held.clear();
    } else {
      std::this_thread::yield();
    }
  }
  X280ThreadResult r = thread->wait(1.0);
  EXPECT_EQ(r.status, "done") << r.error;
  EXPECT_EQ(r.value, kCommands); // every result arrived and matched
  EXPECT_EQ(r.commands, uint64_t(kCommands) + 1);
  EXPECT_EQ(taken, kCommands + 1);
  EXPECT_EQ(most_held, size_t(KM_X280_INFLIGHT));
  EXPECT_FALSE(saw_more_than_inflight);
}

TEST(X280Thread, TheCardThreadAndTheHostThreadRunTogether) {
  // As the dispatcher will: a card thread starts the thread and moves its
  // commands, the host thread waits for the result.
  constexpr uint32_t kCommands = 200;
  auto thread = X280Thread::build(spec_of({"submit.cpp"}, {kCommands}), {});
  std::atomic<bool> started{false};
  std::thread card([&] {
    thread->start();
    started.store(true);
    while (!thread->finished()) {
      X280Command c;
      if (!thread->take(c)) {
        std::this_thread::yield();
        continue;
      }
      uint32_t result = 0;
      for (uint32_t a = 0; a < c.arg_count; ++a)
        result += c.args[a];
      thread->complete(c.ticket, result);
    }
  });
  while (!started.load())
    std::this_thread::yield();
  X280ThreadResult r = thread->wait(10.0);
  card.join();
  EXPECT_EQ(r.status, "done") << r.error;
  EXPECT_EQ(r.value, kCommands);
  EXPECT_EQ(r.commands, uint64_t(kCommands) + 1);
}

TEST(X280Thread, CompleteOfAnUnknownTicketThrows) {
  auto thread = X280Thread::build(spec_of({"stop_wait.cpp"}), {});
  thread->start();
  X280Command c;
  while (!thread->take(c))
    std::this_thread::yield();
  EXPECT_THROW(thread->complete(c.ticket + 1, 0), tessel::Error);
  thread->complete(c.ticket, 0);
  try {
    thread->complete(c.ticket, 0);
    FAIL() << "expected an Error";
  } catch (const tessel::Error& e) {
    EXPECT_EQ(std::string(e.what()), "program.thread(cluster=1): complete(ticket 1): no command taken from the thread "
                                     "has that ticket in flight");
  }
  X280ThreadResult r = thread->wait(5.0);
  EXPECT_EQ(r.status, "done") << r.error;
  EXPECT_EQ(r.value, 1u);
}

TEST(X280Thread, LogLinesAreKeptOrCounted) {
  constexpr uint32_t kLines = 500; // far more than the ring holds between the host's looks
  auto thread = X280Thread::build(spec_of({"log_flood.cpp"}, {kLines}), {});
  thread->start();
  X280ThreadResult r = thread->wait(10.0);
  EXPECT_EQ(r.status, "done") << r.error;
  EXPECT_EQ(r.log.size() + r.log_dropped, kLines + 1);
  ASSERT_FALSE(r.log.empty());
  EXPECT_EQ(r.log[0], std::string(KM_X280_LOG_LINE_BYTES, 'x')); // the first finds the ring empty; cut
  for (size_t i = 1; i < r.log.size(); ++i)
    EXPECT_TRUE(r.log[i].starts_with("line ")) << r.log[i];
}

TEST(X280Thread, ASegfaultIsTheThreadsResult) {
  auto thread = X280Thread::build(spec_of({"segv.cpp"}, {16}), {});
  X280ThreadResult r = run_with_card(*thread);
  EXPECT_EQ(r.status, "failed");
  EXPECT_TRUE(contains(r.error, "killed by SIGSEGV (segmentation fault) at address 0x10, in ")) << r.error;
  EXPECT_TRUE(r.error.ends_with("segv.cpp:" + std::to_string(line_of("segv.cpp", "the fault")))) << r.error;
}

TEST(X280Thread, ExitIsTheThreadsResult) {
  auto thread = X280Thread::build(spec_of({"exit.cpp"}), {});
  X280ThreadResult r = run_with_card(*thread);
  EXPECT_EQ(r.status, "failed");
  EXPECT_EQ(r.error, "exited with status 3 before its function returned (exit(), _exit() or quick_exit() in the "
                     "thread)");
  EXPECT_EQ(r.log, (std::vector<std::string>{"exiting"}));
}

TEST(X280Thread, AbortIsTheThreadsResult) {
  auto thread = X280Thread::build(spec_of({"abort.cpp"}), {});
  X280ThreadResult r = run_with_card(*thread);
  EXPECT_EQ(r.status, "failed");
  EXPECT_TRUE(contains(r.error, "killed by SIGABRT (abort), in ")) << r.error;
  EXPECT_TRUE(contains(r.error, "abort.cpp:" + std::to_string(line_of("abort.cpp", "the abort")) + "\n")) << r.error;
  EXPECT_TRUE(contains(r.error, "its output:\nabout to abort\n")) << r.error;
}

TEST(X280Thread, AHangIsKilledAtItsDeadline) {
  X280ThreadSpec spec = spec_of({"spin.cpp"}, {0});
  spec.deadline_s = 0.2;
  auto thread = X280Thread::build(spec, {});
  thread->start();
  X280ThreadResult r = thread->wait(10.0); // the deadline comes first
  EXPECT_EQ(r.status, "deadline");
  EXPECT_EQ(r.error, "did not return within 0.25 s of the stop request (its deadline, 0.2 s); killed");
  EXPECT_GE(r.seconds, 0.2 + X280Thread::kStopGrace_s);
  EXPECT_LT(r.seconds, 5.0);
}

TEST(X280Thread, AThreadThatReturnsAtItsDeadlineKeepsItsValue) {
  X280ThreadSpec spec = spec_of({"spin.cpp"}, {1});
  spec.deadline_s = 0.1;
  auto thread = X280Thread::build(spec, {});
  X280ThreadResult r = run_with_card(*thread); // the card's finished() enforces the deadline
  EXPECT_EQ(r.status, "deadline");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.value, 5u);
  EXPECT_GE(r.seconds, 0.1);
}

TEST(X280Thread, WaitsTimeoutStopsAndThenKills) {
  {
    auto thread = X280Thread::build(spec_of({"spin.cpp"}, {1}), {});
    thread->start();
    X280ThreadResult r = thread->wait(0.05);
    EXPECT_EQ(r.status, "stopped");
    EXPECT_EQ(r.value, 5u);
    EXPECT_EQ(r.error, "");
  }
  {
    auto thread = X280Thread::build(spec_of({"spin.cpp"}, {0}), {});
    thread->start();
    X280ThreadResult r = thread->wait(0.05);
    EXPECT_EQ(r.status, "stopped");
    EXPECT_EQ(r.error, "did not return within 0.25 s of the stop request (the host's); killed");
  }
}

TEST(X280Thread, StopWhileBlockedInWait) {
  auto thread = X280Thread::build(spec_of({"stop_wait.cpp"}), {});
  thread->start();
  X280Command c;
  while (!thread->take(c))
    std::this_thread::yield();
  // The card holds the command: the thread waits for it (and parks).
  const auto hold_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  while (std::chrono::steady_clock::now() < hold_until)
    EXPECT_FALSE(thread->finished());
  thread->request_stop();
  X280ThreadResult r = thread->wait(5.0);
  EXPECT_EQ(r.status, "stopped");
  EXPECT_EQ(r.value, 77u); // its wait returned false
  EXPECT_EQ(r.error, "");
  EXPECT_LT(r.seconds, 2.0);
  EXPECT_EQ(r.commands, 1u);
}

TEST(X280Thread, MisuseOfTheApiFailsTheThread) {
  const std::vector<std::string> expected = {
      "x280::submit(handler 1): 11 arguments, at most 10",
      "x280::word(5): the thread has 1 words (program.thread's words)",
      "x280::wait(9): no such ticket (the last submitted is 0)",
      "x280::submit(handler 1): flags 0x1; expected KM_FLAG_EXCLUSIVE, KM_FLAG_RESULT and KM_FLAG_QUEUE (0xe)",
      "the thread's own failure",
  };
  for (uint32_t kind = 0; kind < expected.size(); ++kind) {
    auto thread = X280Thread::build(spec_of({"misuse.cpp"}, {kind}), {});
    X280ThreadResult r = run_with_card(*thread);
    EXPECT_EQ(r.status, "failed") << kind;
    EXPECT_EQ(r.error, expected[kind]);
  }
}

TEST(X280Thread, ASourceWithoutAnEntryFails) {
  auto thread = X280Thread::build(spec_of({"no_entry.cpp"}), {});
  X280ThreadResult r = run_with_card(*thread);
  EXPECT_EQ(r.status, "failed");
  EXPECT_EQ(r.error, "the thread's sources define no entry: one of them must use TESSEL_X280_THREAD(fn) "
                     "(tessel/x280.h)");
}

TEST(X280Thread, ACompileErrorNamesTheFileAndLine) {
  try {
    X280Thread::build(spec_of({"compile_error.cpp"}), {});
    FAIL() << "expected a ProgramError";
  } catch (const tessel::ProgramError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "program.thread(cluster=1): " + kKernels + "compile_error.cpp failed to compile:\n"))
        << what;
    EXPECT_TRUE(contains(what, "compile_error.cpp:" + std::to_string(line_of("compile_error.cpp", "the error")) + ":"))
        << what;
    EXPECT_TRUE(contains(what, "undeclared_name")) << what;
  }
}

TEST(X280Thread, TheSecondBuildIsACacheHit) {
  TempDir cache, sources;
  const fs::path source = sources.path / "thread.cpp";
  const fs::path header = sources.path / "local.h";
  std::ofstream(header) << "#define VALUE 11u\n";
  std::ofstream(source) << "#include \"tessel/x280.h\"\n#include \"local.h\"\n"
                           "static uint32_t run() { return VALUE; }\nTESSEL_X280_THREAD(run)\n";
  X280ThreadSpec spec;
  spec.sources = {source.string()};

  auto first = X280Thread::build(spec, {}, cache.path.string());
  EXPECT_TRUE(first->compiled());
  EXPECT_TRUE(first->object_path().starts_with(cache.path.string() + "/x280/")) << first->object_path();
  auto second = X280Thread::build(spec, {}, cache.path.string());
  EXPECT_FALSE(second->compiled());
  EXPECT_EQ(second->object_path(), first->object_path());
  EXPECT_EQ(run_with_card(*second).value, 11u);

  // A header the source includes is part of the key.
  std::ofstream(header) << "#define VALUE 12u\n";
  auto third = X280Thread::build(spec, {}, cache.path.string());
  EXPECT_TRUE(third->compiled());
  EXPECT_EQ(run_with_card(*third).value, 12u);
  // The first build's thread runs the object it verified, not the republished one.
  EXPECT_EQ(run_with_card(*first).value, 11u);
}

TEST(X280Thread, TheDestructorKillsARunningThread) {
  X280ThreadSpec spec = spec_of({"spin.cpp"}, {0});
  spec.regions = {"pid"};
  auto thread = X280Thread::build(spec, {{"pid", std::vector<uint8_t>(4, 0)}});
  thread->start();
  uint32_t pid = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pid == 0 && std::chrono::steady_clock::now() < give_up) {
    std::vector<uint8_t> bytes = thread->read_region("pid");
    std::memcpy(&pid, bytes.data(), 4);
  }
  ASSERT_NE(pid, 0u);
  EXPECT_EQ(kill(pid_t(pid), 0), 0); // running
  thread.reset();
  EXPECT_EQ(kill(pid_t(pid), 0), -1); // killed and reaped
  EXPECT_EQ(errno, ESRCH);
}

TEST(X280Thread, TheSpecIsValidatedBeforeAnythingIsBuilt) {
  X280ThreadSpec spec = spec_of({"words_regions.cpp"});
  spec.cluster = 0;
  EXPECT_EQ(expect_validation_error(spec),
            "program.thread(cluster=0): cluster must be 1, 2 or 3 (cluster 0 runs the dispatcher)");
  spec.cluster = 4;
  EXPECT_EQ(expect_validation_error(spec),
            "program.thread(cluster=4): cluster must be 1, 2 or 3 (cluster 0 runs the dispatcher)");

  spec = spec_of({"words_regions.cpp"});
  spec.prefetch = "always";
  EXPECT_EQ(expect_validation_error(spec),
            "program.thread(cluster=1): prefetch='always': expected 'documented' or 'off'");

  spec = spec_of({"words_regions.cpp"});
  spec.deadline_s = -1;
  EXPECT_EQ(expect_validation_error(spec), "program.thread(cluster=1): deadline=-1: expected seconds >= 0 (0: none)");

  spec = spec_of({});
  EXPECT_EQ(expect_validation_error(spec), "program.thread(cluster=1): no sources (one or more .c or .cpp files, one "
                                           "of them with TESSEL_X280_THREAD(fn))");
  spec = spec_of({"missing.cpp"});
  EXPECT_EQ(expect_validation_error(spec),
            "program.thread(cluster=1): sources[0] '" + kKernels + "missing.cpp': no such file");
  spec = spec_of({"words_regions.cpp", "thread.h"});
  EXPECT_EQ(expect_validation_error(spec), "program.thread(cluster=1): sources[1] '" + kKernels +
                                               "thread.h': expected a C or C++ source (.c, .cpp, .cc, .cxx)");
  spec = spec_of({"words_regions.cpp", "words_regions.cpp"});
  EXPECT_EQ(expect_validation_error(spec),
            "program.thread(cluster=1): sources[1] '" + kKernels + "words_regions.cpp': given twice");

  spec = spec_of({"words_regions.cpp"});
  spec.regions = {"input", "weights"};
  EXPECT_EQ(expect_validation_error(spec, {{"input", {}}, {"output", {}}}),
            "program.thread(cluster=1): region 'weights' is not declared (program.region declares 'input', "
            "'output')");
  EXPECT_EQ(expect_validation_error(spec), "program.thread(cluster=1): region 'input' is not declared "
                                           "(program.region declares none)");
  spec.regions = {"input", "input"};
  EXPECT_EQ(expect_validation_error(spec, {{"input", {}}}),
            "program.thread(cluster=1): region 'input' is named twice in regions");
}

TEST(X280Thread, AMissingRunnerIsReportedAtBuild) {
  const char* saved = std::getenv("TESSEL_X280_RUNNER");
  const std::string saved_value = saved ? saved : "";
  setenv("TESSEL_X280_RUNNER", "/nonexistent/tessel-x280-runner", 1);
  try {
    X280Thread::build(spec_of({"words_regions.cpp"}), {});
    ADD_FAILURE() << "expected a ProgramError";
  } catch (const tessel::ProgramError& e) {
    EXPECT_EQ(std::string(e.what()),
              "program.thread(cluster=1): the X280 thread runner '/nonexistent/tessel-x280-runner' is missing or not "
              "executable (TESSEL_X280_RUNNER names it; a build tree has it as tools/tessel-x280-runner)");
  }
  if (saved)
    setenv("TESSEL_X280_RUNNER", saved_value.c_str(), 1);
  else
    unsetenv("TESSEL_X280_RUNNER");
}
