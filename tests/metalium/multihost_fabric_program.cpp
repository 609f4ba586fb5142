// A TT-Metalium multi-host ("Big-Mesh") program, as tt-metal's own are
// written: the distributed context, the fabric config, one MeshDevice over
// the whole system mesh, a global semaphore, one program per chip this
// process holds, EnqueueMeshWorkload. ctest runs it alone and under mpirun
// with 2 and 4 ranks (tests/metalium/CMakeLists.txt).
//
// Along a 1x4 line, chip i increments chip i+1's semaphore over the fabric
// and chip i+1 waits for it: every hop crosses from one rank to the next
// when the mesh is split. Then each rank checks its chips' semaphores from
// the host, and the ranks agree on the verdict with an all-reduce.
#include <cstdio>

#include "tt-metalium/distributed.hpp"
#include "tt-metalium/distributed_context.hpp"
#include "tt-metalium/experimental/fabric/fabric.hpp"
#include "tt-metalium/global_semaphore.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/system_mesh.hpp"
#include "tt-metalium/tt_metal.hpp"

using namespace tt::tt_metal;
using tt::tt_metal::distributed::multihost::DistributedContext;
using tt::tt_metal::distributed::multihost::ReduceOp;

namespace {

constexpr const char* kNextChip = R"(
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/fabric_connection_manager.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"
#include "tt_metal/fabric/hw/inc/tt_fabric_api.h"

void kernel_main() {
  size_t arg_idx = 0;
  const uint32_t sem_addr = get_arg_val<uint32_t>(arg_idx++);
  const uint32_t wait_for = get_arg_val<uint32_t>(arg_idx++);
  auto fabric = FabricConnectionManager::build_from_args<FabricConnectionManager::BUILD_AND_OPEN_CONNECTION>(arg_idx);
  if (fabric.has_forward_connection()) {
    auto* header = PacketHeaderPool::allocate_header();
    header->to_noc_unicast_atomic_inc(
        tt::tt_fabric::NocUnicastAtomicIncCommandHeader{get_noc_addr(my_x[0], my_y[0], sem_addr), 1});
    tt::tt_fabric::fabric_set_unicast_route<false>(header, 1);
    auto& sender = fabric.get_forward_connection();
    sender.wait_for_empty_write_slot();
    sender.send_payload_flush_blocking_from_address((uint32_t)header, sizeof(PACKET_HEADER_TYPE));
  }
  if (wait_for) noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(sem_addr), wait_for);
  if (fabric.is_logically_connected()) fabric.close();
}
)";

} // namespace

int main(int argc, char** argv) {
  DistributedContext::create(argc, argv);
  const auto& world = DistributedContext::get_current_world();
  tt::tt_fabric::SetFabricConfig(tt::tt_fabric::FabricConfig::FABRIC_1D);
  auto mesh_device = distributed::MeshDevice::create(distributed::MeshDeviceConfig(distributed::MeshShape(1, 4)));
  const CoreCoord core{0, 0};
  GlobalSemaphore semaphore = CreateGlobalSemaphore(*mesh_device, CoreRangeSet(CoreRange(core, core)), 0, BufferType::L1);

  distributed::MeshWorkload workload;
  int local = 0;
  for (const distributed::MeshCoordinate& coord : distributed::MeshCoordinateRange(mesh_device->shape())) {
    if (!mesh_device->is_local(coord)) continue;
    ++local;
    Program program = CreateProgram();
    KernelHandle kernel = CreateKernelFromString(program, kNextChip, core, DataMovementConfig{});
    std::vector<uint32_t> args = {uint32_t(semaphore.address()), coord[1] > 0 ? 1u : 0u};
    const bool forward = coord[1] < 3;
    args.push_back(forward);
    if (forward)
      tt::tt_fabric::append_fabric_connection_rt_args(
          mesh_device->get_fabric_node_id(coord),
          mesh_device->get_fabric_node_id(distributed::MeshCoordinate(0, coord[1] + 1)), 0, program, core, args);
    args.push_back(0);
    SetRuntimeArgs(program, kernel, core, args);
    workload.add_program(distributed::MeshCoordinateRange(coord), std::move(program));
  }
  distributed::EnqueueMeshWorkload(mesh_device->mesh_command_queue(), workload, true);

  // Each chip but the first got one increment: read back this rank's semaphores.
  int wrong = 0;
  for (const distributed::MeshCoordinate& coord : distributed::MeshCoordinateRange(mesh_device->shape())) {
    if (!mesh_device->is_local(coord)) continue;
    const uint32_t want = coord[1] > 0 ? 1 : 0;
    std::vector<uint32_t> l1(4);
    detail::ReadFromDeviceL1(mesh_device->get_device(coord), core, semaphore.address(), 16, l1);
    wrong += l1[0] != want;
  }
  int total = 0;
  world->all_reduce(tt::stl::Span<int>(&wrong, 1), tt::stl::Span<int>(&total, 1), ReduceOp::SUM);
  const auto local_shape = distributed::SystemMesh::instance().local_shape();
  if (*world->rank() == 0)
    std::printf("multihost fabric: %s over %d rank(s), %d chips each (system mesh %s, local %s)\n",
                total == 0 ? "PASSED" : "FAILED", *world->size(), local,
                distributed::SystemMesh::instance().shape().str().c_str(), local_shape.str().c_str());
  mesh_device->close();
  world->barrier();
  return total == 0 ? 0 : 1;
}
