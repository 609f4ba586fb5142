// TT-Metalium's stateful one-packet transfers and transaction ids, over the
// plain transfers (tessel/dataflow.h).
//
// A *_set_state call records, for this kernel and NoC, the far end's NoC
// coordinates (and a size); the *_with_state calls then name only the local
// addresses. tessel keeps that state in the kernel (silicon keeps it in the
// NoC's command buffer, which other calls of the same kernel may overwrite:
// interleave only what Metalium allows). A *_with_state call with no state
// set stops the kernel with an error.
//
// Transaction ids: reads and writes may be tagged (noc_async_read_set_trid,
// the *_with_trid calls) and waited for by id. tessel's barriers by id wait
// for every transfer of the kind on that NoC, so a kernel that waits for one
// id and then reads data moved under another is not reported
// (docs/deviations.md).
#ifndef TESSEL_DATAFLOW_STATE_H
#define TESSEL_DATAFLOW_STATE_H

#include "tessel/dataflow.h"

#ifndef NOC_UNICAST_WRITE_VC
#define NOC_UNICAST_WRITE_VC 1
#endif

// Command buffers: silicon's transfer queues. tessel has one queue per NoC;
// the values only satisfy the calls that take one.
constexpr uint32_t read_cmd_buf = 1;
constexpr uint32_t write_cmd_buf = 0;
constexpr uint32_t write_reg_cmd_buf = 2;
constexpr uint32_t write_at_cmd_buf = 3;

namespace tessel_detail {
struct TransferState {
  uint64_t coords = 0; // the far end's NoC coordinates (address bits above the local ones)
  uint32_t size = 0;
  bool set = false;
};
// Per kernel instance (kernel globals are per core and RISC) and NoC.
inline TransferState& transfer_state(bool write, uint8_t noc) {
  static TransferState states[2][2];
  return states[write ? 1 : 0][noc & 1];
}
inline void set_transfer_state(bool write, uint64_t noc_addr, uint32_t size, uint8_t noc) {
  TransferState& s = transfer_state(write, noc);
  s.coords = noc_addr & ~uint64_t(TESSEL_NOC_LOCAL_MASK);
  s.size = size;
  s.set = true;
}
inline const TransferState& state_for(bool write, uint8_t noc, const char* call, const char* file, uint32_t line) {
  const TransferState& s = transfer_state(write, noc);
  if (__builtin_expect(!s.set, 0)) {
    char message[200];
    __builtin_snprintf(
        message, sizeof message, "%s: no %s state on NoC %u: call %s first (it sets the far end's coordinates%s)", call,
        write ? "write" : "read", noc,
        write ? "noc_async_write_one_packet_set_state" : "noc_async_read_one_packet_set_state", " and the size");
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->fail(k, message, file, line);
  }
  return s;
}
} // namespace tessel_detail

template <bool use_vc = false>
inline void noc_async_read_one_packet_set_state(uint64_t src_noc_addr, uint32_t size, const uint32_t vc = 0,
                                                uint8_t noc = noc_index) {
  (void)vc;
  tessel_detail::set_transfer_state(false, src_noc_addr, size, noc);
}
template <bool inc_num_issued = true, bool use_vc = false>
inline void noc_async_read_one_packet_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr,
                                                 const uint32_t vc = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)vc;
  const auto& s = tessel_detail::state_for(false, noc, "noc_async_read_one_packet_with_state", TESSEL_SITE);
  noc_async_read(s.coords | src_local_l1_addr, dst_local_l1_addr, s.size, noc, TESSEL_SITE);
}
inline void noc_async_read_set_state(uint64_t src_noc_addr, uint8_t noc = noc_index) {
  tessel_detail::set_transfer_state(false, src_noc_addr, 0, noc);
}
template <bool inc_num_issued = true>
inline void noc_async_read_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr, uint32_t size,
                                      uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  const auto& s = tessel_detail::state_for(false, noc, "noc_async_read_with_state", TESSEL_SITE);
  noc_async_read(s.coords | src_local_l1_addr, dst_local_l1_addr, size, noc, TESSEL_SITE);
}
template <bool posted = false>
inline void noc_async_write_one_packet_set_state(uint64_t dst_noc_addr, uint32_t size, uint8_t noc = noc_index,
                                                 uint8_t vc = NOC_UNICAST_WRITE_VC) {
  (void)vc;
  tessel_detail::set_transfer_state(true, dst_noc_addr, size, noc);
}
template <bool posted = false>
inline void noc_async_write_one_packet_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr,
                                                  uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  const auto& s = tessel_detail::state_for(true, noc, "noc_async_write_one_packet_with_state", TESSEL_SITE);
  noc_async_write(src_local_l1_addr, s.coords | dst_local_l1_addr, s.size, noc, TESSEL_SITE);
}

// Transaction ids.
inline void noc_async_read_set_trid(uint32_t trid = 0, uint8_t noc = noc_index) { (void)trid, (void)noc; }
inline void noc_async_write_set_trid(uint32_t trid = 0, uint8_t noc = noc_index) { (void)trid, (void)noc; }
inline void noc_async_read_one_packet_with_state_with_trid(uint32_t src_base_addr, uint32_t src_addr,
                                                           uint32_t dest_addr, uint32_t trid = 0,
                                                           uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  const auto& s = tessel_detail::state_for(false, noc, "noc_async_read_one_packet_with_state_with_trid", TESSEL_SITE);
  noc_async_read(s.coords | (src_base_addr + src_addr), dest_addr, s.size, noc, TESSEL_SITE);
}
inline void noc_async_read_barrier_with_trid(uint32_t trid, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  noc_async_read_barrier(noc, TESSEL_SITE);
}
inline void noc_async_write_one_packet_with_trid(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size,
                                                 uint32_t trid, uint8_t cmd_buf = write_cmd_buf,
                                                 uint8_t noc = noc_index, uint8_t vc = NOC_UNICAST_WRITE_VC,
                                                 TESSEL_SITE_PARAMS) {
  (void)trid, (void)cmd_buf, (void)vc;
  noc_async_write(src_local_l1_addr, dst_noc_addr, size, noc, TESSEL_SITE);
}
inline void noc_async_write_one_packet_with_trid_set_state(uint64_t dst_noc_addr, uint8_t cmd_buf = write_cmd_buf,
                                                           uint8_t noc = noc_index, uint8_t vc = NOC_UNICAST_WRITE_VC) {
  (void)cmd_buf, (void)vc;
  tessel_detail::set_transfer_state(true, dst_noc_addr, 0, noc);
}
inline void noc_async_write_one_packet_with_trid_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr,
                                                            uint32_t size, uint32_t trid,
                                                            uint8_t cmd_buf = write_cmd_buf, uint8_t noc = noc_index,
                                                            TESSEL_SITE_PARAMS) {
  (void)trid, (void)cmd_buf;
  const auto& s = tessel_detail::state_for(true, noc, "noc_async_write_one_packet_with_trid_with_state", TESSEL_SITE);
  noc_async_write(src_local_l1_addr, s.coords | dst_local_l1_addr, size, noc, TESSEL_SITE);
}
inline void noc_async_write_barrier_with_trid(uint32_t trid, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  noc_async_write_barrier(noc, TESSEL_SITE);
}
inline void noc_async_write_flushed_with_trid(uint32_t trid, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  noc_async_writes_flushed(noc, TESSEL_SITE);
}

#endif // TESSEL_DATAFLOW_STATE_H
