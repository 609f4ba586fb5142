// The free functions that program a NoC's read command buffer once and then
// issue reads from it, and transaction ids:
//   noc_async_read_one_packet_set_state(src_noc_addr, size)   the node and size
//   noc_async_read_one_packet_with_state(src_local, dst)      read size bytes from
//                                                            (node, src_local)
//   noc_async_read_tile_dram_sharded_set_state<page_size>(bank_base, bank_id)
//                                                            a DRAM bank as the node;
//                                                            returns the base address
//   noc_async_read_tile_dram_sharded_with_state(base, offset, dst)
//                                                            read page_size bytes from
//                                                            (node, base + offset)
//   noc_async_read_set_trid, noc_async_read_tile_dram_sharded_set_trid,
//   noc_async_read_barrier_with_trid, noc_async_write_barrier_with_trid,
//   noc_async_read_tile_dram_sharded_with_state_with_trid
//
// As on silicon the state is the NoC's one read command buffer: both
// set_state calls write it, and each NoC has its own. It lives in the
// kernel's own globals (one per core and RISC, reset before every launch),
// so a with_state call before any set_state on that NoC fails naming the
// call (silicon would reuse whatever the command buffer held). Every read
// goes through noc_async_read and its checks. Transaction ids are accepted
// and ignored: a barrier with an id waits for every read (or write) of the
// RISC, as the Noc object's does (docs/deviations.md). Included by
// tessel/dataflow.h.
#ifndef TESSEL_NOC_READ_STATE_H
#define TESSEL_NOC_READ_STATE_H

namespace tessel_detail {

struct NocReadState {
  uint64_t node = 0; // the NoC address bits above the local address
  uint32_t size_bytes = 0;
  bool set = false;
};
inline NocReadState noc_read_state[2];

inline NocReadState& read_state(uint8_t noc) { return noc_read_state[noc & 1]; }

__attribute__((noinline, cold)) inline void fail_read_state(const char* call, uint8_t noc, const char* file,
                                                            uint32_t line) {
  char message[240];
  __builtin_snprintf(message, sizeof message,
                     "%s: NoC %u's read state was never set in this kernel run (expected "
                     "noc_async_read_one_packet_set_state or noc_async_read_tile_dram_sharded_set_state on NoC %u "
                     "first)",
                     call, uint32_t(noc), uint32_t(noc));
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, file, line);
}

inline void read_with_state(const char* call, uint32_t src_local, uint32_t dst_local, uint8_t noc, const char* file,
                            uint32_t line) {
  const NocReadState& state = read_state(noc);
  if (__builtin_expect(!state.set, 0)) {
    fail_read_state(call, noc, file, line);
    __builtin_unreachable();
  }
  noc_async_read(state.node | src_local, dst_local, state.size_bytes, noc, file, line);
}

} // namespace tessel_detail

template <bool use_vc = false>
inline void noc_async_read_one_packet_set_state(uint64_t src_noc_addr, uint32_t size, const uint32_t vc = 0,
                                                uint8_t noc = noc_index) {
  (void)vc;
  tessel_detail::read_state(noc) = {src_noc_addr & ~uint64_t(NOC_LOCAL_ADDR_MASK), size, true};
}
template <bool inc_num_issued = true, bool use_vc = false>
inline void noc_async_read_one_packet_with_state(uint32_t src_local_l1_addr, uint32_t dst_local_l1_addr,
                                                 const uint32_t vc = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)vc;
  tessel_detail::read_with_state("noc_async_read_one_packet_with_state", src_local_l1_addr, dst_local_l1_addr, noc,
                                 TESSEL_SITE);
}

template <uint32_t page_size, bool use_vc = false>
inline uint32_t noc_async_read_tile_dram_sharded_set_state(uint32_t bank_base_address, uint32_t bank_id = 0,
                                                           const uint32_t vc = 0, uint8_t noc = noc_index,
                                                           TESSEL_SITE_PARAMS) {
  (void)vc;
  const uint64_t bank = get_noc_addr_from_bank_id<true>(bank_id, 0, noc, TESSEL_SITE);
  tessel_detail::read_state(noc) = {bank & ~uint64_t(NOC_LOCAL_ADDR_MASK), page_size, true};
  return bank_base_address; // tessel's banks start at offset 0 (bank_to_dram_offset)
}
inline void noc_async_read_tile_dram_sharded_with_state(uint32_t src_base_addr, uint32_t src_addr, uint32_t dest_addr,
                                                        uint32_t trid = 0, uint8_t noc = noc_index,
                                                        TESSEL_SITE_PARAMS) {
  (void)trid;
  tessel_detail::read_with_state("noc_async_read_tile_dram_sharded_with_state", src_base_addr + src_addr, dest_addr,
                                 noc, TESSEL_SITE);
}
inline void noc_async_read_tile_dram_sharded_with_state_with_trid(uint32_t src_base_addr, uint32_t src_addr,
                                                                  uint32_t dest_addr, uint32_t trid = 0,
                                                                  uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  tessel_detail::read_with_state("noc_async_read_tile_dram_sharded_with_state_with_trid", src_base_addr + src_addr,
                                 dest_addr, noc, TESSEL_SITE);
}

inline void noc_async_read_set_trid(uint32_t trid = 0, uint8_t noc = noc_index) { (void)trid, (void)noc; }
inline void noc_async_read_tile_dram_sharded_set_trid(uint32_t trid = 0, uint8_t noc = noc_index) {
  (void)trid, (void)noc;
}
inline void noc_async_read_barrier_with_trid(uint32_t trid, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  noc_async_read_barrier(noc, TESSEL_SITE);
}
inline void noc_async_write_barrier_with_trid(uint32_t trid, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)trid;
  noc_async_write_barrier(noc, TESSEL_SITE);
}

#endif // TESSEL_NOC_READ_STATE_H
