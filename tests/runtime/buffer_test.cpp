// Buffers (src/runtime/buffer.cpp): interleaved page placement in DRAM banks
// and L1 banks, aligned page strides, allocation direction, deallocation.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "runtime/device_state.hpp"
#include "sim/l1_layout.hpp"
#include "sim/ops_kernel.hpp"

namespace tessel::test {
namespace {

class BufferTest : public ::testing::Test {
protected:
  void SetUp() override { device = open_device(); }
  sim::DeviceMemory& memory() { return device->state().chip->memory(); }
  std::shared_ptr<Device> device;
};

TEST_F(BufferTest, DramPagesAreInterleavedOverBanks) {
  constexpr uint32_t kPage = 100, kPages = 19;
  auto b = Buffer::create(device, {kPage * kPages, kPage, BufferType::DRAM});
  EXPECT_EQ(b->num_banks(), 8u);
  EXPECT_EQ(b->aligned_page_size(), 128u); // blackhole DRAM: 64-byte units
  EXPECT_EQ(b->num_pages(), kPages);
  EXPECT_EQ(b->address() % 64, 0u);
  std::vector<uint8_t> data(kPage * kPages);
  std::iota(data.begin(), data.end(), uint8_t(1));
  device->command_queue().enqueue_write_buffer(*b, data);
  for (uint32_t p = 0; p < kPages; ++p) {
    const uint8_t* at = memory().dram(p % 8) + b->address() + (p / 8) * 128;
    EXPECT_EQ(std::memcmp(at, data.data() + p * kPage, kPage), 0) << "page " << p;
  }
  std::vector<uint8_t> back;
  device->command_queue().enqueue_read_buffer(*b, back);
  EXPECT_EQ(back, data);
}

TEST_F(BufferTest, L1PagesAreInterleavedOverCores) {
  constexpr uint32_t kPage = 40, kPages = 6;
  auto b = Buffer::create(device, {kPage * kPages, kPage, BufferType::L1});
  EXPECT_EQ(b->num_banks(), 4u);
  EXPECT_EQ(b->aligned_page_size(), 48u);
  // L1 buffers are allocated from the top of L1: 2 pages per core here.
  EXPECT_EQ(b->address() + 128, device->l1_size()); // 2 pages of 48 bytes in a slot of 64-byte units
  std::vector<uint8_t> data(kPage * kPages);
  std::iota(data.begin(), data.end(), uint8_t(7));
  device->command_queue().enqueue_write_buffer(*b, data);
  for (uint32_t p = 0; p < kPages; ++p) {
    const uint8_t* at = memory().l1(p % 4) + b->address() + (p / 4) * 48;
    EXPECT_EQ(std::memcmp(at, data.data() + p * kPage, kPage), 0) << "page " << p;
  }
  std::vector<uint8_t> back;
  device->command_queue().enqueue_read_buffer(*b, back);
  EXPECT_EQ(back, data);
}

TEST_F(BufferTest, WormholeStridesAre32Bytes) {
  auto wh = open_device("wormhole_b0");
  auto b = Buffer::create(wh, {12 * 80, 80, BufferType::DRAM});
  EXPECT_EQ(b->num_banks(), 12u);
  EXPECT_EQ(b->aligned_page_size(), 96u);
}

TEST_F(BufferTest, DramAllocatesFromTheBottomAndReusesFreedSpace) {
  auto a = Buffer::create(device, {8 * 1024, 1024, BufferType::DRAM});
  auto b = Buffer::create(device, {8 * 1024, 1024, BufferType::DRAM});
  EXPECT_EQ(a->address(), 64u); // above the DRAM barrier's 64-byte slot, as Metalium's allocator starts
  EXPECT_EQ(b->address(), a->address() + 1024);
  const uint32_t first = a->address();
  a->deallocate();
  EXPECT_FALSE(a->is_allocated());
  a->deallocate(); // twice is harmless
  auto c = Buffer::create(device, {8 * 512, 512, BufferType::DRAM});
  EXPECT_EQ(c->address(), first);
}

TEST_F(BufferTest, DroppingTheLastReferenceFrees) {
  uint32_t address = 0;
  {
    auto a = Buffer::create(device, {4 * 4096, 4096, BufferType::L1});
    address = a->address();
  }
  auto b = Buffer::create(device, {4 * 4096, 4096, BufferType::L1});
  EXPECT_EQ(b->address(), address);
}

TEST_F(BufferTest, DeallocatedBufferCannotBeUsed) {
  auto a = Buffer::create(device, {256, 64, BufferType::DRAM});
  a->deallocate();
  std::vector<uint8_t> data(256);
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_write_buffer(*a, data); }),
            "enqueue_write_buffer: the buffer has been deallocated");
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_read_buffer(*a, data.data(), 256); }),
            "enqueue_read_buffer: the buffer has been deallocated");
}

TEST_F(BufferTest, BufferOfAnotherDeviceIsRejected) {
  auto other = open_device();
  auto b = Buffer::create(other, {256, 64, BufferType::DRAM});
  std::vector<uint8_t> data(256);
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_write_buffer(*b, data); }),
            "enqueue_write_buffer: the buffer belongs to another device");
}

TEST_F(BufferTest, ClosedDeviceRejectsBuffers) {
  auto b = Buffer::create(device, {256, 64, BufferType::DRAM});
  device->close();
  EXPECT_FALSE(device->is_open());
  EXPECT_EQ(error_from<ValidationError>([&] {
              Buffer::create(device, {256, 64, BufferType::DRAM});
            }),
            "Buffer::create: the device is closed");
  std::vector<uint8_t> data(256);
  EXPECT_EQ(error_from<ValidationError>([&] { b->write(data.data(), 256); }), "Buffer::write: the device is closed");
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_write_buffer(*b, data); }),
            "enqueue_write_buffer: the device is closed");
  b.reset(); // freeing after close is fine
}

} // namespace
} // namespace tessel::test
