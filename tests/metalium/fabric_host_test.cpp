// A multi-chip TT-Metalium program as TT-Metalium's distributed fabric examples
// write it: SetFabricConfig before the mesh opens, a global semaphore, one
// program per chip with append_fabric_connection_rt_args after the kernel's
// own arguments, EnqueueMeshWorkload. Each chip increments the other's
// semaphore over the fabric and waits for its own: the chips must run
// together.
#include <gtest/gtest.h>

#include "tt-metalium/distributed.hpp"
#include "tt-metalium/experimental/fabric/fabric.hpp"
#include "tt-metalium/global_semaphore.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/tt_metal.hpp"

namespace {

using namespace tt::tt_metal;

constexpr const char* kFabricWrite = R"(
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/fabric_connection_manager.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"
#include "tt_metal/fabric/hw/inc/tt_fabric_api.h"
#include "tt_metal/fabric/hw/inc/noc_addr.h"

using namespace tt::tt_fabric;

void kernel_main() {
  size_t arg_idx = 0;
  const uint32_t device_id = get_arg_val<uint32_t>(arg_idx++);
  const uint32_t sem_addr = get_arg_val<uint32_t>(arg_idx++);
  const uint32_t worker_x = get_arg_val<uint32_t>(arg_idx++);
  const uint32_t worker_y = get_arg_val<uint32_t>(arg_idx++);
  auto fabric_connection =
      FabricConnectionManager::build_from_args<FabricConnectionManager::BuildFromArgsMode::BUILD_AND_OPEN_CONNECTION>(
          arg_idx);
  const uint64_t sem_noc_addr = safe_get_noc_addr(worker_x, worker_y, sem_addr, 0);
  auto* packet_header = PacketHeaderPool::allocate_header();
  packet_header->to_noc_unicast_atomic_inc(NocUnicastAtomicIncCommandHeader{sem_noc_addr, static_cast<uint32_t>(1)});
  // A copy of the open connection, as TT-Metalium's example takes it.
  WorkerToFabricEdmSender sender =
      device_id == 0 ? fabric_connection.get_forward_connection() : fabric_connection.get_backward_connection();
  sender.wait_for_empty_write_slot();
  fabric_set_unicast_route<false>(packet_header, 1);
  sender.send_payload_flush_blocking_from_address((uint32_t)packet_header, sizeof(PACKET_HEADER_TYPE));
  noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(sem_addr), 1);
  if (fabric_connection.is_logically_connected()) fabric_connection.close();
}
)";

TEST(FabricHostTest, TwoChipsIncrementEachOthersGlobalSemaphore) {
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::FABRIC_1D);
  auto mesh_device = distributed::MeshDevice::create(distributed::MeshDeviceConfig(distributed::MeshShape(1, 2)));
  const CoreCoord core{0, 0};
  const CoreRangeSet cores(CoreRange(core, core));
  GlobalSemaphore semaphore = CreateGlobalSemaphore(*mesh_device, cores, 0, BufferType::L1);
  const CoreCoord worker = mesh_device->worker_core_from_logical_core(core);

  distributed::MeshWorkload workload;
  for (const distributed::MeshCoordinate& coord : distributed::MeshCoordinateRange(mesh_device->shape())) {
    Program program = CreateProgram();
    KernelHandle kernel = CreateKernelFromString(
        program, kFabricWrite, core,
        DataMovementConfig{.processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default});
    std::vector<uint32_t> args = {uint32_t(coord[1]), uint32_t(semaphore.address()), uint32_t(worker.x),
                                  uint32_t(worker.y)};
    const bool forward = coord[1] == 0;
    const distributed::MeshCoordinate peer(0, forward ? 1 : 0);
    args.push_back(forward);
    if (forward)
      tt::tt_fabric::append_fabric_connection_rt_args(mesh_device->get_fabric_node_id(coord),
                                                      mesh_device->get_fabric_node_id(peer), 0, program, core, args);
    args.push_back(!forward);
    if (!forward)
      tt::tt_fabric::append_fabric_connection_rt_args(mesh_device->get_fabric_node_id(coord),
                                                      mesh_device->get_fabric_node_id(peer), 0, program, core, args);
    SetRuntimeArgs(program, kernel, core, args);
    workload.add_program(distributed::MeshCoordinateRange(coord), std::move(program));
  }
  distributed::EnqueueMeshWorkload(mesh_device->mesh_command_queue(), workload, true);
  mesh_device->close();
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::DISABLED);
}

// As TT-Metalium's Wormhole examples write it: worker (0,0) named by its
// virtual NoC coordinates (18,18), ttnn's ccl helpers included, a sender
// default-constructed and assigned a copy of the open connection.
constexpr const char* kVirtualCoords = R"(
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/fabric_connection_manager.hpp"
#include "cpp/ttnn/operations/ccl/common/kernels/minimal_ccl_common.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"
#include "tt_metal/fabric/hw/inc/linear/api.h"

void kernel_main() {
  size_t idx = 0;
  const uint32_t chip = get_arg_val<uint32_t>(idx++);
  const uint32_t sem = get_arg_val<uint32_t>(idx++);
  auto manager = FabricConnectionManager::build_from_args<FabricConnectionManager::BuildFromArgsMode::BUILD_AND_OPEN_CONNECTION>(idx);
  auto* header = PacketHeaderPool::allocate_header();
  header->to_noc_unicast_atomic_inc(tt::tt_fabric::NocUnicastAtomicIncCommandHeader{safe_get_noc_addr(18, 18, sem, 0), 1u});
  tt::tt_fabric::WorkerToFabricEdmSender link;
  link = chip == 0 ? manager.get_forward_connection() : manager.get_backward_connection();
  link.wait_for_empty_write_slot();
  tt::tt_fabric::fabric_set_unicast_route<false>(header, 1);
  link.send_payload_flush_blocking_from_address((uint32_t)header, sizeof(PACKET_HEADER_TYPE));
  noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(sem), 1);
  if (manager.is_logically_connected()) manager.close();
}
)";

TEST(FabricHostTest, WormholeVirtualCoordinatesAndCopiedSendersWorkAsOnSilicon) {
  setenv("TESSEL_ARCH", "wormhole_b0", 1);
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::FABRIC_1D);
  auto mesh_device = distributed::MeshDevice::create(distributed::MeshDeviceConfig(distributed::MeshShape(1, 2)));
  const CoreCoord core{0, 0};
  GlobalSemaphore semaphore = CreateGlobalSemaphore(*mesh_device, CoreRangeSet(CoreRange(core, core)), 0, BufferType::L1);
  distributed::MeshWorkload workload;
  for (const distributed::MeshCoordinate& coord : distributed::MeshCoordinateRange(mesh_device->shape())) {
    Program program = CreateProgram();
    KernelHandle kernel = CreateKernelFromString(program, kVirtualCoords, core, DataMovementConfig{});
    std::vector<uint32_t> args = {uint32_t(coord[1]), uint32_t(semaphore.address())};
    const distributed::MeshCoordinate peer(0, 1 - coord[1]);
    for (bool forward : {true, false}) {
      const bool here = forward == (coord[1] == 0);
      args.push_back(here);
      if (here)
        tt::tt_fabric::append_fabric_connection_rt_args(mesh_device->get_fabric_node_id(coord),
                                                        mesh_device->get_fabric_node_id(peer), 0, program, core, args);
    }
    SetRuntimeArgs(program, kernel, core, args);
    workload.add_program(distributed::MeshCoordinateRange(coord), std::move(program));
  }
  distributed::EnqueueMeshWorkload(mesh_device->mesh_command_queue(), workload, true);
  for (uint32_t c = 0; c < 2; ++c) {
    std::vector<uint32_t> word;
    detail::ReadFromDeviceL1(mesh_device->get_device(distributed::MeshCoordinate(0, c)), core, semaphore.address(), 4,
                             word);
    EXPECT_EQ(word.at(0), 1u) << "chip " << c;
  }
  mesh_device->close();
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::DISABLED);
  unsetenv("TESSEL_ARCH");
}

constexpr const char* kRoutingPlane = R"(
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/routing_plane_connection_manager.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"
#if !defined(API_TYPE_Linear)
#error "append_routing_plane_connection_manager_rt_args adds API_TYPE_Linear"
#endif
#include "tt_metal/fabric/hw/inc/linear/api.h"

using namespace tt::tt_fabric;
using namespace tt::tt_fabric::linear::experimental;

void kernel_main() {
  size_t arg_idx = 0;
  const uint32_t sem_addr = get_arg_val<uint32_t>(arg_idx++);
  const uint32_t connections = get_arg_val<uint32_t>(arg_idx++);
  RoutingPlaneConnectionManager manager;
  open_connections(manager, connections, arg_idx);
  const uint8_t route = PacketHeaderPool::allocate_header_n(connections);
  uint8_t hops[RoutingPlaneConnectionManager::MaxConnections] = {1, 1};
  fabric_unicast_noc_unicast_atomic_inc(
      manager, route, NocUnicastAtomicIncCommandHeader{get_noc_addr(my_x[0], my_y[0], sem_addr), 1}, hops);
  noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(sem_addr), connections);
  close_connections(manager);
}
)";

TEST(FabricHostTest, ARoutingPlaneConnectsToEveryNeighbourOfALine) {
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::FABRIC_1D);
  auto mesh_device = distributed::MeshDevice::create(distributed::MeshDeviceConfig(distributed::MeshShape(1, 3)));
  const CoreCoord core{0, 0};
  GlobalSemaphore semaphore = CreateGlobalSemaphore(*mesh_device, CoreRangeSet(CoreRange(core, core)), 0, BufferType::L1);
  distributed::MeshWorkload workload;
  for (const distributed::MeshCoordinate& coord : distributed::MeshCoordinateRange(mesh_device->shape())) {
    Program program = CreateProgram();
    KernelHandle kernel = CreateKernelFromString(program, kRoutingPlane, core, DataMovementConfig{});
    std::vector<tt::tt_fabric::FabricNodeId> neighbours;
    for (int d : {-1, 1})
      if (int(coord[1]) + d >= 0 && int(coord[1]) + d < 3)
        neighbours.push_back(mesh_device->get_fabric_node_id(distributed::MeshCoordinate(0, coord[1] + d)));
    std::vector<uint32_t> args = {uint32_t(semaphore.address()), uint32_t(neighbours.size())};
    tt::tt_fabric::append_routing_plane_connection_manager_rt_args(mesh_device->get_fabric_node_id(coord), neighbours,
                                                                   {}, program, kernel, core, args);
    SetRuntimeArgs(program, kernel, core, args);
    workload.add_program(distributed::MeshCoordinateRange(coord), std::move(program));
  }
  distributed::EnqueueMeshWorkload(mesh_device->mesh_command_queue(), workload, true);
  for (uint32_t c = 0; c < 3; ++c) {
    std::vector<uint32_t> word;
    detail::ReadFromDeviceL1(mesh_device->get_device(distributed::MeshCoordinate(0, c)), core, semaphore.address(), 4,
                             word);
    EXPECT_EQ(word.at(0), c == 1 ? 2u : 1u) << "chip " << c;
  }
  mesh_device->close();
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::DISABLED);
}

TEST(FabricHostTest, UnmodelledConfigsAndConnectionsWithoutAMeshAreRefused) {
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::DISABLED);
  EXPECT_THROW(tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::FABRIC_2D_TORUS_XY),
               tessel::ValidationError);
  EXPECT_EQ(tt::tt_fabric::GetFabricConfig(), tt::tt_fabric::FabricConfig::DISABLED);
  Program program = CreateProgram();
  std::vector<uint32_t> args;
  try {
    tt::tt_fabric::append_fabric_connection_rt_args(tt::tt_fabric::FabricNodeId(tt::tt_fabric::MeshId{0}, 0),
                                                    tt::tt_fabric::FabricNodeId(tt::tt_fabric::MeshId{0}, 1), 0,
                                                    program, CoreCoord{0, 0}, args);
    FAIL() << "a connection without a mesh";
  } catch (const tessel::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("no mesh of more than one device is open"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(args.empty());
}

} // namespace
