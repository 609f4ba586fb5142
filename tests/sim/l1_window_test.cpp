// L1 offsets used as pointers (src/sim/l1_window.cpp): a kernel that casts an
// L1 address the host gave it to a pointer reads and writes its own core's
// L1, as on silicon; each core sees its own bytes however the scheduler
// interleaves them, and the NoC and the host see what it stored. What cannot
// be mapped is reported, saying why.
#include <gtest/gtest.h>

#include <cstring>

#include "ops_kernel.hpp"
#include "runtime/device_state.hpp"
#include "sim/chip.hpp"
#include "sim/l1_window.hpp"

namespace tessel::test {
namespace {

// Stores its id through the offset, hands a token to the next core and waits
// for the previous one's (so every core runs between its store and its
// check), reads DRAM into the next words, and checks the stored word survived.
constexpr const char* kRawOffsets = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t offset = get_arg_val<uint32_t>(0);
  const uint32_t id = get_arg_val<uint32_t>(1);
  const uint32_t dram = get_arg_val<uint32_t>(2);
  const uint64_t next = get_noc_addr(get_arg_val<uint32_t>(3), get_arg_val<uint32_t>(4), get_semaphore(0));
  volatile uint32_t* own = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  volatile uint32_t* words = reinterpret_cast<volatile uint32_t*>(offset);
  InterleavedAddrGen<true> source = {.bank_base_address = dram, .page_size = 64};
  words[1] = 0;
  for (uint32_t k = 0; k < 4; ++k) {
    words[0] = id * 100 + k;
    noc_semaphore_inc(next, 1);
    noc_semaphore_wait_min(own, k + 1);
    noc_async_read(get_noc_addr(0, source), offset + 64, 64);
    noc_async_read_barrier();
    if (words[0] != id * 100 + k) words[1] += 1;
  }
  words[2] = words[16] + id;
  noc_async_atomic_barrier();
}
)";

// One store through an offset given as the only argument.
constexpr const char* kStoreAt = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  *reinterpret_cast<volatile uint32_t*>(get_arg_val<uint32_t>(0)) = 7;
}
)";

TEST(L1WindowTest, EachCoreReadsAndWritesItsOwnL1ThroughAnOffset) {
  auto device = open_device();
  auto l1 = Buffer::create(device, {4 * 256, 256, BufferType::L1});
  auto dram = Buffer::create(device, {64, 64, BufferType::DRAM});
  std::vector<uint32_t> source(16);
  for (uint32_t i = 0; i < 16; ++i)
    source[i] = 1000 + i;
  dram->write(source.data(), 64);
  const CoreRange all({0, 0}, {1, 1});
  Program p;
  p.add_semaphore(all, 0);
  KernelHandle k = p.add_kernel_from_source(kRawOffsets, "raw_offsets.cpp", all, DataMovementConfig{});
  for (uint32_t i = 0; i < 4; ++i) {
    const CoreCoord c{i % 2, i / 2}, next{(i + 1) % 4 % 2, (i + 1) % 4 / 2};
    const CoreCoord next_noc = device->worker_core_from_logical_core(next);
    p.set_runtime_args(k, c, {l1->address(), i + 1, dram->address(), next_noc.x, next_noc.y});
  }
  const uint64_t maps_before = sim::l1_window_map_count();
  device->command_queue().enqueue_program(p);
  // The cores interleaved: the window moved between them more than once each.
  EXPECT_GT(sim::l1_window_map_count() - maps_before, 4u);
  sim::Chip& chip = *device->state().chip;
  for (uint32_t i = 0; i < 4; ++i) {
    const CoreCoord c{i % 2, i / 2};
    uint32_t words[3];
    std::memcpy(words, chip.core(uint32_t(c.x), uint32_t(c.y)).l1 + l1->address(), sizeof words);
    const uint32_t id = i + 1;
    EXPECT_EQ(words[0], id * 100 + 3) << "core " << i;
    EXPECT_EQ(words[1], 0u) << "core " << i << ": saw another core's store";
    EXPECT_EQ(words[2], 1000u + id) << "core " << i << ": the NoC read did not land where the pointer reads";
  }
  expect_device_works(device);
}

TEST(L1WindowTest, AnOffsetPastTheEndOfL1IsReported) {
  auto device = open_device();
  Program p;
  KernelHandle k = p.add_kernel_from_source(kStoreAt, "store_at.cpp", CoreCoord{1, 0}, DataMovementConfig{});
  const uint32_t past_end = uint32_t(device->l1_size() + 64);
  p.set_runtime_args(k, CoreCoord{1, 0}, {past_end});
  const std::string message = error_of<KernelFault>(device->command_queue(), p);
  char expected[96];
  std::snprintf(expected, sizeof expected,
                "crashed: invalid memory access at 0x%x: an L1 offset used as a pointer, "
                "past the end of L1",
                past_end);
  EXPECT_NE(message.find("store_at.cpp:3: core (1,0) BRISC: kernel"), std::string::npos) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  expect_device_works(device);
}

TEST(L1WindowTest, AnOffsetBelowTheLowestMappableAddressIsReported) {
  auto device = open_device();
  // vm.mmap_min_addr is at least a page (the window is reserved once a device is open).
  ASSERT_GE(sim::l1_window_floor(), 0x1000u);
  Program p;
  KernelHandle k = p.add_kernel_from_source(kStoreAt, "store_at.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.set_runtime_args(k, CoreCoord{0, 0}, {0x800});
  const std::string message = error_of<KernelFault>(device->command_queue(), p);
  EXPECT_NE(message.find("invalid memory access at 0x800: an L1 offset used as a pointer, below 0x"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(vm.mmap_min_addr)"), std::string::npos) << message;
  expect_device_works(device);
}

TEST(L1WindowTest, UnderTheParallelPolicyAnOffsetIsReportedNotShared) {
  auto device = open_device("blackhole", 2, 2, "parallel:2");
  auto l1 = Buffer::create(device, {4 * 256, 256, BufferType::L1});
  const CoreRange all({0, 0}, {1, 1});
  Program p;
  KernelHandle k = p.add_kernel_from_source(kStoreAt, "store_at.cpp", all, DataMovementConfig{});
  p.set_runtime_args(k, all, {l1->address()});
  const std::string message = error_of<KernelFault>(device->command_queue(), p);
  EXPECT_NE(message.find("an L1 offset used as a pointer while more than one thread runs kernels"), std::string::npos)
      << message;
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
