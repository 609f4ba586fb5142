// get_local_cb_interface(cb): TT-Metalium's LocalCBInterface of a circular
// buffer, as a view over tessel's CB state (tessel_cb_iface, shared by the
// core's RISCs).
//
// Units are Metalium's: bytes in data-movement kernels; 16-byte words
// (addresses and sizes shifted right by CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT)
// in compute kernels, as the TRISCs hold them.
//
//   field             read                              write
//   fifo_rd_ptr       the consumer's pointer            moves it (inside the CB)
//   fifo_wr_ptr       the producer's pointer            moves it (inside the CB)
//   fifo_size         the CB's size                     error
//   fifo_limit        its end (start + size)            error
//   fifo_page_size    its page size                     error
//   fifo_num_pages    its page count                    error
//   tiles_received    pages pushed, mod 2^16            error
//   tiles_acked       pages popped, mod 2^16            error
//   fifo_wr_tile_ptr  error (the packer's position is the simulator's)
//
// A pointer write is what silicon does (the next push, pop, pack or unpack
// works from there), kept inside the CB's memory [start, limit]: tessel's
// checks of the CB protocol need the pointers there. The other fields are
// the program's configuration and the counters the CB calls keep; a kernel
// that writes them fails naming the call (docs/deviations.md).
//
// get_local_cb_interface returns a reference to the kernel's view of that CB
// (`LocalCBInterface& cb = get_local_cb_interface(id);`), re-pointed at each
// call; each field reports the line of the latest call for its CB.
#ifndef TESSEL_CB_INTERFACE_H
#define TESSEL_CB_INTERFACE_H

#include "tessel/kernel_abi.h"

constexpr static uint32_t CIRCULAR_BUFFER_COMPUTE_WORD_SIZE = 16;
constexpr static uint32_t CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT = 4;
#if defined(TESSEL_KERNEL_COMPUTE)
constexpr uint32_t cb_addr_shift = CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT;
#else
constexpr uint32_t cb_addr_shift = 0;
#endif

namespace tessel_detail {

enum class CbField : uint8_t {
  FifoSize,
  FifoLimit,
  FifoPageSize,
  FifoNumPages,
  FifoRdPtr,
  FifoWrPtr,
  TilesAcked,
  TilesReceived,
  FifoWrTilePtr
};

constexpr const char* cb_field_name(CbField f) {
  constexpr const char* kNames[] = {"fifo_size",   "fifo_limit",  "fifo_page_size", "fifo_num_pages",  "fifo_rd_ptr",
                                    "fifo_wr_ptr", "tiles_acked", "tiles_received", "fifo_wr_tile_ptr"};
  return kNames[uint32_t(f)];
}

struct CbSite {
  tessel_cb_iface* q;
  uint32_t cb;
  const char* file;
  uint32_t line;
};

[[noreturn]] __attribute__((noinline, cold)) inline void cb_field_fail(const CbSite& s, CbField f, uint32_t value) {
  char message[480];
  const char* name = cb_field_name(f);
  if (f == CbField::FifoWrTilePtr)
    __builtin_snprintf(message, sizeof message,
                       "get_local_cb_interface(%u).%s is not supported by tessel: the packer's position in the "
                       "reservation is the simulator's (pack_tile<true>(idst, cb, i) writes page i)",
                       s.cb, name);
  else if (f != CbField::FifoRdPtr && f != CbField::FifoWrPtr)
    __builtin_snprintf(message, sizeof message,
                       "get_local_cb_interface(%u).%s = %u: writing %s is not supported by tessel (a CB's size, "
                       "limit, page size, page count and counters are the program's configuration and the CB calls'; "
                       "a kernel may move fifo_rd_ptr and fifo_wr_ptr)",
                       s.cb, name, value, name);
  else
    __builtin_snprintf(message, sizeof message,
                       "get_local_cb_interface(%u).%s = 0x%x: the address is outside CB %u's memory [0x%x, 0x%x]%s "
                       "(expected a pointer inside the CB, as get_read_ptr / get_write_ptr give)",
                       s.cb, name, value, s.cb, s.q->fifo_addr >> cb_addr_shift, s.q->fifo_limit >> cb_addr_shift,
                       cb_addr_shift ? " in 16-byte words" : "");
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, s.file, s.line);
  __builtin_unreachable();
}

template <CbField F>
struct LocalCbField {
  CbSite site;

  operator uint32_t() const {
    const tessel_cb_iface& q = *site.q;
    switch (F) {
    case CbField::FifoSize: return q.fifo_size >> cb_addr_shift;
    case CbField::FifoLimit: return q.fifo_limit >> cb_addr_shift;
    case CbField::FifoPageSize: return q.page_size >> cb_addr_shift;
    case CbField::FifoNumPages: return q.num_pages;
    case CbField::FifoRdPtr: return q.rd_ptr >> cb_addr_shift;
    case CbField::FifoWrPtr: return q.wr_ptr >> cb_addr_shift;
    case CbField::TilesAcked: return q.acked;
    case CbField::TilesReceived: return q.received;
    case CbField::FifoWrTilePtr: cb_field_fail(site, F, 0);
    }
    return 0;
  }
  const LocalCbField& operator=(uint32_t value) const {
    if constexpr (F != CbField::FifoRdPtr && F != CbField::FifoWrPtr) {
      cb_field_fail(site, F, value);
    } else {
      tessel_cb_iface& q = *site.q;
      const uint64_t address = uint64_t(value) << cb_addr_shift;
      if (__builtin_expect(address < q.fifo_addr || address > q.fifo_limit, 0)) cb_field_fail(site, F, value);
      (F == CbField::FifoRdPtr ? q.rd_ptr : q.wr_ptr) = uint32_t(address);
    }
    return *this;
  }
  const LocalCbField& operator=(const LocalCbField& other) const { return *this = uint32_t(other); }
  const LocalCbField& operator+=(uint32_t value) const { return *this = uint32_t(*this) + value; }
  const LocalCbField& operator-=(uint32_t value) const { return *this = uint32_t(*this) - value; }
};

} // namespace tessel_detail

// Metalium's field names; see the table at the top of this file.
struct LocalCBInterface {
  tessel_detail::LocalCbField<tessel_detail::CbField::FifoSize> fifo_size;
  tessel_detail::LocalCbField<tessel_detail::CbField::FifoLimit> fifo_limit;
  tessel_detail::LocalCbField<tessel_detail::CbField::FifoPageSize> fifo_page_size;
  tessel_detail::LocalCbField<tessel_detail::CbField::FifoNumPages> fifo_num_pages;
  tessel_detail::LocalCbField<tessel_detail::CbField::FifoRdPtr> fifo_rd_ptr;
  tessel_detail::LocalCbField<tessel_detail::CbField::FifoWrPtr> fifo_wr_ptr;
  tessel_detail::LocalCbField<tessel_detail::CbField::TilesAcked> tiles_acked;
  tessel_detail::LocalCbField<tessel_detail::CbField::TilesReceived> tiles_received;
  tessel_detail::LocalCbField<tessel_detail::CbField::FifoWrTilePtr> fifo_wr_tile_ptr;
};

#endif // TESSEL_CB_INTERFACE_H
