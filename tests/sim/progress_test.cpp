// The progress line of a long run (src/sim/progress.cpp): shown on stderr
// for a run past 2 s when asked for (or on a terminal), rewritten in place
// and erased at the end; nothing for a run whose stderr is not a terminal.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// 22 pages, one every 100 ms: a run of about 2.2 s that keeps making progress.
constexpr const char* kSlowProducer = R"(#include "api/dataflow/dataflow_api.h"
#include <unistd.h>
void kernel_main() {
  for (int i = 0; i < 22; ++i) {
    cb_reserve_back(0, 1);
    usleep(100000);
    cb_push_back(0, 1);
  }
}
)";
constexpr const char* kConsumer = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  for (int i = 0; i < 22; ++i) {
    cb_wait_front(0, 1);
    cb_pop_front(0, 1);
  }
}
)";

// What the run writes to stderr.
std::string stderr_of_slow_run() {
  auto device = open_device();
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, one_cb_config(4096, 2048));
  p.add_kernel_from_source(kSlowProducer, "slow.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.add_kernel_from_source(kConsumer, "consumer.cpp", CoreCoord{0, 0},
                           DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  char path[] = "/tmp/tessel-progress-XXXXXX";
  const int fd = mkstemp(path);
  const int saved = dup(STDERR_FILENO);
  dup2(fd, STDERR_FILENO);
  device->command_queue().enqueue_program(p);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  return text.str();
}

TEST(ProgressLine, ALongRunShowsItsPagesAndErasesTheLine) {
  setenv("TESSEL_PROGRESS", "1", 1);
  const std::string err = stderr_of_slow_run();
  unsetenv("TESSEL_PROGRESS");
  EXPECT_NE(err.find("\r[tessel] running 2."), std::string::npos) << err;
  EXPECT_NE(err.find(" CB pages pushed ("), std::string::npos) << err;
  EXPECT_NE(err.find(" pages/s)\033[K"), std::string::npos) << err;
  EXPECT_EQ(err.substr(err.size() - 4), "\r\033[K") << err; // erased when the run ends
}

TEST(ProgressLine, NothingWhenStderrIsNotATerminal) {
  unsetenv("TESSEL_PROGRESS");
  EXPECT_EQ(stderr_of_slow_run(), "");
}

TEST(ProgressLine, AMalformedSettingIsAnErrorNamingTheVariable) {
  setenv("TESSEL_PROGRESS", "yes", 1);
  EXPECT_EQ(error_from<ValidationError>([] { open_device(); }), "TESSEL_PROGRESS='yes' is not valid: expected 1 or 0");
  unsetenv("TESSEL_PROGRESS");
}

} // namespace
} // namespace tessel::test
