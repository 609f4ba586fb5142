// Kernel globals and statics: per core, and reset to their initial values at
// every launch (silicon reloads a kernel's .data/.bss each time).
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kCounting = R"(#include "api/dataflow/dataflow_api.h"
uint32_t counter;          // .bss
static uint32_t calls = 5; // .data
void kernel_main() {
  counter += 1;
  calls += 1;
  const uint32_t rec_addr = get_arg_val<uint32_t>(0);
  const uint32_t slot = get_arg_val<uint32_t>(3);
  volatile uint32_t* stage = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  stage[0] = counter;
  stage[1] = calls;
  noc_async_write(get_semaphore(0), get_noc_addr(get_arg_val<uint32_t>(1), get_arg_val<uint32_t>(2), rec_addr + slot * 16), 16);
  noc_async_write_barrier();
}
)";

TEST(KernelGlobalsTest, GlobalsArePerCoreAndResetAtEveryLaunch) {
  auto device = open_device();
  Recorder rec(device);
  const CoreRange all({0, 0}, {1, 1});
  Program p;
  p.add_semaphore(all, 0);
  KernelHandle k = p.add_kernel_from_source(kCounting, "counting.cpp", all, DataMovementConfig{});
  for (CoreCoord c : all.cores())
    p.set_runtime_args(k, c, {rec.buffer->address(), rec.noc.x, rec.noc.y, c.y * 2 + c.x});
  for (int launch = 0; launch < 3; ++launch) {
    SCOPED_TRACE(launch);
    rec.clear();
    device->command_queue().enqueue_program(p);
    const auto words = rec.read();
    for (uint32_t core = 0; core < 4; ++core) {
      EXPECT_EQ(words[core * 4 + 0], 1u) << "core " << core << ": the .bss global kept its value across launches";
      EXPECT_EQ(words[core * 4 + 1], 6u) << "core " << core << ": the .data static kept its value across launches";
    }
  }
}

TEST(KernelGlobalsTest, BothDataMovementRiscsOfACoreHaveTheirOwnCopy) {
  // The same source (one binary) on BRISC and NCRISC of every core.
  auto device = open_device();
  Recorder rec(device);
  const CoreRange all({0, 0}, {1, 1});
  Program p;
  p.add_semaphore(all, 0);
  KernelHandle br = p.add_kernel_from_source(kCounting, "counting.cpp", all, DataMovementConfig{});
  KernelHandle nc = p.add_kernel_from_source(kCounting, "counting.cpp", all,
                                             DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  for (CoreCoord c : all.cores()) {
    p.set_runtime_args(br, c, {rec.buffer->address(), rec.noc.x, rec.noc.y, c.y * 2 + c.x});
    p.set_runtime_args(nc, c, {rec.buffer->address(), rec.noc.x, rec.noc.y, 4 + c.y * 2 + c.x});
  }
  device->command_queue().enqueue_program(p);
  const auto words = rec.read();
  for (uint32_t slot = 0; slot < 8; ++slot) {
    EXPECT_EQ(words[slot * 4 + 0], 1u) << "slot " << slot << ": BRISC and NCRISC share the kernel's globals";
    EXPECT_EQ(words[slot * 4 + 1], 6u) << "slot " << slot;
  }
}

TEST(KernelGlobalsTest, TwoOpenDevicesHaveTheirOwnCopies) {
  auto a = open_device();
  auto b = open_device();
  Recorder rec_a(a), rec_b(b);
  for (auto* d : {&a, &b}) {
    Recorder& rec = d == &a ? rec_a : rec_b;
    Program p;
    p.add_semaphore(CoreCoord{0, 0}, 0);
    KernelHandle k = p.add_kernel_from_source(kCounting, "counting.cpp", CoreCoord{0, 0}, DataMovementConfig{});
    p.set_runtime_args(k, CoreCoord{0, 0}, {rec.buffer->address(), rec.noc.x, rec.noc.y, 0});
    (*d)->command_queue().enqueue_program(p);
    EXPECT_EQ(rec.at(0), 1u);
  }
}

} // namespace
} // namespace tessel::test
