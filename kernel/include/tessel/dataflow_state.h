// TT-Metalium's stateful transfers and transaction-id calls that
// tessel/noc_read_state.h (the read command buffer's one-packet and
// DRAM-sharded forms, reads' transaction ids) leaves out: the write command
// buffer's state, the read state without a size, and the writes' transaction
// ids, over the plain transfers (tessel/dataflow.h).
//
// noc_async_write_one_packet_set_state records, for this kernel and NoC, the
// destination's NoC coordinates and a size; the *_with_state calls then name
// only local addresses. As for reads, the state lives in the kernel (silicon
// keeps it in the NoC's write command buffer) and a *_with_state call with
// none set stops the kernel with an error. Transaction ids tag nothing: a
// barrier by id waits for every transfer of its kind (docs/deviations.md).
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
struct WriteState {
  uint64_t coords = 0; // the destination's NoC coordinates (address bits above the local ones)
  uint32_t size = 0;
  bool set = false;
};
// Per kernel instance (kernel globals are per core and RISC) and NoC.
inline WriteState write_states[2];
inline void set_write_state(uint64_t noc_addr, uint32_t size, uint8_t noc) {
  write_states[noc & 1] = {noc_addr & ~uint64_t(TESSEL_NOC_LOCAL_MASK), size, true};
}
inline const WriteState& write_state_for(uint8_t noc, const char* call, const char* file, uint32_t line) {
  const WriteState& s = write_states[noc & 1];
  if (__builtin_expect(!s.set, 0)) {
    char message[200];
    __builtin_snprintf(message, sizeof message,
                       "%s: no write state on NoC %u: call noc_async_write_one_packet_set_state first (it sets the "
                       "far end's coordinates and the size)",
                       call, noc);
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->fail(k, message, file, line);
  }
  return s;
}
} // namespace tessel_detail

// The read state without a size: noc_async_read_with_state names it.
inline void noc_async_read_set_state(uint64_t src_noc_addr, uint8_t noc = noc_index) {
  tessel_detail::NocReadState& s = tessel_detail::read_state(noc);
  s.node = src_noc_addr & ~uint64_t(TESSEL_NOC_LOCAL_MASK);
  s.set = true;
}
template <bool inc_num_issued = true>
inline void noc_async_read_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr, uint32_t size,
                                      uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  const tessel_detail::NocReadState& s = tessel_detail::read_state(noc);
  if (__builtin_expect(!s.set, 0)) tessel_detail::fail_read_state("noc_async_read_with_state", noc, TESSEL_SITE);
  noc_async_read(s.node | src_local_l1_addr, dst_local_l1_addr, size, noc, TESSEL_SITE);
}
inline void noc_async_read_one_packet_with_state_with_trid(uint32_t src_base_addr, uint32_t src_addr,
                                                           uint32_t dest_addr, uint32_t trid = 0,
                                                           uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  tessel_detail::read_with_state("noc_async_read_one_packet_with_state_with_trid", src_base_addr + src_addr, dest_addr,
                                 noc, TESSEL_SITE);
}

template <bool posted = false>
inline void noc_async_write_one_packet_set_state(uint64_t dst_noc_addr, uint32_t size, uint8_t noc = noc_index,
                                                 uint8_t vc = NOC_UNICAST_WRITE_VC) {
  (void)vc;
  tessel_detail::set_write_state(dst_noc_addr, size, noc);
}
template <bool posted = false>
inline void noc_async_write_one_packet_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr,
                                                  uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  const auto& s = tessel_detail::write_state_for(noc, "noc_async_write_one_packet_with_state", TESSEL_SITE);
  noc_async_write(src_local_l1_addr, s.coords | dst_local_l1_addr, s.size, noc, TESSEL_SITE);
}

inline void noc_async_write_set_trid(uint32_t trid = 0, uint8_t noc = noc_index) { (void)trid, (void)noc; }
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
  tessel_detail::set_write_state(dst_noc_addr, 0, noc);
}
inline void noc_async_write_one_packet_with_trid_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr,
                                                            uint32_t size, uint32_t trid,
                                                            uint8_t cmd_buf = write_cmd_buf, uint8_t noc = noc_index,
                                                            TESSEL_SITE_PARAMS) {
  (void)trid, (void)cmd_buf;
  const auto& s = tessel_detail::write_state_for(noc, "noc_async_write_one_packet_with_trid_with_state", TESSEL_SITE);
  noc_async_write(src_local_l1_addr, s.coords | dst_local_l1_addr, size, noc, TESSEL_SITE);
}
inline void noc_async_write_flushed_with_trid(uint32_t trid, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  noc_async_writes_flushed(noc, TESSEL_SITE);
}

#endif // TESSEL_DATAFLOW_STATE_H
