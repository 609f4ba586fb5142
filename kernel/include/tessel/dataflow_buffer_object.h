// TT-Metalium's DataflowBuffer (Metal 2.0): on Wormhole and Blackhole a
// view of one CB index, as CircularBuffer is, constructed from the index or
// from a name the host bound (DFBAccessor, `dfb::<name>`, KernelBindings in
// include/tessel/program.hpp). Entries are the CB's pages; the protocol
// checks are the free cb_* calls', with the kernel's line. In data-movement
// kernels it is a Noc source (its read pointer) and destination (its write
// pointer), {.offset_bytes = n} into the entry.
//
// Included through api/dataflow/dataflow_buffer.h and
// experimental/dataflow_buffer.h.
#ifndef TESSEL_DATAFLOW_BUFFER_OBJECT_H
#define TESSEL_DATAFLOW_BUFFER_OBJECT_H

#include "tessel/circular_buffer_object.h"

// The handle of a dataflow buffer bound by name: a compile-time CB index,
// which Metalium's compute calls also take where they expect a CB id.
struct DFBAccessor {
  explicit constexpr DFBAccessor(uint16_t id) noexcept : id_(id) {}
  constexpr operator uint32_t() const noexcept { return id_; }

private:
  uint16_t id_;
};

class DataflowBuffer : public CircularBuffer {
public:
  DataflowBuffer(DFBAccessor accessor) : CircularBuffer(uint32_t(accessor)) {}
  DataflowBuffer(uint16_t logical_dfb_id) : CircularBuffer(logical_dfb_id) {}

  uint16_t get_id() const { return uint16_t(get_cb_id()); }
  // Bytes of one entry (the CB's page), the distance between entries, and
  // how many entries the buffer holds.
  uint32_t get_entry_size(TESSEL_SITE_PARAMS) const { return iface("get_entry_size", TESSEL_SITE).page_size; }
  uint32_t get_stride_size(TESSEL_SITE_PARAMS) const { return iface("get_stride_size", TESSEL_SITE).page_size; }
  uint32_t get_total_num_entries(TESSEL_SITE_PARAMS) const {
    return iface("get_total_num_entries", TESSEL_SITE).num_pages;
  }
  uint32_t get_tile_num_faces(TESSEL_SITE_PARAMS) const { return ::get_tile_num_faces(get_cb_id(), TESSEL_SITE); }
  // A producer's or consumer's end of use: Wormhole and Blackhole have no
  // hardware credits to return, so nothing is left to do.
  void finish() {}
  // Moving the FIFO's pointers by hand (Metalium's Wormhole/Blackhole-only
  // escape hatch) is not modelled: the simulator's CB checks follow the
  // pointers the protocol calls move (docs/deviations.md).
  template <typename NotModelled = void>
  void evil_set_read_ptr(uint32_t) {
    static_assert(sizeof(NotModelled*) == 0, "DataflowBuffer::evil_set_read_ptr is not supported by tessel: setting "
                                             "a FIFO pointer by hand is not modelled (docs/deviations.md)");
  }
  template <typename NotModelled = void>
  void evil_set_write_ptr(uint32_t) {
    static_assert(sizeof(NotModelled*) == 0, "DataflowBuffer::evil_set_write_ptr is not supported by tessel: setting "
                                             "a FIFO pointer by hand is not modelled (docs/deviations.md)");
  }
#if !defined(TESSEL_KERNEL_COMPUTE)
  // Waits for the writes this kernel issued on `noc` (from this buffer among them).
  void write_barrier(const Noc& noc, TESSEL_SITE_PARAMS) const {
    noc.async_write_barrier({}, TESSEL_SITE);
  }
#endif

private:
  tessel_cb_iface& iface(const char* call, const char* file, uint32_t line) const {
    return tessel_detail::cb(get_cb_id(), call, file, line);
  }
};

namespace experimental {
using ::DataflowBuffer;
using ::DFBAccessor;
} // namespace experimental

#if !defined(TESSEL_KERNEL_COMPUTE)
struct DataflowBufferArgs {
  uint32_t offset_bytes{};
};

template <>
inline constexpr bool tessel_detail::kLocalL1Only<DataflowBuffer> = true;

template <>
struct noc_traits_t<DataflowBuffer>
    : tessel_detail::CircularBufferTraits<DataflowBuffer, CircularBuffer::AddrSelector::READ_PTR,
                                          CircularBuffer::AddrSelector::WRITE_PTR> {};
#endif

#endif // TESSEL_DATAFLOW_BUFFER_OBJECT_H
