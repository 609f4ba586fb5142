// TT-Metalium's CoreLocalMem<T>: a typed pointer to this core's L1 (an L1
// address as kernels see it, which in tessel is a real pointer), with
// pointer arithmetic in elements. In data-movement kernels it is also the L1
// side of a Noc transfer, {.offset_bytes = n} from its address.
// scoped_lock(n) guards n elements from its address for a scope (a Lock;
// the cache operations it brackets do nothing on Wormhole and Blackhole).
//
// Included through api/core_local_mem.h and experimental/core_local_mem.h
// (experimental::CoreLocalMem).
#ifndef TESSEL_CORE_LOCAL_MEM_H
#define TESSEL_CORE_LOCAL_MEM_H

#include "api/lock.h"
#include "internal/scoped_lock_cache_ops.h"
#include "tessel/kernel_common.h"
#if !defined(TESSEL_KERNEL_COMPUTE)
#include "tessel/noc_object.h"
#endif

template <typename T, typename AddressType = uintptr_t>
class CoreLocalMem {
  using difference_type = __PTRDIFF_TYPE__;
  static_assert(AddressType(-1) > AddressType(0), "CoreLocalMem: AddressType must be an unsigned integer type");
  static_assert(sizeof(AddressType) >= sizeof(difference_type),
                "CoreLocalMem: AddressType must be at least as wide as a pointer difference");

public:
  CoreLocalMem(AddressType address) : address_(address) {}
  CoreLocalMem(T* ptr) : address_(AddressType(uintptr_t(ptr))) {}

  T* get_unsafe_ptr() const { return reinterpret_cast<T*>(uintptr_t(address_)); }
  AddressType get_address() const { return address_; }

  T& operator[](uint32_t index) const { return get_unsafe_ptr()[index]; }
  T& operator*() const { return *get_unsafe_ptr(); }
  T* operator->() const { return get_unsafe_ptr(); }

  CoreLocalMem& operator+=(difference_type n) {
    address_ += n * sizeof(T);
    return *this;
  }
  CoreLocalMem& operator-=(difference_type n) {
    address_ -= n * sizeof(T);
    return *this;
  }
  CoreLocalMem& operator++() { return *this += 1; }
  CoreLocalMem& operator--() { return *this -= 1; }
  CoreLocalMem operator++(int) {
    CoreLocalMem before = *this;
    *this += 1;
    return before;
  }
  CoreLocalMem operator--(int) {
    CoreLocalMem before = *this;
    *this -= 1;
    return before;
  }
  CoreLocalMem operator+(difference_type n) const { return CoreLocalMem(AddressType(address_ + n * sizeof(T))); }
  CoreLocalMem operator-(difference_type n) const { return CoreLocalMem(AddressType(address_ - n * sizeof(T))); }
  difference_type operator-(const CoreLocalMem& other) const {
    return (difference_type(address_) - difference_type(other.address_)) / difference_type(sizeof(T));
  }

  [[nodiscard]] auto scoped_lock(__SIZE_TYPE__ num_elements) const {
    const uint32_t addr = uint32_t(address_), num_bytes = uint32_t(num_elements * sizeof(T));
    scoped_lock_acquire_cache_ops(addr, num_bytes);
    return Lock([addr, num_bytes]() { scoped_lock_release_cache_ops(addr, num_bytes); });
  }

  bool operator==(const CoreLocalMem& other) const { return address_ == other.address_; }
  bool operator!=(const CoreLocalMem& other) const { return address_ != other.address_; }
  bool operator<(const CoreLocalMem& other) const { return address_ < other.address_; }
  bool operator<=(const CoreLocalMem& other) const { return address_ <= other.address_; }
  bool operator>(const CoreLocalMem& other) const { return address_ > other.address_; }
  bool operator>=(const CoreLocalMem& other) const { return address_ >= other.address_; }
  explicit operator bool() const { return address_ != 0; }

private:
  AddressType address_;
};

#if !defined(TESSEL_KERNEL_COMPUTE)
template <typename T, typename AddressType>
inline constexpr bool tessel_detail::kLocalL1Only<CoreLocalMem<T, AddressType>> = true;

template <typename T, typename AddressType>
struct noc_traits_t<CoreLocalMem<T, AddressType>> {
  struct src_args_type {
    AddressType offset_bytes = 0;
  };
  struct dst_args_type {
    AddressType offset_bytes = 0;
  };
  struct dst_args_mcast_type {};
  template <Noc::AddressType kType>
  static uint32_t src_addr(const CoreLocalMem<T, AddressType>& src, const Noc&, const src_args_type& args) {
    static_assert(kType == Noc::AddressType::LOCAL_L1, "a CoreLocalMem is this core's L1 side of a transfer only");
    return uint32_t(src.get_address() + args.offset_bytes);
  }
  template <Noc::AddressType kType>
  static uint32_t dst_addr(const CoreLocalMem<T, AddressType>& dst, const Noc&, const dst_args_type& args) {
    static_assert(kType == Noc::AddressType::LOCAL_L1, "a CoreLocalMem is this core's L1 side of a transfer only");
    return uint32_t(dst.get_address() + args.offset_bytes);
  }
  template <Noc::AddressType kType>
  static uint64_t dst_addr_mcast(const CoreLocalMem<T, AddressType>&, const Noc&, const dst_args_mcast_type&) {
    static_assert(tessel_detail::kDependentFalse<T>,
                  "a CoreLocalMem cannot be a multicast destination; use a MulticastEndpoint");
    return 0;
  }
};
#endif // !TESSEL_KERNEL_COMPUTE

namespace experimental {
using ::CoreLocalMem;
} // namespace experimental

#endif // TESSEL_CORE_LOCAL_MEM_H
