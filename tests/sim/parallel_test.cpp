// The parallel policy (src/sim/parallel_run.cpp): a run's cores on several
// host threads. A fault, a kernel error or a stall on any thread stops the
// whole run with the report the deterministic policy gives; a deadlock across
// threads is found exactly; many cross-thread handshakes neither lose a
// wake-up nor report a false deadlock; the device stays usable.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// Every core but the last counts to arg 0 with semaphore stores (progress);
// the last core does what arg 1 selects.
constexpr const char* kMixed = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  const uint32_t how = get_arg_val<uint32_t>(1);
  volatile uint32_t* sem = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  if (how == 0) for (uint32_t i = 0; i < n; ++i) noc_semaphore_set(sem, i);
  if (how == 1) *reinterpret_cast<volatile uint32_t*>(uintptr_t(0)) = 1; // @null
  if (how == 2) cb_pop_front(0, 1); // @pop
  if (how == 3) while (*sem == 0) { } // @spin
}
)";

// A ring of cores: core i passes a token to core i + 1 `rounds` times with
// remote semaphore increments; core 0 starts it.
constexpr const char* kRing = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t rounds = get_arg_val<uint32_t>(0);
  const uint32_t first = get_arg_val<uint32_t>(1);
  const uint64_t next = get_noc_addr(get_arg_val<uint32_t>(2), get_arg_val<uint32_t>(3), get_semaphore(0));
  volatile uint32_t* mine = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  for (uint32_t r = 0; r < rounds; ++r) {
    if (!first || r > 0) noc_semaphore_wait_min(mine, first ? r : r + 1);
    noc_semaphore_inc(next, 1);
  }
  if (first) noc_semaphore_wait_min(mine, rounds);
}
)";

// kRing on every core of `range`, in its cores' order: `laps` laps, started
// by the first core when `started`, else every core waits first (a deadlock).
Program ring(const std::shared_ptr<Device>& device, const CoreRange& range, uint32_t laps, bool started) {
  Program p;
  p.add_semaphore(range, 0);
  KernelHandle k = p.add_kernel_from_source(kRing, "ring.cpp", range, DataMovementConfig{});
  const auto cores = range.cores();
  for (size_t i = 0; i < cores.size(); ++i) {
    const CoreCoord next = device->worker_core_from_logical_core(cores[(i + 1) % cores.size()]);
    p.set_runtime_args(k, cores[i], {laps, started && i == 0 ? 1u : 0u, uint32_t(next.x), uint32_t(next.y)});
  }
  return p;
}

class ParallelTest : public ::testing::TestWithParam<std::string> {
protected:
  // kMixed on every core of a 4x2 grid, the last core doing `how`.
  Program mixed(uint32_t how, uint32_t n = 20000) {
    Program p;
    const CoreRange all({0, 0}, {3, 1});
    p.add_semaphore(all, 0);
    p.add_circular_buffer(all, one_cb_config(4096, 2048));
    KernelHandle k = p.add_kernel_from_source(kMixed, "mixed.cpp", all, DataMovementConfig{});
    for (CoreCoord c : all.cores())
      p.set_runtime_args(k, c, {n, c == CoreCoord{3, 1} ? how : 0u});
    return p;
  }
};

TEST_P(ParallelTest, AFaultOnAnyThreadStopsTheRunWithItsCoreAndLine) {
  auto device = open_device("blackhole", 4, 2, GetParam());
  Program p = mixed(1);
  const std::string msg = error_of<KernelFault>(device->command_queue(), p);
  EXPECT_NE(msg.find("core (3,1) BRISC: kernel 'mixed.cpp' crashed: null pointer dereference"), std::string::npos)
      << msg;
  if (have_addr2line()) {
    EXPECT_NE(msg.find("mixed.cpp:" + std::to_string(marker_line(kMixed, "null")) + ": core (3,1) BRISC"),
              std::string::npos)
        << msg;
  }
  expect_device_works(device);
}

TEST_P(ParallelTest, AKernelErrorIsTheDeterministicPolicysError) {
  auto det = open_device("blackhole", 4, 2);
  auto par = open_device("blackhole", 4, 2, GetParam());
  Program a = mixed(2), b = mixed(2);
  const std::string expected = error_of<KernelError>(det->command_queue(), a);
  ASSERT_NE(expected.find("mixed.cpp:" + std::to_string(marker_line(kMixed, "pop")) + ": core (3,1) BRISC"),
            std::string::npos)
      << expected;
  EXPECT_EQ(error_of<KernelError>(par->command_queue(), b), expected);
  expect_device_works(par);
}

TEST_P(ParallelTest, ARawSpinOnAnyThreadIsStoppedByTheWatchdog) {
  SKIP_UNDER_TSAN();
  setenv("TESSEL_WATCHDOG_S", "0.3", 1);
  auto device = open_device("blackhole", 4, 2, GetParam());
  unsetenv("TESSEL_WATCHDOG_S");
  Program p = mixed(3, 10);
  const std::string msg = error_of<KernelFault>(device->command_queue(), p);
  EXPECT_NE(msg.find("core (3,1) BRISC: kernel 'mixed.cpp' crashed: ran for more than 0.3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("raw spin loop"), std::string::npos) << msg;
  expect_device_works(device);
}

TEST_P(ParallelTest, ACrossThreadDeadlockIsReportedAsUnderDeterministic) {
  // Each core waits for the one after it before passing the token on: a
  // cycle of waits over every core, so over every thread.
  const auto run = [](const std::string& policy) {
    auto device = open_device("blackhole", 4, 2, policy);
    Program p = ring(device, CoreRange({0, 0}, {3, 1}), 3, false);
    std::string msg = error_of<DeadlockError>(device->command_queue(), p);
    expect_device_works(device);
    return msg;
  };
  const std::string expected = run("deterministic");
  EXPECT_NE(expected.find("deadlock: no RISC can make progress (8 blocked)"), std::string::npos) << expected;
  EXPECT_EQ(run(GetParam()), expected);
}

// Runs a started ring of `laps` laps over a cols x rows grid `runs` times,
// each to its end.
void expect_rings_finish(const std::string& policy, uint32_t cols, uint32_t rows, uint32_t laps, int runs) {
  auto device = open_device("blackhole", cols, rows, policy);
  Program p = ring(device, CoreRange({0, 0}, {cols - 1, rows - 1}), laps, true);
  for (int run = 0; run < runs; ++run)
    ASSERT_NO_THROW(device->command_queue().enqueue_program(p)) << "run " << run;
  expect_device_works(device);
}

TEST_P(ParallelTest, ATokenRingOverEveryThreadLosesNoWakeUp) {
  // 12 cores, so every thread owns several; 500 laps of the token.
  expect_rings_finish(GetParam(), 4, 3, 500, 3);
}

TEST_P(ParallelTest, AHandOffBetweenTwoThreadsIsNeverAFalseDeadlock) {
  // Two cores on two threads pass a token 2000 times: every pass leaves one
  // worker with nothing to run, so workers go idle and wake thousands of
  // times per run, each time racing the other's pokes.
  expect_rings_finish(GetParam(), 2, 1, 2000, 20);
}

INSTANTIATE_TEST_SUITE_P(Threads, ParallelTest,
                         ::testing::Values(std::string("parallel:2"), std::string("parallel:3"),
                                           std::string("parallel:8")),
                         policy_name);

TEST(ParallelPolicy, OneThreadPerHostCoreByDefault) {
  auto device = open_device("blackhole", 2, 2, "parallel");
  EXPECT_EQ(device->policy(), "parallel");
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
