// NoC transfers of the simulator (src/sim/kernel_api.cpp): unicast L1<->L1
// and DRAM<->L1, multicast rectangles, inline writes, remote semaphore
// updates, and the checks on length, alignment, bounds and coordinates.
#include <gtest/gtest.h>

#include <cstdio>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr CoreCoord kCore{0, 0};
constexpr uint32_t kPage = 1024; // bytes of each core's page of the L1 buffers

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

class NocTest : public ::testing::Test {
protected:
  void open(const std::string& arch = "blackhole", const std::string& policy = "deterministic") {
    device = open_device(arch, 2, 2, policy);
    rec = std::make_unique<Recorder>(device);
    // One kPage page per core, at the same address on every core.
    src = Buffer::create(device, {4 * kPage, kPage, BufferType::L1});
    dst = Buffer::create(device, {4 * kPage, kPage, BufferType::L1});
    std::vector<uint32_t> pattern(4 * kPage / 4);
    for (uint32_t i = 0; i < pattern.size(); ++i)
      pattern[i] = ((i / (kPage / 4)) << 16) | (i % (kPage / 4)) | 0x1000000;
    src->write(pattern.data(), src->size());
    std::vector<uint32_t> zeros(pattern.size(), 0);
    dst->write(zeros.data(), dst->size());
  }
  void SetUp() override { open(); }

  CoreCoord noc(CoreCoord logical) const { return device->worker_core_from_logical_core(logical); }

  // The words of `buffer`'s page on logical core index `core`.
  static std::vector<uint32_t> page_of(const Buffer& buffer, uint32_t core) {
    std::vector<uint32_t> all(buffer.size() / 4);
    buffer.read(all.data(), buffer.size());
    const uint32_t words = buffer.page_size() / 4;
    return std::vector<uint32_t>(all.begin() + core * words, all.begin() + (core + 1) * words);
  }

  void run(const Script& script, CoreCoord core = kCore) {
    Program p;
    set_script(p, add_ops(p, core), core, script, *rec);
    device->command_queue().enqueue_program(p);
  }
  std::string kernel_error(const Script& script, CoreCoord core = kCore) {
    Program p;
    set_script(p, add_ops(p, core), core, script, *rec);
    std::string message = error_of<KernelError>(device->command_queue(), p);
    expect_device_works(device);
    return message;
  }

  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
  std::shared_ptr<Buffer> src, dst;
};

TEST_F(NocTest, UnicastBetweenCoresL1) {
  const CoreCoord far = noc({1, 1}), right = noc({1, 0});
  run(Script()
          .op(kRead, far.x, far.y, src->address(), dst->address(), kPage)           // (1,1).src -> (0,0).dst
          .op(kWrite, right.x, right.y, dst->address() + 64, src->address(), 256)); // (0,0).src -> (1,0).dst+64
  EXPECT_EQ(page_of(*dst, 0), page_of(*src, 3));
  const auto right_dst = page_of(*dst, 1), mine = page_of(*src, 0);
  for (uint32_t i = 0; i < kPage / 4; ++i) {
    const uint32_t expected = (i >= 16 && i < 16 + 64) ? mine[i - 16] : 0;
    ASSERT_EQ(right_dst[i], expected) << "word " << i;
  }
  EXPECT_EQ(page_of(*dst, 2), std::vector<uint32_t>(kPage / 4, 0));
}

TEST_F(NocTest, DramToL1AndBack) {
  const uint32_t banks = device->dram_banks();
  auto in = Buffer::create(device, {banks * 64ull, 64, BufferType::DRAM});
  auto out = Buffer::create(device, {banks * 64ull, 64, BufferType::DRAM});
  std::vector<uint32_t> words(banks * 16), zeros(banks * 16, 0);
  for (uint32_t i = 0; i < words.size(); ++i)
    words[i] = 0xD0000000u + i;
  device->command_queue().enqueue_write_buffer(*in, words);
  device->command_queue().enqueue_write_buffer(*out, zeros);
  ASSERT_EQ(dst->address() % 64, 0u);
  // Page p of an interleaved buffer is in bank p % banks at the buffer's address.
  run(Script()
          .op(kReadDram, 3, 0, in->address(), dst->address(), 64)
          .op(kWriteDram, 5, 0, out->address(), dst->address(), 64));
  const auto got = page_of(*dst, 0);
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(got[i], words[3 * 16 + i]);
  EXPECT_EQ(got[16], 0u);
  std::vector<uint32_t> result;
  device->command_queue().enqueue_read_buffer(*out, result);
  for (uint32_t p = 0; p < banks; ++p)
    for (uint32_t i = 0; i < 16; ++i)
      EXPECT_EQ(result[p * 16 + i], p == 5 ? words[3 * 16 + i] : 0u);
}

TEST_F(NocTest, ZeroLengthTransferFails) {
  const CoreCoord far = noc({1, 1});
  EXPECT_EQ(kernel_error(Script().op(kRead, far.x, far.y, src->address(), dst->address(), 0)),
            ops_site("read") + ": core (0,0) BRISC: noc_async_read: zero-length transfer");
  EXPECT_EQ(kernel_error(Script().op(kWrite, far.x, far.y, src->address(), dst->address(), 0)),
            ops_site("write") + ": core (0,0) BRISC: noc_async_write: zero-length transfer");
}

TEST_F(NocTest, DramReadMisalignedFor64ByteBlackhole) {
  auto in = Buffer::create(device, {device->dram_banks() * 64ull, 64, BufferType::DRAM});
  ASSERT_EQ(in->address() % 64, 0u);
  ASSERT_EQ(dst->address() % 64, 0u);
  EXPECT_EQ(kernel_error(Script().op(kReadDram, 0, 0, in->address() + 32, dst->address(), 32)),
            ops_site("read_dram") + ": core (0,0) BRISC: noc_async_read: misaligned transfer: DRAM address " +
                hex(in->address() + 32) + " and local L1 address " + hex(dst->address()) +
                " differ modulo 64 (a DRAM read on blackhole needs both addresses to agree modulo 64, Metalium's "
                "NOC_DRAM_READ_ALIGNMENT_BYTES: silicon would move the bytes to the wrong offset; align both addresses "
                "to 64)");
}

TEST_F(NocTest, DramRead32ByteAlignedPassesOnWormhole) {
  open("wormhole_b0");
  EXPECT_EQ(device->dram_banks(), 12u);
  auto in = Buffer::create(device, {device->dram_banks() * 64ull, 64, BufferType::DRAM});
  std::vector<uint32_t> words(in->size() / 4);
  for (uint32_t i = 0; i < words.size(); ++i)
    words[i] = 0xE0000000u + i;
  device->command_queue().enqueue_write_buffer(*in, words);
  ASSERT_EQ(dst->address() % 32, 0u);
  run(Script().op(kReadDram, 0, 0, in->address() + 32, dst->address(), 32));
  const auto got = page_of(*dst, 0);
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_EQ(got[i], words[8 + i]);
  EXPECT_EQ(got[8], 0u);
  // 16 bytes off the 32-byte unit still fails on wormhole_b0.
  EXPECT_NE(kernel_error(Script().op(kReadDram, 0, 0, in->address() + 16, dst->address(), 16))
                .find("differ modulo 32 (a DRAM read on wormhole_b0 needs both addresses to agree modulo 32, "
                      "Metalium's NOC_DRAM_READ_ALIGNMENT_BYTES"),
            std::string::npos);
}

// Metalium's add_2_integers_in_riscv: 4-byte DRAM pages read into 4-byte L1
// buffers. Metalium's allocator gives every buffer, L1 ones too, a slot at
// the DRAM alignment, so each read lines up on both arches.
TEST_F(NocTest, FourBytePagesReadFromDramIntoFourByteL1BuffersLineUp) {
  for (const char* arch : {"blackhole", "wormhole_b0"}) {
    SCOPED_TRACE(arch);
    open(arch);
    const uint32_t unit = device->dram_alignment();
    std::vector<std::shared_ptr<Buffer>> dram, l1;
    for (uint32_t i = 0; i < 3; ++i)
      dram.push_back(Buffer::create(device, {4, 4, BufferType::DRAM}));
    for (uint32_t i = 0; i < 3; ++i)
      l1.push_back(Buffer::create(device, {4, 4, BufferType::L1}));
    for (uint32_t i = 0; i < 3; ++i) {
      EXPECT_EQ(dram[i]->address(), unit * (i + 1)) << "DRAM buffer " << i;
      EXPECT_EQ(l1[i]->address(), dst->address() - unit * (i + 1)) << "L1 buffer " << i;
    }
    const std::vector<uint32_t> a = {14}, b = {7};
    device->command_queue().enqueue_write_buffer(*dram[0], a);
    device->command_queue().enqueue_write_buffer(*dram[1], b);
    run(Script()
            .op(kReadDram, 0, 0, dram[0]->address(), l1[0]->address(), 4)
            .op(kReadDram, 0, 0, dram[1]->address(), l1[1]->address(), 4));
    std::vector<uint32_t> got;
    device->command_queue().enqueue_read_buffer(*l1[0], got);
    EXPECT_EQ(got, a);
    device->command_queue().enqueue_read_buffer(*l1[1], got);
    EXPECT_EQ(got, b);
  }
}

TEST_F(NocTest, OutOfBoundsL1Fails) {
  const CoreCoord far = noc({1, 1});
  const uint32_t l1 = device->l1_size();
  EXPECT_EQ(kernel_error(Script().op(kWrite, far.x, far.y, l1 - 16, src->address(), 64)),
            ops_site("write") + ": core (0,0) BRISC: noc_async_write: 64 bytes at L1 " + hex(l1 - 16) +
                " of core (1,1) run past the end of L1 (" + std::to_string(l1) + " bytes)");
  EXPECT_EQ(kernel_error(Script().op(kRead, far.x, far.y, src->address(), l1 - 32, 64)),
            ops_site("read") + ": core (0,0) BRISC: noc_async_read: destination 64 bytes at L1 " + hex(l1 - 32) +
                " run past the end of L1 (" + std::to_string(l1) + " bytes)");
}

TEST_F(NocTest, OutOfBoundsDramFails) {
  EXPECT_EQ(kernel_error(Script().op(kReadDram, 2, 0, 0xFFFFFFC0u, dst->address(), 128)),
            ops_site("read_dram") + ": core (0,0) BRISC: noc_async_read: 128 bytes at DRAM bank 2 address 0xffffffc0 "
                                    "run past the end of the bank (4294967296 bytes)");
}

TEST_F(NocTest, BadCoordinatesFail) {
  // Blackhole's 2x2 workers are NoC x 1..2, y 2..3; DRAM banks are NoC (0, 0..7).
  EXPECT_NE(kernel_error(Script().op(kRead, 3, 2, src->address(), dst->address(), 64))
                .find(ops_site("read") + ": core (0,0) BRISC: noc_async_read: no core or DRAM bank at NoC (3,2) "
                                         "(address 0x"),
            std::string::npos);
  EXPECT_NE(kernel_error(Script().op(kWrite, 0, 9, src->address(), dst->address(), 64))
                .find("noc_async_write: no core or DRAM bank at NoC (0,9)"),
            std::string::npos);
  EXPECT_NE(kernel_error(Script().op(kRead, 3, 2, src->address(), dst->address(), 64))
                .find("; worker cores span NoC x 1..2, y 2..3; use worker_core_from_logical_core on the host"),
            std::string::npos);
}

// A coordinate beyond NoC's 6 bits used to wrap onto a real core or bank:
// (200,200) read a worker's L1, (64,2) DRAM bank 3.
std::string poisoned(uint32_t x, uint32_t y, uint64_t local, const char* call, const std::string& made_at) {
  const uint64_t addr = (1ull << 63) | (1ull << 60) | (uint64_t(y & 63) << 42) | (uint64_t(x & 63) << 36) | local;
  return made_at + ": core (0,0) BRISC: " + call + ": the NoC address " + hex(addr) + " was made from NoC (" +
         std::to_string(x) + "," + std::to_string(y) + ") by get_noc_addr at " + made_at +
         ": NoC coordinates are 6 bits (0..63), and no core or DRAM bank lies outside them; worker cores span NoC x "
         "1..2, y 2..3; use worker_core_from_logical_core on the host";
}

TEST_F(NocTest, CoordinatesBeyondSixBitsNeverWrapOntoCoresOrBanks) {
  EXPECT_EQ(kernel_error(Script().op(kRead, 200, 200, src->address(), dst->address(), 64)),
            poisoned(200, 200, src->address(), "noc_async_read", ops_site("read")));
  EXPECT_EQ(kernel_error(Script().op(kWrite, 64, 2, 0, src->address(), 64)),
            poisoned(64, 2, 0, "noc_async_write", ops_site("write")));
  EXPECT_EQ(kernel_error(Script().op(kInline, 1, 66, dst->address(), 7, 0xF)),
            poisoned(1, 66, dst->address(), "noc_inline_dw_write", ops_site("inline")));
  // my_x - 1 on column 0: the unsigned wrap of a neighbour's coordinate.
  EXPECT_EQ(kernel_error(Script().op(kInline, 0xFFFFFFFFu, 2, dst->address(), 7, 0xF)),
            poisoned(0xFFFFFFFFu, 2, dst->address(), "noc_inline_dw_write", ops_site("inline")));
  // A multicast rectangle whose end is beyond the NoC.
  const std::string mcast = kernel_error(
      Script().op(kMcast, (70u << 16) | (3u << 24) | (1u << 0) | (2u << 8), dst->address(), src->address(), 64, 1));
  EXPECT_NE(mcast.find(ops_site("mcast") + ": core (0,0) BRISC: noc_async_write_multicast: the NoC address 0x"),
            std::string::npos)
      << mcast;
  EXPECT_NE(mcast.find(" was made from the rectangle NoC (1,2)-(70,3) by get_noc_multicast_addr at ops.cpp:"),
            std::string::npos)
      << mcast;
}

// Metalium's hello_world_datatypes_kernel reads get_noc_addr(1, 0, ...), a
// DRAM bank on Grayskull. On Wormhole NoC (1,0) is an Ethernet core: silicon
// reads its L1, which tessel does not model.
const std::string kDramHint = "; DRAM banks are reached through the bank tables (get_noc_addr_from_bank_id, "
                              "InterleavedAddrGen, TensorAccessor), not fixed coordinates";

TEST_F(NocTest, TransfersWithAWormholeEthernetCoreWarnAndTouchNothingModelled) {
  open("wormhole_b0");
  const std::string read = ops_site("read") +
                           ": core (0,0) BRISC: noc_async_read: NoC (1,0) is an Ethernet core on "
                           "wormhole_b0, whose L1 (262144 bytes) tessel does not model: this read "
                           "returns 64 zero bytes, where silicon returns what that core's L1 holds "
                           "at 0x20" +
                           kDramHint;
  const std::string write = ops_site("write") +
                            ": core (0,0) BRISC: noc_async_write: NoC (9,6) is an Ethernet core "
                            "on wormhole_b0, whose L1 (262144 bytes) tessel does not model: this "
                            "write of 32 bytes is dropped, where silicon writes them into that "
                            "core's L1 at 0x40 (memory its firmware may use)" +
                            kDramHint;
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_EQ(kernel_error(Script().op(kRead, 1, 0, 32, src->address(), 64)),
            read + " (a warning, made an error by TESSEL_STRICT=1)");
  unsetenv("TESSEL_STRICT");
  const auto before = page_of(*src, 0);
  testing::internal::CaptureStderr();
  run(Script().op(kRead, 1, 0, 32, src->address(), 64).op(kWrite, 9, 6, 64, src->address() + 128, 32));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "tessel: warning: " + read + "\ntessel: warning: " + write + "\n");
  const auto after = page_of(*src, 0);
  for (uint32_t i = 0; i < kPage / 4; ++i)
    ASSERT_EQ(after[i], i < 16 ? 0u : before[i]) << "word " << i << ": the read lands 64 zero bytes";
  // Its L1 ends where silicon's does; its alignment is L1's.
  EXPECT_EQ(kernel_error(Script().op(kRead, 1, 0, 262144 - 32, dst->address(), 64)),
            ops_site("read") + ": core (0,0) BRISC: noc_async_read: 64 bytes at 0x3ffe0 of NoC (1,0), an Ethernet "
                               "core on wormhole_b0, run past the end of its L1 (262144 bytes)");
  EXPECT_NE(kernel_error(Script().op(kRead, 1, 0, 40, dst->address(), 16))
                .find("noc_async_read: misaligned transfer: remote L1 address 0x28 and local L1 address " +
                      hex(dst->address()) +
                      " differ modulo 16 (an L1 read on wormhole_b0 needs both addresses to "
                      "agree modulo 16, Metalium's NOC_L1_READ_ALIGNMENT_BYTES"),
            std::string::npos);
}

TEST_F(NocTest, BlackholeTilesWithoutMemoryAreNamedInTheError) {
  // On Blackhole NoC (1,0) is a router-only tile; its Ethernet cores are on row 1.
  EXPECT_EQ(kernel_error(Script().op(kRead, 1, 0, 32, dst->address(), 64)),
            ops_site("read") + ": core (0,0) BRISC: noc_async_read: no core or DRAM bank at NoC (1,0) (address " +
                hex((1ull << 36) | 32) +
                "); on blackhole silicon NoC (1,0) is a router-only tile (a NoC router with no memory behind it); "
                "worker cores span NoC x 1..2, y 2..3; use worker_core_from_logical_core on the host" +
                kDramHint);
  EXPECT_NE(kernel_error(Script().op(kWrite, 0, 9, src->address(), dst->address(), 64))
                .find("noc_async_write: no core or DRAM bank at NoC (0,9) (address 0x"),
            std::string::npos);
  EXPECT_NE(kernel_error(Script().op(kWrite, 0, 9, src->address(), dst->address(), 64))
                .find("); on blackhole silicon NoC (0,9) is an endpoint of DRAM channel 2; worker cores span"),
            std::string::npos);
  testing::internal::CaptureStderr();
  run(Script().op(kRead, 7, 1, 0x7ffc0, dst->address(), 64));
  EXPECT_NE(testing::internal::GetCapturedStderr().find(
                "noc_async_read: NoC (7,1) is an Ethernet core on blackhole, whose L1 (524288 bytes) tessel does not "
                "model: this read returns 64 zero bytes"),
            std::string::npos);
}

TEST_F(NocTest, MakingAnAddressBeyondTheNocIsNoErrorUntilItIsUsed) {
  const CoreCoord me = noc(kCore);
  run(Script().op(kMakeNocAddr, 200, 3, 0).op(kMakeNocAddr, me.x, me.y, 1));
  EXPECT_EQ(rec->at(0), 0x9u); // poisoned: bit 63 and token 1
  EXPECT_EQ(rec->at(1), 0x0u);
}

TEST_F(NocTest, MulticastWithReversedCornersExcludesTheSender) {
  const CoreCoord lo = noc({0, 0}), hi = noc({1, 1});
  run(Script().op(kMcast, pack_rect(hi, lo), dst->address(), src->address(), kPage, 3, 0));
  EXPECT_EQ(page_of(*dst, 0), std::vector<uint32_t>(kPage / 4, 0));
  for (uint32_t c = 1; c < 4; ++c)
    EXPECT_EQ(page_of(*dst, c), page_of(*src, 0)) << "core " << c;
}

TEST_F(NocTest, MulticastLoopbackIncludesTheSender) {
  const CoreCoord lo = noc({0, 0}), hi = noc({1, 1});
  run(Script().op(kMcast, pack_rect(lo, hi), dst->address(), src->address(), kPage, 4, 1));
  for (uint32_t c = 0; c < 4; ++c)
    EXPECT_EQ(page_of(*dst, c), page_of(*src, 0)) << "core " << c;
}

TEST_F(NocTest, MulticastToARowWithoutTheSender) {
  const CoreCoord a = noc({1, 1}), b = noc({0, 1});
  run(Script().op(kMcast, pack_rect(a, b), dst->address(), src->address(), 128, 2, 0));
  EXPECT_EQ(page_of(*dst, 1), std::vector<uint32_t>(kPage / 4, 0));
  for (uint32_t c : {2u, 3u}) {
    const auto got = page_of(*dst, c), sent = page_of(*src, 0);
    EXPECT_TRUE(std::equal(got.begin(), got.begin() + 32, sent.begin())) << "core " << c;
    EXPECT_EQ(got[32], 0u);
  }
}

TEST_F(NocTest, MulticastWithWrongDestinationCountFails) {
  const CoreCoord lo = noc({0, 0}), hi = noc({1, 1});
  EXPECT_EQ(kernel_error(Script().op(kMcast, pack_rect(hi, lo), dst->address(), src->address(), kPage, 4, 0)),
            ops_site("mcast") + ": core (0,0) BRISC: noc_async_write_multicast: num_dests is 4 but the rectangle NoC "
                                "(1,2)-(2,3) has 3 destination cores (the sender excluded; use the _loopback_src form "
                                "to include it)");
  EXPECT_EQ(kernel_error(Script().op(kMcast, pack_rect(lo, hi), dst->address(), src->address(), kPage, 3, 1)),
            ops_site("mcast_loopback") +
                ": core (0,0) BRISC: noc_async_write_multicast_loopback_src: num_dests is 3 but the rectangle NoC "
                "(1,2)-(2,3) has 4 destination cores (including the sender)");
  // Nothing was written by the failed multicasts.
  for (uint32_t c = 0; c < 4; ++c)
    EXPECT_EQ(page_of(*dst, c), std::vector<uint32_t>(kPage / 4, 0));
}

TEST_F(NocTest, MulticastOutsideTheWorkersFails) {
  const CoreCoord hi = noc({1, 1});
  EXPECT_NE(kernel_error(Script().op(kMcast, pack_rect({0, 2}, hi), dst->address(), src->address(), 64, 5, 0))
                .find("noc_async_write_multicast: multicast rectangle NoC (0,2)-(2,3) includes NoC (0,2), which is "
                      "not a worker core"),
            std::string::npos);
}

TEST_F(NocTest, InlineWriteHonoursByteEnables) {
  const CoreCoord right = noc({1, 0}), me = noc({0, 0});
  run(Script()
          .op(kInline, right.x, right.y, dst->address(), 0xAABBCCDDu, 0x5)
          .op(kInline, right.x, right.y, dst->address() + 4, 0xAABBCCDDu, 0xF)
          .op(kInline, me.x, me.y, dst->address() + 8, 0x11223344u, 0xA));
  const auto got = page_of(*dst, 1);
  EXPECT_EQ(got[0], 0x00BB00DDu);
  EXPECT_EQ(got[1], 0xAABBCCDDu);
  EXPECT_EQ(page_of(*dst, 0)[2], 0x11003300u);
}

TEST_F(NocTest, InlineWriteChecksItsTarget) {
  const CoreCoord right = noc({1, 0});
  EXPECT_EQ(kernel_error(Script().op(kInline, right.x, right.y, dst->address() + 2, 1, 0xF)),
            ops_site("inline") + ": core (0,0) BRISC: noc_inline_dw_write: address " + hex(dst->address() + 2) +
                " is not 4-byte aligned");
  EXPECT_EQ(kernel_error(Script().op(kInline, 0, 1, 64, 1, 0xF)),
            ops_site("inline") + ": core (0,0) BRISC: noc_inline_dw_write: inline writes can target L1 only, not DRAM");
}

class NocSemaphoreTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NocSemaphoreTest, IncrementWrapsAt32Bits) {
  auto device = open_device("blackhole", 2, 2, GetParam());
  Recorder rec(device);
  Program p;
  const CoreRange all({0, 0}, {1, 1});
  p.add_semaphore(all, 0xFFFFFFFFu);
  KernelHandle k = add_ops(p, all);
  const CoreCoord target = device->worker_core_from_logical_core({1, 1});
  for (CoreCoord c : std::vector<CoreCoord>{{0, 0}, {1, 0}, {0, 1}})
    set_script(p, k, c, Script().op(kSemInc, target.x, target.y, 0, 1), rec);
  // 0xFFFFFFFF + 3 wraps to 2; the waiter wakes only when all three increments landed.
  set_script(p, k, CoreCoord{1, 1}, Script().op(kSemWait, 0, 2).op(kRecordSem, 0, 5), rec);
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(5), 2u);
}

TEST_P(NocSemaphoreTest, SetMulticastReachesEveryReceiver) {
  auto device = open_device("blackhole", 2, 2, GetParam());
  Recorder rec(device);
  Program p;
  const CoreRange all({0, 0}, {1, 1});
  const uint32_t value_sem = p.add_semaphore(all, 7);
  const uint32_t flag_sem = p.add_semaphore(all, 0);
  KernelHandle k = add_ops(p, all);
  const CoreCoord lo = device->worker_core_from_logical_core({0, 0}),
                  hi = device->worker_core_from_logical_core({1, 1});
  set_script(p, k, CoreCoord{0, 0},
             Script().op(kSemSetMcast, pack_rect(hi, lo), flag_sem, value_sem, 3, 0).op(kRecordSem, flag_sem, 0), rec);
  for (CoreCoord c : std::vector<CoreCoord>{{1, 0}, {0, 1}, {1, 1}})
    set_script(p, k, c, Script().op(kSemWait, flag_sem, 7).op(kRecordSem, flag_sem, c.y * 2 + c.x), rec);
  device->command_queue().enqueue_program(p);
  const auto words = rec.read();
  EXPECT_EQ(words[0], 0u); // the sender is excluded
  EXPECT_EQ(words[1], 7u);
  EXPECT_EQ(words[2], 7u);
  EXPECT_EQ(words[3], 7u);
}

INSTANTIATE_TEST_SUITE_P(Policies, NocSemaphoreTest, ::testing::ValuesIn(policies()), policy_name);

TEST_F(NocTest, SetMulticastWithWrongDestinationCountFails) {
  Program p;
  const CoreRange all({0, 0}, {1, 1});
  p.add_semaphore(all, 7);
  p.add_semaphore(all, 0);
  const CoreCoord lo = noc({0, 0}), hi = noc({1, 1});
  set_script(p, add_ops(p, kCore), kCore, Script().op(kSemSetMcast, pack_rect(lo, hi), 1, 0, 4, 0), *rec);
  EXPECT_EQ(error_of<KernelError>(device->command_queue(), p),
            ops_site("sem_set_mcast") + ": core (0,0) BRISC: noc_semaphore_set_multicast: num_dests is 4 but the "
                                        "rectangle NoC (1,2)-(2,3) has 3 destination cores (the sender excluded; use "
                                        "the _loopback_src form to include it)");
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
