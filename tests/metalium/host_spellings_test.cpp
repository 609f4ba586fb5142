// Host-side spellings of today's TT-Metalium that programs rely on without
// including anything for them: fmt and its formatters for core types, the
// tt-logger calls, TT_FATAL's fmt formatting, tt_xy_pair, CoreRange's
// start_coord/end_coord and set operations, num_cores_to_corerangeset.
#include <gtest/gtest.h>

#include <cstdlib>

#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "tt-metalium/allocator.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/mesh_config.hpp"
#include "tt-metalium/system_mesh.hpp"
#include "tt-metalium/tt_align.hpp"
#include "tt-metalium/util.hpp"
#include "tt-metalium/work_split.hpp"
#include "umd/device/types/xy_pair.hpp"

using namespace tt;
using namespace tt::tt_metal;

namespace {

TEST(HostSpellingsTest, FmtFormatsCoreTypesEnumsAndContainersAsMetaliumDoes) {
  const CoreCoord c{1, 2};
  const CoreRange r({0, 0}, {3, 1});
  const CoreRangeSet s({CoreRange({0, 0}, {1, 1}), CoreRange({4, 0})});
  EXPECT_EQ(fmt::format("{}", c), "(x=1,y=2)");
  EXPECT_EQ(fmt::format("{}", r), "[(x=0,y=0) - (x=3,y=1)]");
  EXPECT_EQ(fmt::format("{}", s), "{[(x=0,y=0) - (x=1,y=1)], [(x=4,y=0) - (x=4,y=0)]}");
  EXPECT_EQ(fmt::format("{}", tt::DataFormat::Float16_b), "Float16_b");
  EXPECT_EQ(fmt::format("{}", TensorMemoryLayout::INTERLEAVED), "INTERLEAVED");
  EXPECT_EQ(fmt::format("{} {}", std::vector<uint32_t>{1, 2, 3}, std::optional<int>{}), "{1, 2, 3} std::nullopt");
  EXPECT_EQ(fmt::format("{:>6.2f}|{:#x}", 3.14159, 255u), "  3.14|0xff");
}

TEST(HostSpellingsTest, LogCallsPrintTheirLevelTypeAndFormattedMessage) {
  testing::internal::CaptureStdout();
  log_info(tt::LogTest, "core {} has {} tiles", CoreCoord{2, 3}, 7);
  log_info("plain {}", 1);
  log_warning(tt::LogVerif, "w");
  log_debug(tt::LogTest, "debug lines are off by default");
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "[info] [Test] core (x=2,y=3) has 7 tiles\n[info] [Always] plain 1\n[warning] [Verif] w\n");
}

TEST(HostSpellingsTest, TtFatalFormatsItsMessageWithFmt) {
  try {
    const uint32_t tiles = 3;
    TT_FATAL(tiles % 2 == 0, "tiles = {} on core {}: expected an even count ({:.1f})", tiles, CoreCoord{1, 0}, 1.25);
    FAIL() << "TT_FATAL did not throw";
  } catch (const tessel::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("TT_FATAL failed: tiles % 2 == 0: tiles = 3 on core (x=1,y=0): expected an even count (1.2)"),
              std::string::npos)
        << what;
  }
  EXPECT_THROW(TT_THROW("bad {}", 1), tessel::Error);
}

TEST(HostSpellingsTest, XyPairIsCoreCoordOrderedAndHashable) {
  static_assert(std::is_same_v<tt_xy_pair, CoreCoord> && std::is_same_v<tt::umd::xy_pair, CoreCoord>);
  const std::set<CoreCoord> ordered = {{1, 0}, {0, 5}, {0, 1}};
  EXPECT_EQ(fmt::format("{}", ordered), "{(x=0,y=1), (x=0,y=5), (x=1,y=0)}");
  const std::unordered_set<CoreCoord> hashed = {{1, 0}, {1, 0}, {0, 1}};
  EXPECT_EQ(hashed.size(), 2u);
  EXPECT_TRUE(CoreCoord(0, 7) < CoreCoord(1, 0));
}

TEST(HostSpellingsTest, CoreRangeHasMetaliumsMembersAndOperations) {
  CoreRange r(CoreCoord{2, 3}, CoreCoord{0, 1});
  EXPECT_EQ(r.start_coord, CoreCoord(0, 1));
  EXPECT_EQ(r.end_coord, CoreCoord(2, 3));
  EXPECT_EQ(r.grid_size(), CoreCoord(3, 3));
  EXPECT_EQ(r.size(), 9u);
  std::vector<CoreCoord> visited;
  for (const CoreCoord& c : CoreRange({0, 0}, {1, 1}))
    visited.push_back(c);
  EXPECT_EQ(visited, (std::vector<CoreCoord>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
  EXPECT_EQ(r.intersection(CoreRange({2, 0}, {5, 1})), CoreRange({2, 1}));
  EXPECT_FALSE(r.intersection(CoreRange({3, 0}, {5, 5})).has_value());
  EXPECT_TRUE(CoreRange({0, 0}, {1, 1}).adjacent(CoreRange({2, 0}, {2, 1})));
  EXPECT_EQ(CoreRange({0, 0}, {1, 1}).merge(CoreRange({2, 0}, {2, 1})), CoreRange({0, 0}, {2, 1}));
  EXPECT_FALSE(CoreRange({0, 0}, {1, 1}).merge(CoreRange({2, 0}, {2, 2})).has_value());
  EXPECT_TRUE(r.contains(CoreRange({1, 1}, {2, 2})));
}

TEST(HostSpellingsTest, CoreRangeSetOperationsKeepTheirCores) {
  const CoreRangeSet a({CoreRange({0, 0}, {1, 1}), CoreRange({2, 0}, {2, 1})});
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a.num_cores(), 6u);
  EXPECT_EQ(a.bounding_box(), CoreRange({0, 0}, {2, 1}));
  EXPECT_EQ(a.merge_ranges(), CoreRangeSet(CoreRange({0, 0}, {2, 1})));
  const CoreRangeSet b = a.subtract(CoreRangeSet(CoreRange({1, 0}, {1, 1})));
  EXPECT_EQ(b.num_cores(), 4u);
  EXPECT_FALSE(b.contains(CoreCoord{1, 0}));
  EXPECT_TRUE(b.contains(CoreCoord{2, 1}));
  EXPECT_EQ(a.intersection(CoreRangeSet(CoreRange({1, 1}, {5, 5}))).num_cores(), 2u);
  EXPECT_EQ(b.merge(CoreRangeSet(CoreRange({1, 0}, {1, 1}))).merge_ranges(), CoreRangeSet(CoreRange({0, 0}, {2, 1})));
  EXPECT_THROW(CoreRangeSet().bounding_box(), tessel::ValidationError);
}

TEST(HostSpellingsTest, NumCoresToCoreRangeSetLaysCoresOutAsMetaliumDoes) {
  const CoreCoord grid{4, 3};
  EXPECT_EQ(num_cores_to_corerangeset(7, grid), CoreRangeSet({CoreRange({0, 0}, {1, 2}), CoreRange({2, 0}, {2, 0})}));
  EXPECT_EQ(num_cores_to_corerangeset(6, grid, true),
            CoreRangeSet({CoreRange({0, 0}, {3, 0}), CoreRange({0, 1}, {1, 1})}));
  EXPECT_EQ(num_cores_to_corerangeset(CoreCoord{2, 1}, 5, grid, true),
            CoreRangeSet({CoreRange({2, 1}, {3, 1}), CoreRange({0, 2}, {2, 2})}));
  EXPECT_EQ(num_cores_to_corerangeset(12, grid).num_cores(), 12u);
  try {
    num_cores_to_corerangeset(13, grid);
    FAIL();
  } catch (const tessel::ValidationError& e) {
    EXPECT_STREQ(e.what(), "num_cores_to_corerangeset: 13 cores from (x=0,y=0) in a 4x3 grid: expected a start "
                           "inside the grid and at most 12 cores");
  }
  EXPECT_EQ(grid_to_cores(5, 2, 3), (std::vector<CoreCoord>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}}));
  EXPECT_EQ(grid_to_cores(3, 2, 3, true), (std::vector<CoreCoord>{{0, 0}, {1, 0}, {0, 1}}));
}

// util.hpp's detail helpers (matmul examples include it) and mesh_config.hpp's MeshDeviceConfig.
TEST(HostSpellingsTest, UtilAndMeshConfigHeadersGiveTheirHelpers) {
  using namespace tt::tt_metal;
  EXPECT_EQ(detail::SizeBytesPerBank(10 * 2048, 2048, 4, 64), 3u * 2048);
  EXPECT_EQ(detail::SizeBytesPerBank(6 * 100, 100, 4, 64), 2u * 128);
  EXPECT_EQ(detail::TileSize(tt::DataFormat::Float16_b), 2048u);
  EXPECT_EQ(detail::GetPreferredNOCForDRAMRead(tt::ARCH::BLACKHOLE), NOC::NOC_0);
  EXPECT_EQ(detail::GetPreferredNOCForDRAMWrite(tt::ARCH::WORMHOLE_B0), NOC::NOC_1);
  EXPECT_THROW(detail::SizeBytesPerBank(100, 64, 4, 64), std::exception);
  const distributed::MeshDeviceConfig config(distributed::MeshShape(1, 2));
  EXPECT_EQ(config.shape, distributed::MeshShape(1, 2));
}

} // namespace

namespace {

TEST(HostSpellingsTest, AllocatorAnswersMemoryQueriesAndAlignRoundsUp) {
  IDevice* device = CreateDevice(0);
  const Allocator& allocator = *device->allocator();
  const CoreCoord grid = device->compute_with_storage_grid_size();
  EXPECT_EQ(allocator.get_num_banks(BufferType::L1), grid.x * grid.y);
  EXPECT_EQ(allocator.get_num_banks(BufferType::DRAM), device->num_dram_channels());
  EXPECT_EQ(allocator.get_alignment(BufferType::L1), 16u);
  EXPECT_EQ(allocator.get_logical_core_from_bank_id(grid.x + 1), CoreCoord(1, 1));
  EXPECT_EQ(allocator.get_bank_ids_from_logical_core(BufferType::L1, {1, 1}), std::vector<uint32_t>{grid.x + 1});
  const Statistics before = allocator.get_statistics(BufferType::L1);
  auto buffer = CreateBuffer(InterleavedBufferConfig{device, 4096 * grid.x * grid.y, 4096, BufferType::L1});
  const Statistics after = allocator.get_statistics(BufferType::L1);
  EXPECT_EQ(after.total_allocated_bytes, before.total_allocated_bytes + 4096);
  EXPECT_EQ(after.total_free_bytes + after.total_allocated_bytes, after.total_allocatable_size_bytes);
  EXPECT_EQ(allocator.get_lowest_occupied_l1_address(0), buffer->address());
  EXPECT_GE(buffer->address(), allocator.get_base_allocator_addr(HalMemType::L1));
  EXPECT_THROW(allocator.get_logical_core_from_bank_id(grid.x * grid.y), tessel::ValidationError);
  EXPECT_THROW(allocator.get_num_banks(BufferType::TRACE), tessel::ValidationError);
  buffer.reset();
  CloseDevice(device);
  static_assert(tt::align(0u, 32u) == 0 && tt::align(1u, 32u) == 32 && tt::align(64ull, 32u) == 64);
}

TEST(HostSpellingsTest, SystemMeshHasTheShapeTesselMeshNames) {
  ::setenv("TESSEL_MESH", "2x4", 1);
  EXPECT_EQ(distributed::SystemMesh::instance().shape(), distributed::MeshShape(2, 4));
  EXPECT_EQ(distributed::SystemMesh::instance().num_devices(), 8u);
  ::unsetenv("TESSEL_MESH");
}

} // namespace
