// TT-Fabric's mesh (2D) send helpers, as TT-Metalium spells them
// (tt::tt_fabric::mesh::experimental; kernels built with FABRIC_2D): each
// sets the header's route to a chip id and its NoC command, then sends the
// payload and the header on the connection.
#pragma once
#include "tt_metal/fabric/hw/inc/linear/api.h"

namespace tt::tt_fabric::mesh::experimental {

// Chips to multicast to around the destination, per direction.
struct MeshMcastRange {
  uint8_t e;
  uint8_t w;
  uint8_t n;
  uint8_t s;
};

template <typename Sender>
void fabric_unicast_noc_unicast_write(tt_l1_ptr Sender* client_interface, volatile PACKET_HEADER_TYPE* packet_header,
                                      uint8_t dst_dev_id, uint16_t dst_mesh_id, uint32_t src_addr, uint32_t size,
                                      NocUnicastCommandHeader cmd, TESSEL_SITE_PARAMS) {
  fabric_set_unicast_route(packet_header, dst_dev_id, dst_mesh_id);
  packet_header->to_noc_unicast_write(cmd, size);
  linear::experimental::detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}
template <typename Sender>
void fabric_unicast_noc_unicast_atomic_inc(tt_l1_ptr Sender* client_interface,
                                           volatile PACKET_HEADER_TYPE* packet_header, uint8_t dst_dev_id,
                                           uint16_t dst_mesh_id, NocUnicastAtomicIncCommandHeader cmd,
                                           TESSEL_SITE_PARAMS) {
  fabric_set_unicast_route(packet_header, dst_dev_id, dst_mesh_id);
  packet_header->to_noc_unicast_atomic_inc(cmd);
  linear::experimental::detail::send(client_interface, packet_header, 0, 0, TESSEL_SITE);
}
template <typename Sender>
void fabric_unicast_noc_fused_unicast_with_atomic_inc(tt_l1_ptr Sender* client_interface,
                                                      volatile PACKET_HEADER_TYPE* packet_header, uint8_t dst_dev_id,
                                                      uint16_t dst_mesh_id, uint32_t src_addr, uint32_t size,
                                                      NocUnicastAtomicIncFusedCommandHeader cmd, TESSEL_SITE_PARAMS) {
  fabric_set_unicast_route(packet_header, dst_dev_id, dst_mesh_id);
  packet_header->to_noc_fused_unicast_write_atomic_inc(cmd, size);
  linear::experimental::detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}
template <typename Sender>
void fabric_multicast_noc_unicast_write(tt_l1_ptr Sender* client_interface,
                                        volatile PACKET_HEADER_TYPE* packet_header, uint8_t dst_dev_id,
                                        uint16_t dst_mesh_id, const MeshMcastRange& ranges, uint32_t src_addr,
                                        uint32_t size, NocUnicastCommandHeader cmd, TESSEL_SITE_PARAMS) {
  fabric_set_mcast_route(packet_header, dst_dev_id, dst_mesh_id, ranges.e, ranges.w, ranges.n, ranges.s);
  packet_header->to_noc_unicast_write(cmd, size);
  linear::experimental::detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}

// Route forms: header i of the route goes to connection i's destination.
inline void fabric_unicast_noc_unicast_write(RoutingPlaneConnectionManager& connection_manager, uint8_t route_id,
                                             uint32_t src_addr, uint32_t size, NocUnicastCommandHeader cmd,
                                             TESSEL_SITE_PARAMS) {
  linear::experimental::fabric_unicast_noc_unicast_write(connection_manager, route_id, src_addr, size, cmd, nullptr,
                                                         TESSEL_SITE);
}
inline void fabric_unicast_noc_unicast_atomic_inc(RoutingPlaneConnectionManager& connection_manager, uint8_t route_id,
                                                  NocUnicastAtomicIncCommandHeader cmd, TESSEL_SITE_PARAMS) {
  linear::experimental::fabric_unicast_noc_unicast_atomic_inc(connection_manager, route_id, cmd, nullptr,
                                                              TESSEL_SITE);
}

} // namespace tt::tt_fabric::mesh::experimental
