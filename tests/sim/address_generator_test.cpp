// Address generators and TensorAccessor: page p of an interleaved buffer is
// in bank p % banks at address + (p / banks) * align_up(page, alignment), as
// the host laid it out; every generator agrees with the host's layout.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kGenerators = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t odd_base = get_arg_val<uint32_t>(0);
  const uint32_t tile_base = get_arg_val<uint32_t>(1);
  const uint32_t l1_base = get_arg_val<uint32_t>(2);
  const uint32_t count = get_arg_val<uint32_t>(3);
  constexpr auto tile_args = TensorAccessorArgs<0>();
  const auto accessor = TensorAccessor(tile_args, tile_base);
  const InterleavedAddrGen<true> odd = {odd_base, 100};
  const InterleavedAddrGenFast<true> fast = {tile_base, 2048, DataFormat::Float16_b};
  const InterleavedPow2AddrGen<true> pow2 = {tile_base, 11};
  const InterleavedAddrGen<false> l1 = {l1_base, 48};
  cb_reserve_back(0, 1);
  uint64_t* out = reinterpret_cast<uint64_t*>(get_write_ptr(0));
  for (uint32_t i = 0; i < count; ++i) {
    out[0 * count + i] = odd.get_noc_addr(i);
    out[1 * count + i] = fast.get_noc_addr(i);
    out[2 * count + i] = pow2.get_noc_addr(i);
    out[3 * count + i] = accessor.get_noc_addr(i);
    out[4 * count + i] = l1.get_noc_addr(i, 4);
    out[5 * count + i] = get_noc_addr_from_bank_id<true>(i % 8, tile_base + (i / 8) * 2048);
  }
  noc_async_write(get_write_ptr(0), get_noc_addr(get_arg_val<uint32_t>(5), get_arg_val<uint32_t>(6), get_arg_val<uint32_t>(4)), 4096);
  noc_async_write_barrier();
  cb_push_back(0, 1);
}
)";

struct Decoded {
  uint32_t x, y;
  uint64_t local;
};
Decoded decode(uint64_t a) { return {uint32_t(a >> 36) & 63, uint32_t(a >> 42) & 63, a & ((uint64_t(1) << 36) - 1)}; }

TEST(AddressGeneratorTest, EveryGeneratorMatchesTheHostLayout) {
  auto device = open_device(); // blackhole 2x2: 8 DRAM banks (64 B alignment), 4 L1 banks (16 B)
  Recorder rec(device);
  const uint32_t count = 16;
  auto odd = Buffer::create(device, {100 * count, 100, BufferType::DRAM});
  auto tiles = Buffer::create(device, {2048 * count, 2048, BufferType::DRAM});
  auto l1 = Buffer::create(device, {48 * count, 48, BufferType::L1});
  Program p;
  CircularBufferConfig cb(4096, {{0, DataFormat::UInt32}});
  cb.set_page_size(0, 4096);
  p.add_circular_buffer(CoreCoord{1, 1}, cb);
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*tiles).append_to(cta);
  KernelHandle k =
      p.add_kernel_from_source(kGenerators, "generators.cpp", CoreCoord{1, 1},
                               DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, cta});
  p.set_runtime_args(
      k, CoreCoord{1, 1},
      {odd->address(), tiles->address(), l1->address(), count, rec.buffer->address(), rec.noc.x, rec.noc.y});
  device->command_queue().enqueue_program(p);
  const auto words = rec.read();
  auto at = [&](uint32_t table, uint32_t i) {
    return decode(uint64_t(words[(table * count + i) * 2]) | uint64_t(words[(table * count + i) * 2 + 1]) << 32);
  };
  for (uint32_t i = 0; i < count; ++i) {
    SCOPED_TRACE(i);
    const Decoded o = at(0, i);
    EXPECT_EQ(o.x, 0u);
    EXPECT_EQ(o.y, i % 8) << "DRAM bank b sits at NoC (0, b)";
    EXPECT_EQ(o.local, odd->address() + (i / 8) * 128u) << "100-byte pages are 64-byte aligned in a bank";
    for (uint32_t table : {1u, 2u, 3u, 5u}) {
      const Decoded t = at(table, i);
      EXPECT_EQ(t.y, i % 8) << "table " << table;
      EXPECT_EQ(t.local, tiles->address() + (i / 8) * 2048u) << "table " << table;
    }
    const Decoded l = at(4, i);
    const CoreCoord bank_core = device->worker_core_from_logical_core({i % 4 % 2, i % 4 / 2});
    EXPECT_EQ(l.x, bank_core.x);
    EXPECT_EQ(l.y, bank_core.y);
    EXPECT_EQ(l.local, l1->address() + (i / 4) * 48u + 4);
  }
}

} // namespace
} // namespace tessel::test
