// TT-Metalium's CircularBuffer object: one CB index of this core, over the
// free cb_* calls (so the CB protocol checks are theirs and errors name the
// kernel's line). In data-movement kernels it is also a Noc source (its read
// pointer) and destination (its write pointer; with a rectangle in the
// multicast args, that address on every core of it), {.offset_bytes = n}
// into the page; use<CircularBuffer::AddrSelector::READ_PTR / WRITE_PTR>(cb)
// picks the pointer explicitly.
//
// Included through api/dataflow/circular_buffer.h and
// experimental/circular_buffer.h (experimental::CircularBuffer).
#ifndef TESSEL_CIRCULAR_BUFFER_OBJECT_H
#define TESSEL_CIRCULAR_BUFFER_OBJECT_H

#include "tessel/kernel_common.h"
#if defined(TESSEL_KERNEL_COMPUTE)
#include "tessel/compute.h" // get_tile_address, read_tile_value
#else
#include "tessel/noc_object.h"
#endif

namespace tessel_detail {
// What scoped_lock returns: Metalium's lock records profiler events, which
// tessel has none of; holding it changes nothing. Its destructor makes an
// unused guard variable draw no warning, as Metalium's does.
struct [[nodiscard]] ScopedLock {
  ~ScopedLock() {}
};
} // namespace tessel_detail

class CircularBuffer {
public:
  enum class AddrSelector { WRITE_PTR, READ_PTR };

  explicit CircularBuffer(uint32_t cb_id) : cb_id_(cb_id) {}

  uint32_t get_cb_id() const { return cb_id_; }

  void reserve_back(int32_t num_pages, TESSEL_SITE_PARAMS) { cb_reserve_back(cb_id_, num_pages, TESSEL_SITE); }
  void push_back(int32_t num_pages, TESSEL_SITE_PARAMS) { cb_push_back(cb_id_, num_pages, TESSEL_SITE); }
  void wait_front(int32_t num_pages, TESSEL_SITE_PARAMS) { cb_wait_front(cb_id_, num_pages, TESSEL_SITE); }
  void pop_front(int32_t num_pages, TESSEL_SITE_PARAMS) { cb_pop_front(cb_id_, num_pages, TESSEL_SITE); }
  bool pages_reservable_at_back(int32_t num_pages, TESSEL_SITE_PARAMS) const {
    return cb_pages_reservable_at_back(cb_id_, num_pages, TESSEL_SITE);
  }
  bool pages_available_at_front(int32_t num_pages, TESSEL_SITE_PARAMS) const {
    return cb_pages_available_at_front(cb_id_, num_pages, TESSEL_SITE);
  }

  uint32_t get_write_ptr(TESSEL_SITE_PARAMS) const { return ::get_write_ptr(cb_id_, TESSEL_SITE); }
  uint32_t get_read_ptr(TESSEL_SITE_PARAMS) const { return ::get_read_ptr(cb_id_, TESSEL_SITE); }
  uint32_t get_tile_size(TESSEL_SITE_PARAMS) const { return ::get_tile_size(cb_id_, TESSEL_SITE); }
  uint32_t get_tile_hw(TESSEL_SITE_PARAMS) const { return ::get_tile_hw(cb_id_, TESSEL_SITE); }
  DataFormat get_dataformat(TESSEL_SITE_PARAMS) const { return ::get_dataformat(cb_id_, TESSEL_SITE); }

  tessel_detail::ScopedLock scoped_lock() { return {}; }

#if defined(TESSEL_KERNEL_COMPUTE)
  // Compute kernels: the L1 address of page tile_index at the read pointer,
  // and the uint32 element_offset words into it (cb_api.h's free functions).
  uint32_t get_tile_address(uint32_t tile_index, TESSEL_SITE_PARAMS) const {
    return ::get_tile_address(cb_id_, tile_index, TESSEL_SITE);
  }
  uint32_t read_tile_value(uint32_t tile_index, uint32_t element_offset, TESSEL_SITE_PARAMS) const {
    return ::read_tile_value(cb_id_, tile_index, element_offset, TESSEL_SITE);
  }
#endif

private:
  uint32_t cb_id_;
};

namespace experimental {
using ::CircularBuffer;
} // namespace experimental

#if !defined(TESSEL_KERNEL_COMPUTE)

template <CircularBuffer::AddrSelector AddrSel>
struct CircularBufferView {
  const CircularBuffer& cb;
  explicit constexpr CircularBufferView(const CircularBuffer& c) : cb(c) {}
};

template <CircularBuffer::AddrSelector AddrSel>
constexpr CircularBufferView<AddrSel> use(const CircularBuffer& cb) {
  return CircularBufferView<AddrSel>(cb);
}

namespace tessel_detail {
// The traits of a CB seen through its read pointer (as a source) or its
// write pointer (as a destination), or through the one View selects.
template <typename View, CircularBuffer::AddrSelector kSourcePtr, CircularBuffer::AddrSelector kDestinationPtr>
struct CircularBufferTraits {
  struct src_args_type {
    uint32_t offset_bytes{};
  };
  struct dst_args_type {
    uint32_t offset_bytes{};
  };
  struct dst_args_mcast_type {
    uint32_t noc_x_start{};
    uint32_t noc_y_start{};
    uint32_t noc_x_end{};
    uint32_t noc_y_end{};
    uint32_t offset_bytes{};
  };
  template <Noc::AddressType kType>
  static uint32_t src_addr(const View& view, const Noc&, const src_args_type& args, const char* file, uint32_t line) {
    static_assert(kType == Noc::AddressType::LOCAL_L1,
                  "a CircularBuffer is this core's L1 side of a transfer (or, with a rectangle, a multicast "
                  "destination)");
    return pointer<kSourcePtr>(view, file, line) + args.offset_bytes;
  }
  template <Noc::AddressType kType>
  static uint32_t dst_addr(const View& view, const Noc&, const dst_args_type& args, const char* file, uint32_t line) {
    static_assert(kType == Noc::AddressType::LOCAL_L1,
                  "a CircularBuffer is this core's L1 side of a transfer (or, with a rectangle, a multicast "
                  "destination)");
    return pointer<kDestinationPtr>(view, file, line) + args.offset_bytes;
  }
  template <Noc::AddressType kType>
  static uint64_t dst_addr_mcast(const View& view, const Noc& noc, const dst_args_mcast_type& args, const char* file,
                                 uint32_t line) {
    static_assert(kType == Noc::AddressType::NOC, "a CircularBuffer with a rectangle is a multicast destination");
    return ::get_noc_multicast_addr(args.noc_x_start, args.noc_y_start, args.noc_x_end, args.noc_y_end,
                                    pointer<kDestinationPtr>(view, file, line) + args.offset_bytes, noc.get_noc_id(),
                                    file, line);
  }

private:
  template <CircularBuffer::AddrSelector kPtr>
  static uint32_t pointer(const View& view, const char* file, uint32_t line) {
    const CircularBuffer& cb = cb_of(view);
    return kPtr == CircularBuffer::AddrSelector::READ_PTR ? cb.get_read_ptr(file, line) : cb.get_write_ptr(file, line);
  }
  static const CircularBuffer& cb_of(const CircularBuffer& cb) { return cb; }
  template <CircularBuffer::AddrSelector AddrSel>
  static const CircularBuffer& cb_of(const CircularBufferView<AddrSel>& view) {
    return view.cb;
  }
};
} // namespace tessel_detail

template <>
inline constexpr bool tessel_detail::kLocalL1Only<CircularBuffer> = true;

template <>
struct noc_traits_t<CircularBuffer>
    : tessel_detail::CircularBufferTraits<CircularBuffer, CircularBuffer::AddrSelector::READ_PTR,
                                          CircularBuffer::AddrSelector::WRITE_PTR> {};

template <CircularBuffer::AddrSelector AddrSel>
struct noc_traits_t<CircularBufferView<AddrSel>>
    : tessel_detail::CircularBufferTraits<CircularBufferView<AddrSel>, AddrSel, AddrSel> {};

namespace experimental {
using ::CircularBufferView;
using ::use;
} // namespace experimental

#endif // !TESSEL_KERNEL_COMPUTE

#endif // TESSEL_CIRCULAR_BUFFER_OBJECT_H
