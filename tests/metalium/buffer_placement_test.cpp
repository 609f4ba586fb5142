// Buffers go where Metalium's allocator puts them: DRAM bottom-up at the DRAM
// alignment, L1 top-down at the 16-byte L1 alignment (each page padded to
// it), and DeviceLocalBufferConfig::bottom_up turns either around.
#include <gtest/gtest.h>

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

TEST(BufferPlacementTest, DramGoesUpL1GoesDownAndBottomUpTurnsEitherAround) {
  auto mesh = MeshDevice::create_unit_mesh(0);
  const uint32_t dram_alignment = mesh->allocator()->get_alignment(BufferType::DRAM);
  auto first = make(*mesh, BufferType::DRAM, 4, std::nullopt);
  auto second = make(*mesh, BufferType::DRAM, 4, std::nullopt);
  auto high = make(*mesh, BufferType::DRAM, 4, false);
  EXPECT_EQ(first->address(), mesh->allocator()->get_base_allocator_addr(HalMemType::DRAM));
  EXPECT_EQ(second->address(), first->address() + dram_alignment) << "a 4-byte page takes a DRAM-aligned slot";
  EXPECT_GT(high->address(), second->address()) << "bottom_up = false: from the top of the bank";
  EXPECT_EQ(high->address() % dram_alignment, 0u);

  // Three 4-byte L1 buffers, as Metalium's add_2_integers_in_riscv makes them: 16 bytes apart, top down.
  auto a = make(*mesh, BufferType::L1, 4, std::nullopt);
  auto b = make(*mesh, BufferType::L1, 4, std::nullopt);
  auto c = make(*mesh, BufferType::L1, 4, std::nullopt);
  EXPECT_EQ(b->address(), a->address() - 16);
  EXPECT_EQ(c->address(), b->address() - 16);
  auto low = make(*mesh, BufferType::L1, 4, true);
  EXPECT_LT(low->address(), c->address()) << "bottom_up = true: from the bottom of L1";
  EXPECT_EQ(low->address(), mesh->allocator()->get_base_allocator_addr(HalMemType::L1));
  mesh->close();
}

} // namespace
