// Polling a CB (cb_pages_available_at_front / cb_pages_reservable_at_back) in
// a loop lets the other RISCs run, and polling what nobody will change is a
// deadlock, reported at the poll.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kProducer = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  for (uint32_t i = 0; i < n; ++i) {
    while (!cb_pages_reservable_at_back(0, 1)) {
    }
    cb_reserve_back(tt::CBIndex::c_0, 1); // the Metalium spelling of CB 0
    *reinterpret_cast<volatile uint32_t*>(get_write_ptr(0)) = i + 1;
    cb_push_back(0, 1);
  }
}
)";

constexpr const char* kConsumer = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    while (!cb_pages_available_at_front(0, 1)) {
    }
    cb_wait_front(0, 1);
    sum += *reinterpret_cast<volatile uint32_t*>(get_read_ptr(0));
    cb_pop_front(0, 1);
  }
  *reinterpret_cast<volatile uint32_t*>(get_semaphore(0)) = sum;
  noc_async_write(get_semaphore(0), get_noc_addr(get_arg_val<uint32_t>(2), get_arg_val<uint32_t>(3), get_arg_val<uint32_t>(1)), 16);
  noc_async_write_barrier();
}
)";

class CbPollTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CbPollTest, PollingLoopsMakeProgress) {
  auto device = open_device();
  device->set_policy(GetParam());
  Recorder rec(device);
  const CoreCoord core{1, 0};
  Program p;
  CircularBufferConfig config(2 * 16, {{0, DataFormat::UInt32}});
  config.set_page_size(0, 16);
  p.add_circular_buffer(core, config);
  p.add_semaphore(core, 0);
  KernelHandle prod = p.add_kernel_from_source(kProducer, "producer.cpp", core, DataMovementConfig{});
  KernelHandle cons = p.add_kernel_from_source(
      kConsumer, "consumer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  const uint32_t n = 100;
  p.set_runtime_args(prod, core, {n});
  p.set_runtime_args(cons, core, {n, rec.buffer->address(), rec.noc.x, rec.noc.y});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), n * (n + 1) / 2);
}

INSTANTIATE_TEST_SUITE_P(Policies, CbPollTest,
                         ::testing::Values(std::string("deterministic"), std::string("random:1"),
                                           std::string("random:42"), std::string("parallel:2")),
                         policy_name);

TEST(CbPollDeadlockTest, PollingACbNobodyFillsIsADeadlockAtThePoll) {
  auto device = open_device();
  const CoreCoord core{0, 0};
  Program p;
  CircularBufferConfig config(2 * 16, {{0, DataFormat::UInt32}});
  config.set_page_size(0, 16);
  p.add_circular_buffer(core, config);
  p.add_semaphore(core, 0);
  KernelHandle cons = p.add_kernel_from_source(
      kConsumer, "consumer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  p.set_runtime_args(cons, core, {1, 0, 0, 0});
  const std::string msg = error_of<DeadlockError>(device->command_queue(), p);
  EXPECT_NE(msg.find("core (0,0) NCRISC at consumer.cpp:6 in cb_wait_front(cb=0, pages=1)"), std::string::npos) << msg;
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
