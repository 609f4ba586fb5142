// The fabric between a mesh's chips (src/sim/fabric.cpp, src/sim/chip_group.cpp,
// src/runtime/mesh.cpp): packets over 1D lines and rings and the 2D mesh,
// and every check: a route that leaves the mesh or comes back to its sender,
// a packet larger than a channel's slot, a connection used unopened or left
// open, a write the destination chip has not allocated, a deadlock across
// chips. One probe kernel (two builds: 1D and FABRIC_2D) does each by mode.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "fabric_probe.hpp"

namespace tessel::test {
namespace {

TEST(FabricTest, AUnicastWriteAndIncrementCrossThreeHopsOfALine) {
  auto mesh = Mesh::open(mesh_config(1, 4, FabricConfig::Fabric1D));
  std::vector<std::shared_ptr<Buffer>> pages;
  for (uint32_t c = 0; c < 4; ++c)
    pages.push_back(dram_page(*mesh, c));
  auto sender = probe(*mesh, 0, kSend, 3, 1000, pages[3]->address(), 1);
  auto receiver = probe(*mesh, 3, kWait);
  EXPECT_EQ(run(*mesh, {sender.get(), nullptr, nullptr, receiver.get()}), "");
  std::vector<uint32_t> got;
  mesh->device(3).command_queue().enqueue_read_buffer(*pages[3], got);
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(got.at(i), 1000 + i) << "word " << i;
  EXPECT_EQ(mesh->fabric_stats().packets, 2u);
  EXPECT_EQ(mesh->fabric_stats().hops, 6u);
}

TEST(FabricTest, InlineScatterAndFusedWritesLandWhereTheirHeadersSay) {
  auto mesh = Mesh::open(mesh_config(1, 2, FabricConfig::Fabric1D));
  const uint32_t banks = mesh->device(1).dram_banks();
  dram_page(*mesh, 0);
  auto page1 = Buffer::create(mesh->device_ptr(1), {256u * banks, 256, BufferType::DRAM});
  Buffer::create(mesh->device_ptr(0), {256u * banks, 256, BufferType::DRAM}); // lockstep
  auto sender = probe(*mesh, 0, kCommands, 1, 70, uint32_t(page1->address()), 1);
  auto receiver = probe(*mesh, 1, kWait);
  ASSERT_EQ(run(*mesh, {sender.get(), receiver.get()}), "");
  std::vector<uint32_t> got;
  mesh->device(1).command_queue().enqueue_read_buffer(*page1, got);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got.at(i), 70 + i) << "fused write, word " << i;
  EXPECT_EQ(got.at(24), 0xABCD0000u + 70) << "inline write";
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(got.at(32 + i), 70 + i) << "scatter chunk 0, word " << i;
    EXPECT_EQ(got.at(48 + i), 78 + i) << "scatter chunk 1, word " << i;
  }
  EXPECT_EQ(mesh->fabric_stats().packets, 3u);
}

TEST(FabricTest, TheLinearApiHelpersSendAsTheSenderCallsDo) {
  auto mesh = Mesh::open(mesh_config(1, 3, FabricConfig::Fabric1D));
  std::vector<std::shared_ptr<Buffer>> pages;
  for (uint32_t c = 0; c < 3; ++c)
    pages.push_back(dram_page(*mesh, c));
  auto sender = probe(*mesh, 0, kLinearApi, 2, 300, pages[2]->address(), 1);
  auto receiver = probe(*mesh, 2, kWait);
  ASSERT_EQ(run(*mesh, {sender.get(), nullptr, receiver.get()}), "");
  std::vector<uint32_t> got;
  mesh->device(2).command_queue().enqueue_read_buffer(*pages[2], got);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got.at(i), 300 + i) << "word " << i;
  EXPECT_EQ(mesh->fabric_stats().packets, 2u);
}

TEST(FabricTest, ARingWrapsAroundItsEnds) {
  auto mesh = Mesh::open(mesh_config(1, 4, FabricConfig::Fabric1DRing));
  std::vector<std::shared_ptr<Buffer>> pages;
  for (uint32_t c = 0; c < 4; ++c)
    pages.push_back(dram_page(*mesh, c));
  // Chip 3 sends 2 hops East: over the wrap link to chip 0, then chip 1.
  auto sender = probe(*mesh, 3, kSend, 2, 7, pages[1]->address(), 0);
  auto receiver = probe(*mesh, 1, kWait);
  EXPECT_EQ(run(*mesh, {nullptr, receiver.get(), nullptr, sender.get()}), "");
  std::vector<uint32_t> got;
  mesh->device(1).command_queue().enqueue_read_buffer(*pages[1], got);
  EXPECT_EQ(got.at(0), 7u);
}

TEST(FabricTest, ALineHasNoWrapLinkToConnectTo) {
  auto mesh = Mesh::open(mesh_config(1, 4, FabricConfig::Fabric1D));
  Program program;
  std::vector<uint32_t> args;
  try {
    mesh->append_fabric_connection_args(3, 0, 0, program, kCore, args);
    FAIL() << "connected chip 3 to chip 0 on a line";
  } catch (const ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "append_fabric_connection_rt_args: device 0 (0,0) is not a neighbour of device 3 "
                                     "(0,3) under FABRIC_1D: a 1D connection goes to the next chip of a row or column");
  }
  EXPECT_TRUE(args.empty());
  try {
    mesh->append_fabric_connection_args(0, 1, 4, program, kCore, args);
    FAIL() << "used link 4 of 4";
  } catch (const ValidationError& e) {
    // Blackhole meshes have 4 links per side, as TT-Metalium's P150 meshes.
    EXPECT_NE(std::string(e.what()).find("link 4 does not exist; the mesh has 4 link(s) per side"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(args.empty());
}

TEST(FabricTest, ARouteThatLeavesTheMeshNamesTheSenderAndWhereItBroke) {
  auto mesh = Mesh::open(mesh_config(1, 4, FabricConfig::Fabric1D));
  auto page = dram_page(*mesh, 3);
  auto sender = probe(*mesh, 1, kSend, 3, 0, page->address(), 2);
  const std::string error = run(*mesh, {nullptr, sender.get(), nullptr, nullptr});
  EXPECT_NE(error.find("fabric_probe.cpp:"), std::string::npos) << error;
  EXPECT_NE(error.find("device 1: core (0,0) BRISC: send: the packet's route leaves the mesh: 3 hops East from device "
                       "1 (0,1), but device 3 (0,3) is the last device that way under FABRIC_1D"),
            std::string::npos)
      << error;
  // The mesh stays usable.
  auto idle = probe(*mesh, 0, kIdle);
  EXPECT_EQ(run(*mesh, {idle.get(), nullptr, nullptr, nullptr}), "");
}

TEST(FabricTest, ARouteAroundTheWholeRingComesBackToItsSender) {
  auto mesh = Mesh::open(mesh_config(1, 4, FabricConfig::Fabric1DRing));
  auto page = dram_page(*mesh, 0);
  auto sender = probe(*mesh, 0, kSend, 4, 0, page->address(), 1);
  const std::string error = run(*mesh, {sender.get(), nullptr, nullptr, nullptr});
  EXPECT_NE(error.find("send: the packet's route comes back to its sender: 4 hops East around a ring of 4 devices"),
            std::string::npos)
      << error;
}

TEST(FabricTest, APayloadLargerThanAChannelSlotIsRefused) {
  auto mesh = Mesh::open(mesh_config(1, 2, FabricConfig::Fabric1D));
  auto page = dram_page(*mesh, 1);
  auto sender = probe(*mesh, 0, kOversize, 1, 0, page->address(), 1);
  const std::string error = run(*mesh, {sender.get(), nullptr});
  EXPECT_NE(error.find("send_payload_without_header: the packet's payload, 8192 bytes, is larger than a channel "
                       "buffer slot holds (4352 bytes of payload after the header)"),
            std::string::npos)
      << error;
}

TEST(FabricTest, ConnectionsMustBeOpenedAndClosedOnce) {
  auto mesh = Mesh::open(mesh_config(1, 2, FabricConfig::Fabric1D));
  const std::pair<Mode, const char*> cases[] = {
      {kUnopened, "send_payload_flush_blocking_from_address: the fabric connection is not open: call open() before "
                  "sending on it"},
      {kLeftOpen, "kernel ended with 1 fabric connection open (the first opened here): close() every connection "
                  "before returning"},
      {kClosedTwice, "close: the fabric connection is not open (closed twice, or never opened)"},
  };
  for (const auto& [mode, want] : cases) {
    auto sender = probe(*mesh, 0, mode, 1, 0, 0, 1);
    const std::string error = run(*mesh, {sender.get(), nullptr});
    EXPECT_NE(error.find(want), std::string::npos) << "mode " << mode << ": " << error;
    EXPECT_NE(error.find("fabric_probe.cpp:"), std::string::npos) << error;
  }
}

TEST(FabricTest, AWriteTheDestinationChipHasNotAllocatedIsAnError) {
  auto mesh = Mesh::open(mesh_config(1, 2, FabricConfig::Fabric1D));
  auto page = dram_page(*mesh, 1);
  // 1 MiB past the only buffer: nothing is allocated there on device 1.
  auto sender = probe(*mesh, 0, kSendDram, 1, 0, uint32_t(page->address() + (1u << 20)), 1);
  const std::string error = run(*mesh, {sender.get(), nullptr});
  EXPECT_NE(error.find("fabric unicast write"), std::string::npos) << error;
  EXPECT_NE(error.find("device 1 DRAM bank 0"), std::string::npos) << error;
}

TEST(FabricTest, ADeadlockAcrossChipsNamesEveryDevice) {
  auto mesh = Mesh::open(mesh_config(1, 2, FabricConfig::Fabric1D));
  auto a = probe(*mesh, 0, kWait);
  auto b = probe(*mesh, 1, kWait);
  const std::string error = run(*mesh, {a.get(), b.get()});
  EXPECT_NE(error.find("deadlock across 2 devices: no RISC can make progress (2 blocked):"), std::string::npos)
      << error;
  EXPECT_NE(error.find("\n  device 0: core (0,0) BRISC at fabric_probe.cpp:"), std::string::npos) << error;
  EXPECT_NE(error.find("\n  device 1: core (0,0) BRISC at fabric_probe.cpp:"), std::string::npos) << error;
  // Both chips stay usable.
  auto idle0 = probe(*mesh, 0, kIdle), idle1 = probe(*mesh, 1, kIdle);
  EXPECT_EQ(run(*mesh, {idle0.get(), idle1.get()}), "");
}

TEST(FabricTest, The2DFabricRoutesToAChipIdAcrossRowsAndColumns) {
  auto mesh = Mesh::open(mesh_config(2, 2, FabricConfig::Fabric2D));
  std::vector<std::shared_ptr<Buffer>> pages;
  for (uint32_t c = 0; c < 4; ++c)
    pages.push_back(dram_page(*mesh, c));
  auto sender = probe(*mesh, 0, kSend, 0, 42, pages[3]->address(), 1, 3);
  auto receiver = probe(*mesh, 3, kWait);
  EXPECT_EQ(run(*mesh, {sender.get(), nullptr, nullptr, receiver.get()}), "");
  std::vector<uint32_t> got;
  mesh->device(3).command_queue().enqueue_read_buffer(*pages[3], got);
  EXPECT_EQ(got.at(0), 42u);
  EXPECT_EQ(mesh->fabric_stats().hops, 4u); // East then South, twice
}

TEST(FabricTest, TheMeshApiHelpersSendToAChipId) {
  auto mesh = Mesh::open(mesh_config(2, 2, FabricConfig::Fabric2D));
  std::vector<std::shared_ptr<Buffer>> pages;
  for (uint32_t c = 0; c < 4; ++c)
    pages.push_back(dram_page(*mesh, c));
  auto sender = probe(*mesh, 1, kLinearApi, 0, 55, pages[2]->address(), 0, 2);
  auto receiver = probe(*mesh, 2, kWait);
  ASSERT_EQ(run(*mesh, {nullptr, sender.get(), receiver.get(), nullptr}), "");
  std::vector<uint32_t> got;
  mesh->device(2).command_queue().enqueue_read_buffer(*pages[2], got);
  EXPECT_EQ(got.at(0), 55u);
  EXPECT_EQ(mesh->fabric_stats().hops, 4u); // West then South, twice
}

TEST(FabricTest, AHopCountOnThe2DFabricIsRefused) {
  auto mesh = Mesh::open(mesh_config(1, 2, FabricConfig::Fabric1D));
  mesh->set_fabric_config(FabricConfig::Fabric2D);
  auto page = dram_page(*mesh, 1);
  // Built with the 1D header (the mesh was 1D when the probe was made), run on 2D.
  auto sender = probe(*mesh, 0, kIdle);
  (void)sender;
  mesh->set_fabric_config(FabricConfig::Fabric1D);
  auto one_d = probe(*mesh, 0, kSend, 1, 0, page->address(), 1);
  mesh->set_fabric_config(FabricConfig::Fabric2D);
  const std::string error = run(*mesh, {one_d.get(), nullptr});
  EXPECT_NE(error.find("counts hops (to_chip_unicast / to_chip_multicast of a 1D header), but the fabric is "
                       "FABRIC_2D"),
            std::string::npos)
      << error;
}

TEST(FabricTest, TheTraceShowsEachPacketOnItsSenderAndOnEveryLinkItCrossed) {
  const std::string path = testing::TempDir() + "fabric_trace.json";
  {
    MeshConfig c = mesh_config(1, 3, FabricConfig::Fabric1D);
    c.device.trace_path = path;
    c.device.timing = true;
    auto mesh = Mesh::open(c);
    auto page = dram_page(*mesh, 2);
    dram_page(*mesh, 0), dram_page(*mesh, 1);
    auto sender = probe(*mesh, 0, kSend, 2, 9, page->address(), 1);
    auto receiver = probe(*mesh, 2, kWait);
    ASSERT_EQ(run(*mesh, {sender.get(), nullptr, receiver.get()}), "");
  }
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Two packets (the write and the increment), each crossing links East of devices 0 and 1.
  size_t spans = 0;
  for (size_t at = text.find("\"name\":\"fabric packet\""); at != std::string::npos;
       at = text.find("\"name\":\"fabric packet\"", at + 1))
    ++spans;
  EXPECT_EQ(spans, 2u) << text.substr(0, 2000);
  EXPECT_NE(text.find("\"args\":{\"name\":\"link East 0\"}"), std::string::npos);
  size_t link_spans = 0;
  for (size_t at = text.find("{\"name\":\"packet\""); at != std::string::npos;
       at = text.find("{\"name\":\"packet\"", at + 1))
    ++link_spans;
  EXPECT_EQ(link_spans, 4u);
  EXPECT_NE(text.find("\"hops\":2,\"to\":\"device 2\""), std::string::npos);
}

TEST(FabricTest, AMeshTooLargeForOneProcessSaysHowManyFitAndPointsToRanks) {
  MeshConfig c = mesh_config(8, 4, FabricConfig::Fabric1D);
  c.device.grid_x = 0;
  c.device.grid_y = 0;
  try {
    Mesh::open(c);
    FAIL() << "opened 32 full Blackhole chips";
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("a 8x4 mesh needs 32 devices, but one process holds at most 8 blackhole "
                                         "devices of 12x10 worker cores"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("split the mesh over more MPI ranks (mpirun -np N"), std::string::npos);
  }
}

TEST(FabricTest, AKernelOnADeviceWithoutAMeshIsToldSo) {
  auto device = Device::open({"blackhole", 2, 2});
  Program program;
  program.add_circular_buffer(CoreRangeSet(CoreRange(kCore)),
                              CircularBufferConfig(4096, {{0, DataFormat::UInt32}}).set_page_size(0, 4096));
  program.add_semaphore(CoreRangeSet(CoreRange(kCore)), 0);
  KernelHandle k = program.add_kernel_from_source(kProbe, "fabric_probe.cpp", CoreRangeSet(CoreRange(kCore)),
                                                  DataMovementConfig{});
  program.set_runtime_args(k, CoreRangeSet(CoreRange(kCore)), {kLeftOpen, 0, 0, 0, 0, 1, 0, 1, 2, 0});
  try {
    device->command_queue().enqueue_program(program);
    FAIL() << "a fabric connection opened on a lone device";
  } catch (const KernelError& e) {
    EXPECT_NE(std::string(e.what()).find("the fabric is not available: this device is not a chip of a mesh"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace tessel::test
