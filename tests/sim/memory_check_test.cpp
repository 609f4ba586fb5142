// The device-memory checker (src/sim/memory_check.cpp): a NoC transfer that
// touches bytes of no live allocation, or crosses from one allocation into
// another, is a KernelError naming the call, the range and what it touched
// (a write wholly into free L1 is a warning); it can be turned off per
// device or with TESSEL_CHECK_MEMORY.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops_kernel.hpp"
#include "sim/l1_layout.hpp"

namespace tessel::test {
namespace {

constexpr CoreCoord kCore{0, 0};
constexpr const char* kTail =
    " (every NoC transfer must stay inside one live buffer, CB or semaphore; TESSEL_CHECK_MEMORY=0 turns this check "
    "off)";

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string span(uint64_t lo, uint64_t hi) { return hex(lo) + ".." + hex(hi); }

class MemoryCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = open_device();
    rec = std::make_unique<Recorder>(device);
    noc00 = device->worker_core_from_logical_core(kCore);
  }
  // Runs the ops kernel on core (0,0) with `script` in a program that has a
  // 4 KiB CB 0 on (0,0) (and `more` CBs); returns the KernelError, or "".
  std::string run(const Script& script, const std::vector<CircularBufferConfig>& more = {}) {
    Program p;
    p.add_circular_buffer(kCore, one_cb_config(4096, 1024));
    for (const auto& c : more)
      p.add_circular_buffer(kCore, c);
    set_script(p, add_ops(p, kCore), kCore, script, *rec);
    std::string message;
    try {
      device->command_queue().enqueue_program(p);
    } catch (const KernelError& e) {
      message = e.what();
    }
    expect_device_works(device);
    return message;
  }
  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
  CoreCoord noc00;
};

const uint32_t kCb = sim::kL1UnreservedBase; // CB 0's L1 offset

TEST_F(MemoryCheckTest, ALargeReadIntoASmallCbIsReported) {
  auto big = Buffer::create(device, {8 * 65536, 65536, BufferType::DRAM});
  EXPECT_EQ(run(Script().op(kReadDram, 0, 0, big->address(), kCb, 65536)),
            ops_site("read_dram") + ": core (0,0) BRISC: noc_async_read: the transfer's destination, 65536 bytes at " +
                span(kCb, kCb + 65536) +
                " of the L1 of core (0,0), is not inside one live allocation: it covers CB 0 at " +
                span(kCb, kCb + 4096) + " and no allocation at " + span(kCb + 4096, kCb + 65536) + kTail);
  // Within the CB it is fine.
  EXPECT_EQ(run(Script().op(kReadDram, 0, 0, big->address(), kCb, 4096)), "");
}

TEST_F(MemoryCheckTest, AReadPastTheEndOfADramBufferIsReported) {
  // 4 pages of 1 KiB over 8 banks: bank 3 holds page 3 only.
  auto b = Buffer::create(device, {4 * 1024, 1024, BufferType::DRAM});
  const uint64_t a = b->address();
  EXPECT_EQ(run(Script().op(kReadDram, 3, 0, uint32_t(a), kCb, 2048)),
            ops_site("read_dram") + ": core (0,0) BRISC: noc_async_read: the transfer's source, 2048 bytes at " +
                span(a, a + 2048) +
                " of DRAM bank 3, is not inside one live allocation: it covers the DRAM buffer at " + hex(a) +
                " (its pages in this bank: " + span(a, a + 1024) + ") and no allocation at " +
                span(a + 1024, a + 2048) + kTail);
  // Bank 5 holds none of its pages.
  EXPECT_NE(run(Script().op(kReadDram, 5, 0, uint32_t(a), kCb, 64))
                .find("the transfer's source, 64 bytes at " + span(a, a + 64) +
                      " of DRAM bank 5, is in no live allocation: it covers no allocation at " + span(a, a + 64)),
            std::string::npos);
  EXPECT_EQ(run(Script().op(kReadDram, 3, 0, uint32_t(a), kCb, 1024)), "");
}

TEST_F(MemoryCheckTest, AProgramReenqueuedAfterItsBufferWasFreedIsReported) {
  auto b = Buffer::create(device, {8 * 1024, 1024, BufferType::DRAM});
  const uint64_t a = b->address();
  Program p;
  p.add_circular_buffer(kCore, one_cb_config(4096, 1024));
  set_script(p, add_ops(p, kCore), kCore, Script().op(kWriteDram, 2, 0, uint32_t(a), kCb, 1024), *rec);
  device->command_queue().enqueue_program(p);
  b.reset(); // freed
  EXPECT_EQ(error_of<KernelError>(device->command_queue(), p),
            ops_site("write_dram") + ": core (0,0) BRISC: noc_async_write: the transfer's destination, 1024 bytes at " +
                span(a, a + 1024) +
                " of DRAM bank 2, is in no live allocation: it covers bytes of the freed DRAM "
                "buffer that was at " +
                hex(a) + " (" + span(a, a + 1024) + ")" + kTail);
  expect_device_works(device);
}

TEST_F(MemoryCheckTest, OneDevicesAddressesUsedOnAnotherAreReported) {
  auto other = open_device();
  auto b = Buffer::create(other, {8 * 1024, 1024, BufferType::DRAM});
  const uint64_t a = b->address();
  EXPECT_EQ(run(Script().op(kReadDram, 1, 0, uint32_t(a), kCb, 1024)),
            ops_site("read_dram") + ": core (0,0) BRISC: noc_async_read: the transfer's source, 1024 bytes at " +
                span(a, a + 1024) + " of DRAM bank 1, is in no live allocation: it covers no allocation at " +
                span(a, a + 1024) + kTail);
}

TEST_F(MemoryCheckTest, ATransferFromOneCbIntoTheNextIsReported) {
  // CB 1 follows CB 0 directly.
  EXPECT_EQ(run(Script().op(kWrite, noc00.x, noc00.y, rec->buffer->address(), kCb + 3072, 2048),
                {one_cb_config(2048, 1024, 1)}),
            ops_site("write") + ": core (0,0) BRISC: noc_async_write: the transfer's source, 2048 bytes at " +
                span(kCb + 3072, kCb + 5120) +
                " of the L1 of core (0,0), is not inside one live allocation: it covers CB 0 at " +
                span(kCb, kCb + 4096) + " and CB 1 at " + span(kCb + 4096, kCb + 6144) + kTail);
}

TEST_F(MemoryCheckTest, ACbOnlyLivesOnTheCoresItIsConfiguredOn) {
  // CB 0 exists on (0,0) only: the same offset on (1,0) is free L1. Silicon
  // writes it and disturbs nothing: a warning, an error under TESSEL_STRICT=1.
  const CoreCoord noc10 = device->worker_core_from_logical_core({1, 0});
  const Script write = Script().op(kWrite, noc10.x, noc10.y, kCb, kCb, 64);
  const std::string warning = ops_site("write") +
                              ": core (0,0) BRISC: noc_async_write: the transfer's destination, 64 bytes at " +
                              span(kCb, kCb + 64) +
                              " of the L1 of core (1,0), is free L1 (no buffer, CB or semaphore there); silicon "
                              "writes it and nothing else is disturbed, but nothing owns it either: write into a CB "
                              "or buffer sized for the data";
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_EQ(run(write), warning + " (a warning, made an error by TESSEL_STRICT=1)");
  unsetenv("TESSEL_STRICT");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run(write), "");
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find("tessel: warning: " + warning + "\n"), std::string::npos) << warned;
}

TEST_F(MemoryCheckTest, AWriteFromPastTheCbEndIntoFreeL1WarnsButAReadOfItFails) {
  // As a kernel that steps its write pointer past its CB: the bytes after CB 0 are free L1.
  const uint32_t past = kCb + 4096 + 64;
  auto dram = Buffer::create(device, {8 * 1024, 1024, BufferType::DRAM});
  testing::internal::CaptureStderr();
  EXPECT_EQ(run(Script().op(kReadDram, 0, 0, dram->address(), past, 64)), "");
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find("noc_async_read: the transfer's destination, 64 bytes at " + span(past, past + 64) +
                        " of the L1 of core (0,0), is free L1 (no buffer, CB or semaphore there)"),
            std::string::npos)
      << warned;
  // Reading free L1 reads what nobody wrote: an error.
  EXPECT_EQ(run(Script().op(kWrite, rec->noc.x, rec->noc.y, rec->buffer->address(), past, 64)),
            ops_site("write") + ": core (0,0) BRISC: noc_async_write: the transfer's source, 64 bytes at " +
                span(past, past + 64) +
                " of the L1 of core (0,0), is in no live allocation: it covers no allocation at " +
                span(past, past + 64) + kTail);
}

TEST_F(MemoryCheckTest, ASemaphoreTheProgramDidNotCreateIsNoAllocation) {
  // The program creates semaphore 0 only: an inline write to semaphore 3's word lands in no allocation.
  const uint32_t s0 = sim::semaphore_offset(0), s3 = sim::semaphore_offset(3);
  const auto program = [&](uint32_t target) {
    Program p;
    p.add_semaphore(kCore, 0);
    set_script(p, add_ops(p, kCore), kCore, Script().op(kInline, noc00.x, noc00.y, target, 1, 0xF), *rec);
    return p;
  };
  Program bad = program(s3);
  EXPECT_EQ(error_of<KernelError>(device->command_queue(), bad),
            ops_site("inline") + ": core (0,0) BRISC: noc_inline_dw_write: the transfer's destination, 4 bytes at " +
                span(s3, s3 + 4) + " of the L1 of core (0,0), is in no live allocation: it covers no allocation at " +
                span(s3, s3 + 4) + kTail);
  Program good = program(s0);
  EXPECT_NO_THROW(device->command_queue().enqueue_program(good));
  expect_device_works(device);
}

TEST_F(MemoryCheckTest, TheCheckerCanBeTurnedOff) {
  DeviceConfig config;
  config.grid_x = config.grid_y = 2;
  config.check_memory = false;
  auto unchecked = Device::open(config);
  EXPECT_FALSE(unchecked->check_memory());
  Recorder r(unchecked);
  Program p;
  p.add_circular_buffer(kCore, one_cb_config(4096, 1024));
  auto big = Buffer::create(unchecked, {8 * 65536, 65536, BufferType::DRAM});
  set_script(p, add_ops(p, kCore), kCore, Script().op(kReadDram, 0, 0, big->address(), kCb, 65536), r);
  EXPECT_NO_THROW(unchecked->command_queue().enqueue_program(p));
  // The environment decides when the config does not.
  setenv("TESSEL_CHECK_MEMORY", "0", 1);
  EXPECT_FALSE(open_device()->check_memory());
  setenv("TESSEL_CHECK_MEMORY", "1", 1);
  EXPECT_TRUE(open_device()->check_memory());
  setenv("TESSEL_CHECK_MEMORY", "maybe", 1);
  EXPECT_EQ(error_from<ValidationError>([] { open_device(); }),
            "TESSEL_CHECK_MEMORY='maybe' is not valid: expected 1 or 0 (also true/false, on/off, yes/no)");
  unsetenv("TESSEL_CHECK_MEMORY");
  EXPECT_TRUE(device->check_memory());
}

TEST_F(MemoryCheckTest, AMulticastIsCheckedAtEveryDestinationBeforeAnyIsWritten) {
  // An L1 buffer of one 1 KiB page per core, and a multicast of 2 KiB into it.
  auto b = Buffer::create(device, {4 * 1024, 1024, BufferType::L1});
  std::vector<uint32_t> before(1024, 0x5A5A5A5A);
  b->write(before.data(), 4096);
  const CoreCoord end = device->worker_core_from_logical_core({1, 1});
  const uint32_t rect = pack_rect(noc00, end);
  const std::string message = run(Script().op(kMcast, rect, b->address(), kCb, 2048, 3));
  EXPECT_NE(message.find("noc_async_write_multicast: the transfer's destination, 2048 bytes at " +
                         span(b->address(), b->address() + 2048) +
                         " of the L1 of core (1,0), is not inside one live "
                         "allocation: it covers the L1 buffer at " +
                         hex(b->address())),
            std::string::npos)
      << message;
  std::vector<uint32_t> after(1024);
  b->read(after.data(), 4096);
  EXPECT_EQ(after, before) << "a destination was written before the multicast was checked";
}

} // namespace
} // namespace tessel::test
