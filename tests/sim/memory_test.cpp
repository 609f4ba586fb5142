// Device memory (src/sim/memory.cpp): L1 strides 4 MiB aligned below 4 GiB,
// kernel-visible L1 addresses that are host pointers, a guard after every
// core's L1 that reaches past its 2 MiB slot, room for eight full Blackholes
// in one process, lazily reserved DRAM.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "ops_kernel.hpp"
#include "runtime/device_state.hpp"
#include "sim/l1_layout.hpp"
#include "sim/memory.hpp"

namespace tessel::test {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

TEST(DeviceMemory, L1StridesAreAlignedBelow4GiB) {
  sim::DeviceMemory memory(6, 1464 * 1024, 3, 16 * kMiB);
  for (uint32_t c = 0; c < 6; ++c) {
    const auto at = reinterpret_cast<uintptr_t>(memory.l1(c));
    EXPECT_EQ(at % sim::DeviceMemory::kCoreStrideBytes, 0u) << "core " << c;
    EXPECT_GE(at, sim::DeviceMemory::kSlotBytes) << "core " << c;
    EXPECT_LE(at + sim::DeviceMemory::kCoreStrideBytes, uint64_t(1) << 32) << "core " << c;
    if (c) {
      EXPECT_EQ(at - reinterpret_cast<uintptr_t>(memory.l1(c - 1)), sim::DeviceMemory::kCoreStrideBytes);
    }
  }
  // Fresh memory reads as zero; clear_l1 gives zeros back.
  EXPECT_EQ(memory.l1(5)[1464 * 1024 - 1], 0);
  std::memset(memory.l1(2), 0xAB, 4096);
  memory.clear_l1(2);
  EXPECT_EQ(memory.l1(2)[0], 0);
  EXPECT_EQ(memory.l1(2)[4095], 0);
  // DRAM banks are distinct and writable at both ends.
  memory.dram(0)[0] = 1;
  memory.dram(2)[16 * kMiB - 1] = 2;
  EXPECT_NE(memory.dram(0), memory.dram(1));
  EXPECT_EQ(memory.dram(1)[0], 0);
  EXPECT_EQ(memory.dram(2)[16 * kMiB - 1], 2);
}

TEST(DeviceMemory, KernelVisibleL1AddressIsTheHostPointer) {
  auto device = open_device();
  Recorder rec(device);
  CircularBufferConfig config(4 * 64, {{0, DataFormat::Float32}});
  config.set_page_size(0, 64);
  Program p;
  const CoreRange all({0, 0}, {1, 1});
  p.add_circular_buffer(all, config);
  p.add_semaphore(all, 0);
  KernelHandle k = add_ops(p, all);
  for (CoreCoord c : all.cores()) {
    const uint32_t i = c.y * 2 + c.x;
    set_script(p, k, c, Script().op(kRecordWrPtr, 0, 2 * i).op(kGetSemaphore, 0, 2 * i + 1).op(kProduce, 0, 1, 1, 64),
               rec);
  }
  device->command_queue().enqueue_program(p);
  const auto words = rec.read();
  sim::Chip& chip = *device->state().chip;
  for (uint32_t i = 0; i < 4; ++i) {
    uint8_t* l1 = chip.core(i).l1;
    EXPECT_EQ(words[2 * i], uint32_t(reinterpret_cast<uintptr_t>(l1 + sim::kL1UnreservedBase))) << "core " << i;
    EXPECT_EQ(words[2 * i + 1], uint32_t(reinterpret_cast<uintptr_t>(l1 + sim::kL1SemaphoreBase))) << "core " << i;
    // What the kernel stored through get_write_ptr is in the host's view of that core's L1.
    uint32_t stored[16];
    std::memcpy(stored, l1 + sim::kL1UnreservedBase, sizeof stored);
    for (uint32_t w = 0; w < 16; ++w)
      EXPECT_EQ(stored[w], w) << "core " << i;
  }
}

TEST(DeviceMemory, AccessPastTheEndOfL1Faults) {
  auto device = open_device();
  const auto l1 = reinterpret_cast<uintptr_t>(device->state().chip->core(0).l1);
  const uint32_t past_end = uint32_t(l1 + device->l1_size() + 64);
  Recorder rec(device);
  Program p;
  set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kFaultStore, past_end, 1), rec);
  char expected[64];
  std::snprintf(expected, sizeof expected, "crashed: invalid memory access at 0x%x", past_end);
  const std::string message = error_of<KernelFault>(device->command_queue(), p);
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_EQ(message.find("L1 offset used as a pointer"), std::string::npos) << message;
  expect_device_works(device);
}

TEST(DeviceMemory, EveryByteBetweenOneCoresL1AndTheNextFaults) {
  auto device = open_device();
  const auto l1 = reinterpret_cast<uintptr_t>(device->state().chip->core(0).l1);
  const uint64_t stride = sim::DeviceMemory::kCoreStrideBytes;
  Recorder rec(device);
  // Just past L1, the end of the 2 MiB slot, just past it (once the next core's L1), the end of the stride.
  for (uint64_t offset : {uint64_t(device->l1_size()), 2 * kMiB - 4, 2 * kMiB, 2 * kMiB + 16, stride - 4}) {
    Program p;
    set_script(p, add_ops(p, CoreCoord{0, 0}), CoreCoord{0, 0}, Script().op(kFaultStore, uint32_t(l1 + offset), 1),
               rec);
    char expected[96];
    std::snprintf(expected, sizeof expected,
                  "core (0,0) BRISC: kernel 'ops.cpp' crashed: invalid memory access at 0x%llx",
                  static_cast<unsigned long long>(l1 + offset));
    const std::string message = error_of<KernelFault>(device->command_queue(), p);
    EXPECT_NE(message.find(expected), std::string::npos) << "offset " << offset << ": " << message;
  }
  // The next core's L1 starts one stride on, untouched.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(device->state().chip->core(1).l1), l1 + stride);
  expect_device_works(device);
}

TEST(DeviceMemory, EightFullBlackholesFitInOneProcess) {
#if defined(TESSEL_ASAN)
  GTEST_SKIP() << "AddressSanitizer's shadow memory takes the upper half of the low 4 GiB";
#endif
  // A 2x4 mesh is what TT-Metalium's distributed examples open.
  std::vector<std::shared_ptr<Device>> devices;
  for (int i = 0; i < 8; ++i)
    ASSERT_NO_THROW(devices.push_back(Device::open({"blackhole"}))) << "device " << i;
  // Each works, with its own L1.
  for (auto& d : devices)
    expect_device_works(d);
  EXPECT_EQ(sim::DeviceMemory::max_devices(120), 8u);
  // Space for whole devices runs out after at most one more; the error says why and how many fit.
  std::string message;
  for (int i = 0; i < 2 && message.empty(); ++i) {
    try {
      devices.push_back(Device::open({"blackhole"}));
    } catch (const OutOfMemoryError& e) {
      message = e.what();
    }
  }
  EXPECT_EQ(message.rfind("cannot reserve L1 for another device of 120 cores: kernels use L1 addresses as 32-bit "
                          "pointers, so every core's L1 lives below 4 GiB of the address space, 4 MiB per core with "
                          "its guard (480 MiB for this device); at most 8 devices of 120 cores fit in one process, "
                          "and ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find(" MiB below 4 GiB are free now; close a device first, or open smaller grids"),
            std::string::npos)
      << message;
  // Closing one makes room again.
  devices.pop_back();
  devices.erase(devices.begin());
  EXPECT_NO_THROW(devices.push_back(Device::open({"blackhole"})));
}

TEST(DeviceMemory, FullBlackholeOpensWithSmallResidentSet) {
  const uint64_t before = resident_bytes();
  auto device = Device::open({"blackhole"});
  const uint64_t after = resident_bytes();
  EXPECT_EQ(device->grid(), (CoreCoord{12, 10}));
  EXPECT_EQ(device->dram_banks(), 8u);
  EXPECT_EQ(device->dram_bank_size(), 4ull << 30);
  EXPECT_LT(after - std::min(after, before), 64 * kMiB) << "resident set grew from " << before << " to " << after;
  // Buffers reserve address space only: a 1 GiB DRAM buffer costs nothing until written.
  auto big = Buffer::create(device, {1ull << 30, 1 << 20, BufferType::DRAM});
  EXPECT_LT(resident_bytes() - std::min(resident_bytes(), before), 64 * kMiB);
}

} // namespace
} // namespace tessel::test
