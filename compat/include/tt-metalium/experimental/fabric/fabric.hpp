// TT-Metalium's fabric host API (tt::tt_fabric): the process's fabric config,
// set before a mesh opens, and the runtime arguments a worker's kernel needs
// to connect to its router. The fabric itself: tessel/mesh.hpp,
// docs/multichip.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/data_types.hpp"
#include "tt-metalium/experimental/fabric/fabric_types.hpp"
#include "tt-metalium/kernel_types.hpp"

namespace tt::tt_metal {
class Program;
namespace distributed {
class MeshDevice;
}
} // namespace tt::tt_metal

namespace tt::tt_fabric {

// Sets the fabric meshes opened from now on use (a mesh opened earlier keeps
// its own). Throws tessel::ValidationError for the configs tessel does not
// model (FABRIC_1D_NEIGHBOR_EXCHANGE, the 2D tori, CUSTOM), for a
// TENSIX/UDM/manager mode other than the default, and for a payload size
// outside 1..15232 bytes.
void SetFabricConfig(FabricConfig fabric_config,
                     FabricReliabilityMode reliability_mode = FabricReliabilityMode::STRICT_SYSTEM_HEALTH_SETUP_MODE,
                     std::optional<uint8_t> num_routing_planes = std::nullopt,
                     FabricTensixConfig fabric_tensix_config = FabricTensixConfig::DISABLED,
                     FabricUDMMode fabric_udm_mode = FabricUDMMode::DISABLED,
                     FabricManagerMode fabric_manager = FabricManagerMode::DEFAULT,
                     FabricRouterConfig router_config = FabricRouterConfig{});
FabricConfig GetFabricConfig();
bool is_1d_fabric_config(FabricConfig config);
bool is_2d_fabric_config(FabricConfig config);

// A worker on `worker_core` of chip `src` connects to its router toward the
// neighbour `dst` over link `link_idx`: appends the connection's 3 words
// to worker_args (the kernel reads them with
// WorkerToFabricEdmSender::build_from_args) and adds the two semaphores the
// connection uses to the program. Throws tessel::ValidationError, appending
// nothing, when no mesh with a fabric holds both chips, dst is not src's
// neighbour under the fabric config, or the link does not exist.
void append_fabric_connection_rt_args(const FabricNodeId& src_fabric_node_id, const FabricNodeId& dst_fabric_node_id,
                                      uint32_t link_idx, tt::tt_metal::Program& worker_program,
                                      const tt::tt_metal::CoreCoord& worker_core, std::vector<uint32_t>& worker_args,
                                      CoreType core_type = CoreType::WORKER);
// A RoutingPlaneConnectionManager's arguments for a worker on `worker_core`
// of chip `src`, one connection per node of dst_nodes (toward its first
// hop; at most one per direction): per connection [direction][3 words],
// then under FABRIC_2D [mesh columns][src chip][src mesh] and per
// connection [dst chip][dst mesh]. link indices: none (link 0), one for
// all, or one per connection. The kernel gets API_TYPE_Linear=1 or
// API_TYPE_Mesh=1, and FABRIC_2D=1 under FABRIC_2D, as its defines.
void append_routing_plane_connection_manager_rt_args(const FabricNodeId& src_fabric_node_id,
                                                     const std::vector<FabricNodeId>& dst_nodes,
                                                     const std::vector<uint32_t>& connection_link_indices,
                                                     tt::tt_metal::Program& worker_program,
                                                     tt::tt_metal::KernelHandle& kernel_id,
                                                     const tt::tt_metal::CoreCoord& worker_core,
                                                     std::vector<uint32_t>& worker_args,
                                                     FabricApiType api_type = FabricApiType::Linear,
                                                     CoreType core_type = CoreType::WORKER);

// The link indices a connection from src toward dst may use.
std::vector<uint32_t> get_forwarding_link_indices(const FabricNodeId& src_fabric_node_id,
                                                  const FabricNodeId& dst_fabric_node_id);
// The direction of the first hop from src to dst, if dst is reachable.
std::optional<eth_chan_directions> get_eth_forwarding_direction(FabricNodeId src_fabric_node_id,
                                                                FabricNodeId dst_fabric_node_id);

size_t get_tt_fabric_packet_header_size_bytes();
size_t get_tt_fabric_max_payload_size_bytes();
size_t get_tt_fabric_channel_buffer_size_bytes(); // header + the largest payload

} // namespace tt::tt_fabric
