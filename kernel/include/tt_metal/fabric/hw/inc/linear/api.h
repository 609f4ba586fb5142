// TT-Fabric's linear (1D) send helpers, as TT-Metalium spells them
// (tt::tt_fabric::linear::experimental): each sets the header's route and
// NoC command, then sends the payload and the header on the connection.
#pragma once
#include "tessel/fabric.h"

namespace tt::tt_fabric::linear::experimental {

namespace detail {
template <typename Sender>
inline void send(Sender* s, volatile PACKET_HEADER_TYPE* h, uint32_t src_addr, uint32_t size, const char* file,
                 uint32_t line) {
  s->wait_for_empty_write_slot(file, line);
  if (size) s->send_payload_without_header_non_blocking_from_address(src_addr, size, file, line);
  s->send_payload_flush_non_blocking_from_address(uint32_t(reinterpret_cast<uintptr_t>(h)), sizeof(PACKET_HEADER_TYPE),
                                                  file, line);
}
} // namespace detail

template <typename Sender>
void fabric_unicast_noc_unicast_write(tt_l1_ptr Sender* client_interface, volatile PACKET_HEADER_TYPE* packet_header,
                                      uint32_t src_addr, uint32_t size, NocUnicastCommandHeader cmd, uint8_t num_hops,
                                      TESSEL_SITE_PARAMS) {
  packet_header->to_chip_unicast(num_hops);
  packet_header->to_noc_unicast_write(cmd, size);
  detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}
template <typename Sender>
void fabric_unicast_noc_unicast_atomic_inc(tt_l1_ptr Sender* client_interface, volatile PACKET_HEADER_TYPE* packet_header,
                                           NocUnicastAtomicIncCommandHeader cmd, uint8_t num_hops, TESSEL_SITE_PARAMS) {
  packet_header->to_chip_unicast(num_hops);
  packet_header->to_noc_unicast_atomic_inc(cmd);
  detail::send(client_interface, packet_header, 0, 0, TESSEL_SITE);
}
template <typename Sender>
void fabric_unicast_noc_unicast_inline_write(tt_l1_ptr Sender* client_interface,
                                             volatile PACKET_HEADER_TYPE* packet_header,
                                             NocUnicastInlineWriteCommandHeader cmd, uint8_t num_hops,
                                             TESSEL_SITE_PARAMS) {
  packet_header->to_chip_unicast(num_hops);
  packet_header->to_noc_unicast_inline_write(cmd);
  detail::send(client_interface, packet_header, 0, 0, TESSEL_SITE);
}
template <typename Sender>
void fabric_unicast_noc_fused_unicast_with_atomic_inc(tt_l1_ptr Sender* client_interface,
                                                      volatile PACKET_HEADER_TYPE* packet_header, uint32_t src_addr,
                                                      uint32_t size, NocUnicastAtomicIncFusedCommandHeader cmd,
                                                      uint8_t num_hops, TESSEL_SITE_PARAMS) {
  packet_header->to_chip_unicast(num_hops);
  packet_header->to_noc_fused_unicast_write_atomic_inc(cmd, size);
  detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}
template <typename Sender>
void fabric_unicast_noc_scatter_write(tt_l1_ptr Sender* client_interface, volatile PACKET_HEADER_TYPE* packet_header,
                                      uint32_t src_addr, uint32_t size, NocUnicastScatterCommandHeader cmd,
                                      uint8_t num_hops, TESSEL_SITE_PARAMS) {
  packet_header->to_chip_unicast(num_hops);
  packet_header->to_noc_unicast_scatter_write(cmd, size);
  detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}
template <typename Sender>
void fabric_multicast_noc_unicast_write(tt_l1_ptr Sender* client_interface, volatile PACKET_HEADER_TYPE* packet_header,
                                        uint32_t src_addr, uint32_t size, NocUnicastCommandHeader cmd,
                                        uint8_t start_distance, uint8_t range, TESSEL_SITE_PARAMS) {
  packet_header->to_chip_multicast(MulticastRoutingCommandHeader{start_distance, range});
  packet_header->to_noc_unicast_write(cmd, size);
  detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}
template <typename Sender>
void fabric_multicast_noc_unicast_atomic_inc(tt_l1_ptr Sender* client_interface,
                                             volatile PACKET_HEADER_TYPE* packet_header,
                                             NocUnicastAtomicIncCommandHeader cmd, uint8_t start_distance,
                                             uint8_t range, TESSEL_SITE_PARAMS) {
  packet_header->to_chip_multicast(MulticastRoutingCommandHeader{start_distance, range});
  packet_header->to_noc_unicast_atomic_inc(cmd);
  detail::send(client_interface, packet_header, 0, 0, TESSEL_SITE);
}
template <typename Sender>
void fabric_multicast_noc_fused_unicast_with_atomic_inc(tt_l1_ptr Sender* client_interface,
                                                        volatile PACKET_HEADER_TYPE* packet_header, uint32_t src_addr,
                                                        uint32_t size, NocUnicastAtomicIncFusedCommandHeader cmd,
                                                        uint8_t start_distance, uint8_t range, TESSEL_SITE_PARAMS) {
  packet_header->to_chip_multicast(MulticastRoutingCommandHeader{start_distance, range});
  packet_header->to_noc_fused_unicast_write_atomic_inc(cmd, size);
  detail::send(client_interface, packet_header, src_addr, size, TESSEL_SITE);
}

// ---- Route forms: a header per connection of a RoutingPlaneConnectionManager ----

inline void open_connections(RoutingPlaneConnectionManager& connection_manager, uint32_t num_connections_to_build,
                             size_t& rt_arg_idx, TESSEL_SITE_PARAMS) {
  connection_manager =
      RoutingPlaneConnectionManager::build_from_args<FabricConnectionManager::BUILD_AND_OPEN_CONNECTION>(
          rt_arg_idx, num_connections_to_build, TESSEL_SITE);
}
inline void close_connections(RoutingPlaneConnectionManager& connection_manager, TESSEL_SITE_PARAMS) {
  connection_manager.close(TESSEL_SITE);
}

namespace detail {
// Header i of the route goes on connection i: its hops, or under FABRIC_2D the slot's destination.
inline void route_to(RoutingPlaneConnectionManager& m, volatile PACKET_HEADER_TYPE* h, uint8_t i, uint8_t hops) {
#if defined(FABRIC_2D)
  (void)hops;
  fabric_set_unicast_route(h, m.get(i).dst_dev_id, m.get(i).dst_mesh_id);
#else
  (void)m, (void)i;
  h->to_chip_unicast(hops);
#endif
}
} // namespace detail

inline void fabric_unicast_noc_unicast_write(RoutingPlaneConnectionManager& connection_manager, uint8_t route_id,
                                             uint32_t src_addr, uint32_t size, NocUnicastCommandHeader cmd,
                                             uint8_t* num_hops, TESSEL_SITE_PARAMS) {
  PacketHeaderPool::for_each_header(route_id, [&](volatile PACKET_HEADER_TYPE* h, uint8_t i) {
    detail::route_to(connection_manager, h, i, num_hops ? num_hops[i] : 1);
    h->to_noc_unicast_write(cmd, size);
    detail::send(&connection_manager.get(i).sender, h, src_addr, size, TESSEL_SITE);
  });
}
inline void fabric_unicast_noc_unicast_atomic_inc(RoutingPlaneConnectionManager& connection_manager,
                                                  uint8_t route_id, NocUnicastAtomicIncCommandHeader cmd,
                                                  uint8_t* num_hops, TESSEL_SITE_PARAMS) {
  PacketHeaderPool::for_each_header(route_id, [&](volatile PACKET_HEADER_TYPE* h, uint8_t i) {
    detail::route_to(connection_manager, h, i, num_hops ? num_hops[i] : 1);
    h->to_noc_unicast_atomic_inc(cmd);
    detail::send(&connection_manager.get(i).sender, h, 0, 0, TESSEL_SITE);
  });
}
inline void fabric_multicast_noc_unicast_write(RoutingPlaneConnectionManager& connection_manager, uint8_t route_id,
                                               uint32_t src_addr, uint32_t size, NocUnicastCommandHeader cmd,
                                               uint8_t* start_distance, uint8_t* range, TESSEL_SITE_PARAMS) {
  PacketHeaderPool::for_each_header(route_id, [&](volatile PACKET_HEADER_TYPE* h, uint8_t i) {
    h->to_chip_multicast(MulticastRoutingCommandHeader{start_distance[i], range[i]});
    h->to_noc_unicast_write(cmd, size);
    detail::send(&connection_manager.get(i).sender, h, src_addr, size, TESSEL_SITE);
  });
}

} // namespace tt::tt_fabric::linear::experimental
