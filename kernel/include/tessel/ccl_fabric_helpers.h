// The fabric send helpers ttnn's collective kernels share (their
// minimal_ccl_common.hpp), over tessel/fabric.h: a payload and its header on
// a connection; a page written here and to the chips forward and backward;
// the same with an atomic increment fused in. The address-generator and
// fabric-mux forms are not modelled (docs/multichip.md).
#pragma once

#include <utility>

#include "tessel/fabric.h"

// The chip-local coordinates and address of a NoC address.
struct TesselNocXY {
  uint32_t x, y;
};
inline std::pair<TesselNocXY, uint32_t> get_noc_address_components(uint64_t noc_addr) {
  return {{uint32_t((noc_addr >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK),
           uint32_t((noc_addr >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK)},
          uint32_t(noc_addr & TESSEL_NOC_LOCAL_MASK)};
}

// The payload at l1_read_addr, then its header, on `connection`.
template <bool blocking = false>
inline void perform_payload_send(tt::tt_fabric::WorkerToFabricEdmSender& connection, size_t l1_read_addr,
                                 uint32_t payload_size_bytes, volatile PACKET_HEADER_TYPE* pkt_hdr,
                                 TESSEL_SITE_PARAMS) {
  connection.wait_for_empty_write_slot(TESSEL_SITE);
  connection.send_payload_without_header_non_blocking_from_address(uint32_t(l1_read_addr), payload_size_bytes,
                                                                   TESSEL_SITE);
  connection.send_payload_flush_blocking_from_address(uint32_t(reinterpret_cast<uintptr_t>(pkt_hdr)),
                                                      sizeof(PACKET_HEADER_TYPE), TESSEL_SITE);
}

// A unicast write of the payload to noc0_dest_noc_addr on the chip(s) the header routes to.
inline void fabric_write_unidir(uint64_t noc0_dest_noc_addr, volatile PACKET_HEADER_TYPE* pkt_hdr,
                                tt::tt_fabric::WorkerToFabricEdmSender& connection, size_t l1_read_addr,
                                uint32_t payload_size_bytes, TESSEL_SITE_PARAMS) {
  pkt_hdr->to_noc_unicast_write(tt::tt_fabric::NocUnicastCommandHeader{noc0_dest_noc_addr}, payload_size_bytes);
  perform_payload_send(connection, l1_read_addr, payload_size_bytes, pkt_hdr, TESSEL_SITE);
  noc_async_writes_flushed(noc_index, TESSEL_SITE);
}

// The payload written to noc0_dest_noc_addr on this chip and, through each
// connection the manager has, on the chips its headers route to; then
// l1_read_addr moves past it.
namespace tessel_detail {
// The payload written at noc0_dest_noc_addr on this chip, then set(header)
// and a send through each connection the manager has.
template <typename SetCommand>
inline void write_here_and_both_ways(uint64_t noc0_dest_noc_addr, volatile PACKET_HEADER_TYPE* pkt_hdr_forward,
                                     volatile PACKET_HEADER_TYPE* pkt_hdr_backward,
                                     FabricConnectionManager& fabric_connection, size_t l1_read_addr,
                                     uint32_t payload_size_bytes, SetCommand&& set, const char* file, uint32_t line) {
  const auto [xy, local] = get_noc_address_components(noc0_dest_noc_addr);
  noc_async_write(uint32_t(l1_read_addr), get_noc_addr(xy.x, xy.y, local), payload_size_bytes, noc_index, file, line);
  if (fabric_connection.has_forward_connection()) {
    set(pkt_hdr_forward);
    perform_payload_send(fabric_connection.get_forward_connection(file, line), l1_read_addr, payload_size_bytes,
                         pkt_hdr_forward, file, line);
  }
  if (fabric_connection.has_backward_connection()) {
    set(pkt_hdr_backward);
    perform_payload_send(fabric_connection.get_backward_connection(file, line), l1_read_addr, payload_size_bytes,
                         pkt_hdr_backward, file, line);
  }
}
} // namespace tessel_detail

// The payload written to noc0_dest_noc_addr on this chip and, through each
// connection the manager has, on the chips its headers route to; then
// l1_read_addr moves past it.
inline void write_and_advance_local_read_address_for_fabric_write(
    uint64_t noc0_dest_noc_addr, volatile PACKET_HEADER_TYPE* pkt_hdr_forward,
    volatile PACKET_HEADER_TYPE* pkt_hdr_backward, FabricConnectionManager& fabric_connection, size_t& l1_read_addr,
    uint32_t payload_size_bytes, TESSEL_SITE_PARAMS) {
  tessel_detail::write_here_and_both_ways(
      noc0_dest_noc_addr, pkt_hdr_forward, pkt_hdr_backward, fabric_connection, l1_read_addr, payload_size_bytes,
      [&](volatile PACKET_HEADER_TYPE* h) {
        h->to_noc_unicast_write(tt::tt_fabric::NocUnicastCommandHeader{noc0_dest_noc_addr}, payload_size_bytes);
      },
      TESSEL_SITE);
  noc_async_writes_flushed(noc_index, TESSEL_SITE);
  l1_read_addr += payload_size_bytes;
}

// As write_and_advance_local_read_address_for_fabric_write, each remote write
// fused with an increment of `val` at semaphore_noc_addr.
inline void fused_write_atomic_and_advance_local_read_address_for_fabric_write(
    uint64_t noc0_dest_noc_addr, volatile PACKET_HEADER_TYPE* pkt_hdr_forward,
    volatile PACKET_HEADER_TYPE* pkt_hdr_backward, FabricConnectionManager& fabric_connection, size_t& l1_read_addr,
    uint32_t payload_size_bytes, uint64_t semaphore_noc_addr, const uint16_t val, const bool flush,
    TESSEL_SITE_PARAMS) {
  tessel_detail::write_here_and_both_ways(
      noc0_dest_noc_addr, pkt_hdr_forward, pkt_hdr_backward, fabric_connection, l1_read_addr, payload_size_bytes,
      [&](volatile PACKET_HEADER_TYPE* h) {
        h->to_noc_fused_unicast_write_atomic_inc(
            tt::tt_fabric::NocUnicastAtomicIncFusedCommandHeader{noc0_dest_noc_addr, semaphore_noc_addr, val, flush},
            payload_size_bytes);
      },
      TESSEL_SITE);
  l1_read_addr += payload_size_bytes;
}
