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

} // namespace tt::tt_fabric::linear::experimental
