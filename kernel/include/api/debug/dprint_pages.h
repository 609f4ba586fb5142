// TT-Metalium's debug helpers over DPRINT: print_cb_details(cb) (the CB's
// LocalCBInterface fields, in the kernel's units) in every kernel, and in
// data-movement kernels tt::data_movement::common::print_bf16_pages,
// print_f32_pages, print_u8_pages, print_u16_pages and print_u32_pages
// (npages rows of an L1 range, each prefixed with its page number).
#pragma once
#include "api/debug/dprint.h"
#include "tessel/kernel_common.h"

inline void print_cb_details(uint32_t cb_id) {
  const LocalCBInterface cb = get_local_cb_interface(cb_id);
  DPRINT << "cb_id " << cb_id << ": { "
         << "size: " << uint32_t(cb.fifo_size) << ", "
         << "limit: " << uint32_t(cb.fifo_limit) << ", "
         << "page_size: " << uint32_t(cb.fifo_page_size) << ", "
         << "num_pages: " << uint32_t(cb.fifo_num_pages) << ", "
         << "rd_ptr: " << uint32_t(cb.fifo_rd_ptr) << ", "
         << "wr_ptr: " << uint32_t(cb.fifo_wr_ptr) << " }" << ENDL();
}

#if defined(TESSEL_KERNEL_DATA_MOVEMENT)
namespace tt::data_movement::common {

namespace tessel_pages {
template <typename T, typename Print>
inline void print_pages(uint32_t l1_addr, uint32_t per_page, uint32_t npages, uint32_t start, Print print) {
  const volatile T* p = reinterpret_cast<const volatile T*>(uintptr_t(l1_addr)) + start * per_page;
  for (uint32_t page = 0; page < npages; ++page) {
    DPRINT << start + page << ": ";
    for (uint32_t j = 0; j < per_page; ++j)
      print(*p++);
    DPRINT << ENDL();
  }
}
} // namespace tessel_pages

inline void print_bf16_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages, uint32_t start = 0) {
  tessel_pages::print_pages<uint16_t>(l1_addr, elts_per_page, npages, start,
                                      [](uint16_t v) { DPRINT << BF16(v) << " "; });
}
inline void print_f32_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages, uint32_t start = 0) {
  tessel_pages::print_pages<uint32_t>(l1_addr, elts_per_page, npages, start, [](uint32_t v) {
    float f;
    __builtin_memcpy(&f, &v, 4);
    DPRINT << F32(f) << " ";
  });
}
inline void print_u8_pages(uint32_t l1_addr, uint32_t bytes_per_page, uint32_t npages, uint32_t start = 0) {
  tessel_pages::print_pages<uint8_t>(l1_addr, bytes_per_page, npages, start,
                                     [](uint8_t v) { DPRINT << SETW(2) << HEX() << "0x" << uint32_t(v) << " "; });
  DPRINT << DEC();
}
inline void print_u16_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages, uint32_t start = 0) {
  tessel_pages::print_pages<uint16_t>(l1_addr, elts_per_page, npages, start,
                                      [](uint16_t v) { DPRINT << uint32_t(v) << " "; });
}
inline void print_u32_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages, uint32_t start = 0) {
  tessel_pages::print_pages<uint32_t>(l1_addr, elts_per_page, npages, start, [](uint32_t v) { DPRINT << v << " "; });
}

} // namespace tt::data_movement::common
#endif
