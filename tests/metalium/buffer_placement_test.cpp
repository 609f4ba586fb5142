// Buffers go where Metalium's allocator puts them: DRAM bottom-up from the
// DRAM alignment (the barrier word's slot below it), L1 top-down; every
// buffer's start and size in a bank at the DRAM alignment (64 bytes on
// Blackhole, 32 on Wormhole), pages padded to 16 bytes in L1 and to the DRAM
// alignment in DRAM; DeviceLocalBufferConfig::bottom_up turns either around.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>

#include "tt-metalium/distributed.hpp"

using namespace tt::tt_metal;
using namespace tt::tt_metal::distributed;

namespace {

std::shared_ptr<MeshBuffer> make(MeshDevice& mesh, BufferType type, uint32_t size, std::optional<bool> bottom_up) {
  return MeshBuffer::create(ReplicatedBufferConfig{.size = size},
                            DeviceLocalBufferConfig{.page_size = size, .buffer_type = type, .bottom_up = bottom_up},
                            &mesh);
}

// One sequence of allocations on `arch`, checked against Metalium's placement.
void check_placement(const char* arch, uint32_t dram_alignment) {
  setenv("TESSEL_ARCH", arch, 1);
  auto mesh = MeshDevice::create_unit_mesh(0);
  unsetenv("TESSEL_ARCH");
  EXPECT_EQ(mesh->allocator()->get_alignment(BufferType::DRAM), dram_alignment);
  EXPECT_EQ(mesh->allocator()->get_alignment(BufferType::L1), 16u);
  EXPECT_EQ(mesh->allocator()->get_base_allocator_addr(HalMemType::DRAM), dram_alignment);
  auto first = make(*mesh, BufferType::DRAM, 4, std::nullopt);
  auto second = make(*mesh, BufferType::DRAM, 4, std::nullopt);
  auto high = make(*mesh, BufferType::DRAM, 4, false);
  EXPECT_EQ(first->address(), dram_alignment) << "the first slot above the DRAM barrier's";
  EXPECT_EQ(second->address(), first->address() + dram_alignment) << "a 4-byte page takes a DRAM-aligned slot";
  EXPECT_GT(high->address(), second->address()) << "bottom_up = false: from the top of the bank";
  EXPECT_EQ(high->address() % dram_alignment, 0u);

  // Three 4-byte L1 buffers, as Metalium's add_2_integers_in_riscv makes
  // them: one DRAM-aligned slot each, top down from the end of L1.
  auto a = make(*mesh, BufferType::L1, 4, std::nullopt);
  auto b = make(*mesh, BufferType::L1, 4, std::nullopt);
  auto c = make(*mesh, BufferType::L1, 4, std::nullopt);
  EXPECT_EQ(a->address(), mesh->l1_size_per_core() - dram_alignment);
  EXPECT_EQ(b->address(), a->address() - dram_alignment);
  EXPECT_EQ(c->address(), b->address() - dram_alignment);
  // A 40-byte page is padded to 48 in its bank; the buffer's slot is rounded to the DRAM alignment.
  auto d = MeshBuffer::create(ReplicatedBufferConfig{.size = 80},
                              DeviceLocalBufferConfig{.page_size = 40, .buffer_type = BufferType::L1}, mesh.get());
  EXPECT_EQ(d->get_backing_buffer()->aligned_page_size(), 48u);
  EXPECT_EQ(d->address(), c->address() - 64) << "48 bytes per bank, in a 64-byte slot";
  auto low = make(*mesh, BufferType::L1, 4, true);
  EXPECT_LT(low->address(), d->address()) << "bottom_up = true: from the bottom of L1";
  EXPECT_EQ(low->address(), mesh->allocator()->get_base_allocator_addr(HalMemType::L1));
  EXPECT_EQ(low->address() % dram_alignment, 0u);
  mesh->close();
}

TEST(BufferPlacementTest, BlackholeSlotsAre64Bytes) { check_placement("blackhole", 64); }

TEST(BufferPlacementTest, WormholeSlotsAre32Bytes) { check_placement("wormhole_b0", 32); }

} // namespace
