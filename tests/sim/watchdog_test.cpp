// The watchdog (src/sim/watchdog.cpp): a kernel that makes no progress that
// another RISC or the host could observe, for the watchdog's time, is stopped
// with a report naming core, RISC and source line, whether it spins on L1
// without calling the kernel API or loops on calls that change nothing.
// Kernels that run long but keep making progress are not stopped.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kSpin = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  volatile uint32_t* flag = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  while (*flag == 0) {  // spin: never yields
  }
}
)";

constexpr const char* kBusy = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  // Long, legitimate work that keeps calling the kernel API.
  const uint32_t sem = get_semaphore(0);
  const uint32_t n = get_arg_val<uint32_t>(0);
  for (uint32_t i = 0; i < n; ++i) noc_semaphore_set(reinterpret_cast<volatile uint32_t*>(sem), i);
}
)";

// Loops that call the kernel API but change nothing (arg 0 selects one).
constexpr const char* kStuck = R"(#include "api/dataflow/dataflow_api.h"
#include <unistd.h>
void kernel_main() {
  const uint32_t how = get_arg_val<uint32_t>(0);
  const uint32_t l1 = get_write_ptr(0);
  volatile uint32_t* sem = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  if (how == 0) for (;;) noc_async_read_barrier(); // @barrier
  if (how == 1) {
    cb_reserve_back(0, 1);
    cb_push_back(0, 1);
    for (;;) cb_wait_front(0, 1); // @wait_front
  }
  if (how == 2) for (;;) noc_async_read(get_noc_addr(l1), l1 + 2048, 64); // @read
  if (how == 3) for (;;) noc_semaphore_wait(sem, 0); // @sem_wait
  if (how == 4) for (;;) noc_semaphore_set(sem, 5); // @sem_set
  if (how == 5) sleep(1000); // @sleep
  if (how == 6) for (;;) noc_async_write(l1, get_noc_addr(l1 + 2048), 64); // @write
}
)";

// Two RISCs each polling for a page the other never pushes: they yield to
// each other forever, which is no deadlock but no progress either.
constexpr const char* kPoller = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t cb = get_arg_val<uint32_t>(0);
  while (!cb_pages_available_at_front(cb, 1)) { // @poll
  }
}
)";

// Long, legitimate compute: every tile takes many SFPU calls, and the tiles
// go to a writer that pops them, so progress is made throughout.
constexpr const char* kLongCompute = R"(#include "api/compute/common.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/fill.h"
void kernel_main() {
  const uint32_t tiles = get_arg_val<uint32_t>(0);
  const uint32_t ops_per_tile = get_arg_val<uint32_t>(1);
  init_sfpu(tt::CBIndex::c_16, tt::CBIndex::c_16);
  for (uint32_t t = 0; t < tiles; ++t) {
    tile_regs_acquire();
    fill_tile_init();
    fill_tile(0, 0.5f);
    exp_tile_init();
    for (uint32_t i = 0; i < ops_per_tile; ++i) exp_tile(0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(tt::CBIndex::c_16, 1);
    pack_tile(0, tt::CBIndex::c_16);
    cb_push_back(tt::CBIndex::c_16, 1);
    tile_regs_release();
  }
}
)";

constexpr const char* kTileSink = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t tiles = get_arg_val<uint32_t>(0);
  for (uint32_t t = 0; t < tiles; ++t) {
    cb_wait_front(16, 1);
    cb_pop_front(16, 1);
  }
}
)";

class WatchdogTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("TESSEL_WATCHDOG_S", "0.3", 1);
    device = open_device();
  }
  void TearDown() override { unsetenv("TESSEL_WATCHDOG_S"); }

  // The KernelFault of kStuck's case `how` on core (1,0) BRISC.
  std::string stuck(uint32_t how) {
    Program p;
    p.add_semaphore(CoreCoord{1, 0}, 0);
    p.add_circular_buffer(CoreCoord{1, 0}, one_cb_config(4096, 2048));
    KernelHandle k = p.add_kernel_from_source(kStuck, "stuck.cpp", CoreCoord{1, 0}, DataMovementConfig{});
    p.set_runtime_args(k, CoreCoord{1, 0}, {how});
    std::string message = error_of<KernelFault>(device->command_queue(), p);
    expect_device_works(device);
    return message;
  }
  static std::string no_progress(const std::string& marker, const std::string& call) {
    return "stuck.cpp:" + std::to_string(marker_line(kStuck, marker)) +
           ": core (1,0) BRISC: kernel 'stuck.cpp' crashed: ran for more than 0.30 s without progress: its calls to " +
           call +
           " change nothing another RISC or the host can observe (no CB page pushed or popped, no semaphore changed, "
           "no NoC transfer completed by a barrier): a loop that forgot a cb_pop_front, a cb_push_back or a barrier, "
           "or that waits for something that cannot happen? TESSEL_WATCHDOG_S sets the limit";
  }

  std::shared_ptr<Device> device;
};

TEST_F(WatchdogTest, RawSpinLoopIsStoppedWithItsSourceLine) {
  SKIP_UNDER_TSAN();
  Program p;
  p.add_semaphore(CoreCoord{1, 1}, 0);
  p.add_kernel_from_source(kSpin, "spin.cpp", CoreCoord{1, 1}, DataMovementConfig{});
  const std::string msg = error_of<KernelFault>(device->command_queue(), p);
  EXPECT_NE(msg.find("core (1,1) BRISC: kernel 'spin.cpp' crashed: ran for more than"), std::string::npos) << msg;
  EXPECT_NE(msg.find("raw spin loop"), std::string::npos) << msg;
  EXPECT_NE(msg.find("spin.cpp:4"), std::string::npos) << msg;
  expect_device_works(device);
}

TEST_F(WatchdogTest, BusyKernelThatCallsTheApiIsNotStopped) {
  Program p;
  p.add_semaphore(CoreCoord{0, 0}, 0);
  KernelHandle k = p.add_kernel_from_source(kBusy, "busy.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  // ~1 s of work at 0.3 s watchdog: progress is counted per API call, not per switch.
  p.set_runtime_args(k, CoreCoord{0, 0}, {60'000'000u});
  EXPECT_NO_THROW(device->command_queue().enqueue_program(p));
}

TEST_F(WatchdogTest, ABarrierLoopWithNothingOutstandingIsStopped) {
  EXPECT_EQ(stuck(0), no_progress("barrier", "noc_async_read_barrier"));
}

TEST_F(WatchdogTest, ACbWaitFrontLoopThatNeverPopsIsStopped) {
  EXPECT_EQ(stuck(1), no_progress("wait_front", "cb_wait_front"));
}

TEST_F(WatchdogTest, ALoopOfReadsWithoutABarrierIsStopped) {
  EXPECT_EQ(stuck(2), no_progress("read", "noc_async_read"));
}

TEST_F(WatchdogTest, ALoopOfWritesWithoutABarrierIsStopped) {
  EXPECT_EQ(stuck(6), no_progress("write", "noc_async_write"));
}

TEST_F(WatchdogTest, ALoopOnASatisfiedSemaphoreWaitIsStopped) {
  // noc_semaphore_wait returns inline when the value is already there.
  EXPECT_EQ(stuck(3), no_progress("sem_wait", "noc_semaphore_wait"));
}

TEST_F(WatchdogTest, SettingASemaphoreToTheValueItHoldsIsNoProgress) {
  // The first set changes the semaphore (progress); the rest change nothing.
  EXPECT_EQ(stuck(4), no_progress("sem_set", "noc_semaphore_set"));
}

TEST_F(WatchdogTest, ASleepingKernelIsBlamedOnItsOwnLine) {
  SKIP_UNDER_TSAN();
  const std::string message = stuck(5);
  const std::string site = "stuck.cpp:" + std::to_string(marker_line(kStuck, "sleep")) + ": core (1,0) BRISC: ";
  EXPECT_EQ(message.rfind(site + "kernel 'stuck.cpp' crashed: ran for more than 0.30 s without progress (in libc", 0),
            0u)
      << message;
  EXPECT_NE(message.find(", called from here): kernels share their core's host thread, so a call that sleeps or "
                         "blocks stops the simulation"),
            std::string::npos)
      << message;
}

TEST_F(WatchdogTest, RiscsPollingEachOtherForeverAreStopped) {
  Program p;
  for (uint8_t cb : {0, 1})
    p.add_circular_buffer(CoreCoord{0, 0}, one_cb_config(2048, 2048, cb));
  KernelHandle a = p.add_kernel_from_source(kPoller, "poller.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  KernelHandle b =
      p.add_kernel_from_source(kPoller, "poller.cpp", CoreCoord{0, 0},
                               DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, {}});
  p.set_runtime_args(a, CoreCoord{0, 0}, {0});
  p.set_runtime_args(b, CoreCoord{0, 0}, {1});
  const std::string message = error_of<KernelFault>(device->command_queue(), p);
  const std::string site = "poller.cpp:" + std::to_string(marker_line(kPoller, "poll")) + ": core (0,0) ";
  EXPECT_EQ(message.rfind(site, 0), 0u) << message;
  EXPECT_NE(message.find("ran for more than 0.30 s without progress: its calls to cb_pages_available_at_front change "
                         "nothing"),
            std::string::npos)
      << message;
  expect_device_works(device);
}

TEST_F(WatchdogTest, LongComputeThatKeepsProducingIsNotStopped) {
  // About a second of SFPU work at a 0.3 s watchdog, in tiles of well under 0.3 s.
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, one_cb_config(2 * 2048, 2048, 16));
  KernelHandle compute = p.add_kernel_from_source(kLongCompute, "long_compute.cpp", CoreCoord{0, 0}, ComputeConfig{});
  KernelHandle sink = p.add_kernel_from_source(kTileSink, "sink.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  // Build the kernels, then time one tile's worth of SFPU calls to size the run.
  p.set_runtime_args(compute, CoreCoord{0, 0}, {1, 1});
  p.set_runtime_args(sink, CoreCoord{0, 0}, {1});
  device->command_queue().enqueue_program(p);
  p.runtime_args(compute, CoreCoord{0, 0})[1] = 2000;
  const auto start = std::chrono::steady_clock::now();
  device->command_queue().enqueue_program(p);
  const double per_call_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 2000;
  uint32_t ops_per_tile = std::max<uint32_t>(1, uint32_t(0.03 / per_call_s)); // ~30 ms per tile
  const uint32_t tiles = 40;                                                  // ~1.2 s in all
  p.set_runtime_args(sink, CoreCoord{0, 0}, {tiles});
  // A busy machine can make the estimate short: lengthen the tiles until a
  // run lasts long enough to prove something (each run must go through).
  double seconds = 0;
  for (int attempt = 0; attempt < 4 && seconds < 0.6; ++attempt, ops_per_tile *= 2) {
    p.set_runtime_args(compute, CoreCoord{0, 0}, {tiles, ops_per_tile});
    const auto long_start = std::chrono::steady_clock::now();
    ASSERT_NO_THROW(device->command_queue().enqueue_program(p)) << ops_per_tile << " SFPU calls per tile";
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - long_start).count();
  }
  EXPECT_GT(seconds, 0.6) << "the runs were too short to prove anything";
}

TEST(WatchdogEnvironmentTest, AMalformedTimeoutIsAnErrorNamingTheVariable) {
  for (const char* bad : {"abc", "-1", "1e3", "0x10", "10s", "."}) {
    setenv("TESSEL_WATCHDOG_S", bad, 1);
    EXPECT_EQ(error_from<ValidationError>([] { open_device(); }),
              std::string("TESSEL_WATCHDOG_S='") + bad +
                  "' is not valid: expected a number of seconds, 0 or more (e.g. 10 or 0.5; 0 turns it off)");
  }
  setenv("TESSEL_WATCHDOG_S", "2.5", 1);
  EXPECT_NO_THROW(open_device());
  unsetenv("TESSEL_WATCHDOG_S");
}

} // namespace
} // namespace tessel::test
