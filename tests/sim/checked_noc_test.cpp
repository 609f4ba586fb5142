// The checked NoC mode (sim/checked_noc.hpp): transfers land at their
// barriers, a kernel touching a transfer's range before then is reported
// with both source lines, and everything else that needs the bytes makes
// them land early.
#include <gtest/gtest.h>

#include <gmock/gmock.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Runtime args: mode, the DRAM buffer `in` (64 bytes, bank 0), the DRAM
// buffer `out` (the kernel's record words). CB 0 is 8 KiB of scratch.
constexpr const char* kKernel = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t mode = get_arg_val<uint32_t>(0);
  const uint64_t in = get_noc_addr_from_bank_id<true>(0, get_arg_val<uint32_t>(1));
  const uint64_t out = get_noc_addr_from_bank_id<true>(0, get_arg_val<uint32_t>(2));
  const uint32_t buf = get_write_ptr(0);
  volatile uint32_t* p = reinterpret_cast<volatile uint32_t*>(uintptr_t(buf));
  volatile uint32_t* q = reinterpret_cast<volatile uint32_t*>(uintptr_t(buf + 4096));
  volatile uint32_t* rec = reinterpret_cast<volatile uint32_t*>(uintptr_t(buf + 6144));
  // A word on the first page of buf outside [buf, buf + 64).
  const uint32_t other = ((buf + 64) & ~4095u) == (buf & ~4095u) ? buf + 64 : buf - 4;
  switch (mode) {
  case 0: // read, wait, use
    noc_async_read(in, buf, 64);
    noc_async_read_barrier();
    rec[0] = p[1];
    break;
  case 1: // use before waiting
    noc_async_read(in, buf, 64); // @issue_read
    rec[0] = p[1]; // @early_read
    noc_async_read_barrier();
    break;
  case 2: // another word of the destination's page: the read lands early
    *reinterpret_cast<volatile uint32_t*>(uintptr_t(other)) = 9;
    noc_async_read(in, buf, 64);
    rec[0] = *reinterpret_cast<volatile uint32_t*>(uintptr_t(other));
    noc_async_read_barrier();
    rec[1] = p[1];
    break;
  case 3: // change a write's source before waiting
    p[0] = 5;
    noc_async_write(buf, in, 64); // @issue_write
    p[1] = 6; // @early_store
    noc_async_write_barrier();
    break;
  case 4: // read a write's source before waiting: allowed
    p[0] = 5;
    noc_async_write(buf, in, 64);
    rec[0] = p[0];
    noc_async_write_barrier();
    break;
  case 5: // read back a write before waiting for it: the old bytes
    p[1] = 111;
    noc_async_write(buf, in, 64);
    noc_async_read(in, buf + 4096, 64);
    noc_async_read_barrier();
    rec[0] = q[1];
    noc_async_write_barrier();
    break;
  }
  noc_async_write(buf + 6144, out, 16);
  noc_async_write_barrier();
}
)";

uint32_t kernel_line(const char* marker) { return marker_line(kKernel, marker); }

struct Outcome {
  std::string error;
  std::vector<uint32_t> in, out;
};

Outcome run(const std::shared_ptr<Device>& device, uint32_t mode) {
  Program p;
  CircularBufferConfig cb(8192, {{0, DataFormat::UInt32}});
  cb.set_page_size(0, 8192);
  p.add_circular_buffer(CoreCoord{0, 0}, cb);
  auto in = Buffer::create(device, {64, 64, BufferType::DRAM});
  auto out = Buffer::create(device, {64, 64, BufferType::DRAM});
  std::vector<uint32_t> words(16);
  for (uint32_t i = 0; i < 16; ++i)
    words[i] = 200 + i;
  device->command_queue().enqueue_write_buffer(*in, words);
  std::vector<uint32_t> zeros(16, 0);
  device->command_queue().enqueue_write_buffer(*out, zeros);
  KernelHandle k = p.add_kernel_from_source(kKernel, "checked.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.set_runtime_args(k, CoreCoord{0, 0}, {mode, uint32_t(in->address()), uint32_t(out->address())});
  Outcome o;
  try {
    device->command_queue().enqueue_program(p);
  } catch (const KernelError& e) {
    o.error = e.what();
  }
  o.in.resize(16);
  o.out.resize(16);
  device->command_queue().enqueue_read_buffer(*in, o.in);
  device->command_queue().enqueue_read_buffer(*out, o.out);
  return o;
}

std::shared_ptr<Device> open(const std::string& noc, const std::string& policy = "deterministic") {
  DeviceConfig config;
  config.grid_x = 2;
  config.grid_y = 2;
  config.policy = policy;
  config.noc = noc;
  return Device::open(config);
}

TEST(CheckedNocTest, AReadLandsAtItsBarrier) {
  auto device = open("checked");
  EXPECT_EQ(device->noc_mode(), "checked");
  const Outcome o = run(device, 0);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.out[0], 201u);
}

TEST(CheckedNocTest, UsingAReadsDataBeforeItsBarrierIsReportedWithBothLines) {
  auto device = open("checked");
  const Outcome o = run(device, 1);
  EXPECT_THAT(o.error,
              StartsWith("checked.cpp:" + std::to_string(kernel_line("early_read")) + ": core (0,0) BRISC: kernel '"));
  EXPECT_THAT(o.error, HasSubstr("' read L1 0x"));
  EXPECT_THAT(o.error, HasSubstr(" while the noc_async_read at checked.cpp:" +
                                 std::to_string(kernel_line("issue_read")) + " is still landing in L1 [0x"));
  EXPECT_THAT(o.error, EndsWith("its data arrives at noc_async_read_barrier(); wait for it before using the data "
                                "(noc=checked)"));
  // The device runs on, with nothing left guarded.
  EXPECT_EQ(run(device, 0).error, "");
  EXPECT_EQ(run(device, 0).out[0], 201u);
}

TEST(CheckedNocTest, EagerModeRunsTheSameKernelWithoutAReport) {
  auto device = open("eager");
  EXPECT_EQ(device->noc_mode(), "eager");
  const Outcome o = run(device, 1);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.out[0], 201u) << "eager: the data landed when the read was issued";
}

TEST(CheckedNocTest, TouchingTheSamePageOutsideTheRangeLandsTheReadEarly) {
  auto device = open("checked");
  const Outcome o = run(device, 2);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.out[0], 9u);
  EXPECT_EQ(o.out[1], 201u);
}

TEST(CheckedNocTest, ChangingAWritesSourceBeforeItsBarrierIsReported) {
  auto device = open("checked");
  const Outcome o = run(device, 3);
  EXPECT_THAT(o.error,
              StartsWith("checked.cpp:" + std::to_string(kernel_line("early_store")) + ": core (0,0) BRISC: kernel '"));
  EXPECT_THAT(o.error, HasSubstr("' wrote L1 0x"));
  EXPECT_THAT(o.error, HasSubstr(" while it is the source of the noc_async_write at checked.cpp:" +
                                 std::to_string(kernel_line("issue_write")) + ", L1 [0x"));
  EXPECT_THAT(o.error, EndsWith("still being read: wait with noc_async_write_barrier() or noc_async_writes_flushed() "
                                "before changing it (noc=checked)"));
  EXPECT_EQ(o.in[0], 5u) << "the write landed when the run stopped";
  EXPECT_EQ(o.in[1], 0u) << "with the source's word as it was (fresh L1), not the 6 the kernel tried to store";
}

TEST(CheckedNocTest, ReadingAWritesSourceBeforeItsBarrierIsAllowed) {
  auto device = open("checked");
  const Outcome o = run(device, 4);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.out[0], 5u);
  EXPECT_EQ(o.in[0], 5u);
}

TEST(CheckedNocTest, AWriteNotWaitedForHasNotLandedWhenReadBack) {
  const Outcome checked = run(open("checked"), 5);
  EXPECT_EQ(checked.error, "");
  EXPECT_EQ(checked.out[0], 201u) << "the write lands at its barrier, after the read";
  EXPECT_EQ(checked.in[1], 111u);
  const Outcome eager = run(open("eager"), 5);
  EXPECT_EQ(eager.error, "");
  EXPECT_EQ(eager.out[0], 111u);
}

TEST(CheckedNocTest, BadModesAndTheParallelPolicyAreRefused) {
  try {
    open("lazy");
    FAIL() << "no error";
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "Device::open: noc: NoC mode 'lazy' is not one of 'eager' or 'checked'");
  }
  try {
    open("checked", "parallel:2");
    FAIL() << "no error";
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "noc=checked: the checked NoC mode runs under the deterministic or random policy, not "
                           "'parallel:2' (its landings are not thread-safe)");
  }
  // Every parallel policy, one thread or as many as the host has: the same on every machine.
  for (const char* policy : {"parallel:1", "parallel"})
    EXPECT_THROW(open("checked", policy), ValidationError) << policy;
  auto device = open("checked");
  for (const char* policy : {"parallel:2", "parallel:1", "parallel"})
    EXPECT_THROW(device->set_policy(policy), ValidationError) << policy;
  EXPECT_EQ(device->policy(), "deterministic");
  device->set_policy("random:7");
  EXPECT_EQ(run(device, 0).out[0], 201u);
}

} // namespace
} // namespace tessel::test
