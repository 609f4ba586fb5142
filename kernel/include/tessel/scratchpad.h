// TT-Metalium's Scratchpad<T>: a kernel's typed view of a region of its
// core's L1 that the host set aside for the program (a scratchpad binding,
// scratch::<name>: KernelBindings::scratchpads, include/tessel/program.hpp).
// Built from the binding's token: the region's L1 address is the common
// runtime argument the token names, its size the binding's bytes per core.
//
// operator[] is bounds-checked, as Metalium's ASSERT checks it; size(),
// size_in_bytes(), get_dataformat(), get_base_address(), begin()/end(),
// local_mem() and scoped_lock(offset, n) are Metalium's. In data-movement
// kernels a Scratchpad is this core's L1 side of a Noc transfer,
// {.offset_bytes = n} into it (never a multicast destination).
//
// What silicon leaves undefined is an error here: a region that is not in
// this core's L1, an address not aligned for T, a size that is no multiple
// of sizeof(T), and an index or offset past the region.
#ifndef TESSEL_SCRATCHPAD_H
#define TESSEL_SCRATCHPAD_H

#include <type_traits>

#include "experimental/kernel_args.h"
#include "tessel/core_local_mem.h"
#include "tessel/kernel_common.h"
#include "tessel/scratchpad_binding_token.h"

namespace tessel_detail {
__attribute__((noinline, cold)) inline void scratchpad_fail(const char* message, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, file, line);
}

__attribute__((noinline, cold)) inline void scratchpad_past_end(const char* what, uint32_t at, uint32_t count,
                                                                const char* unit) {
  char message[200];
  __builtin_snprintf(message, sizeof message, "Scratchpad::%s: %u is past the scratchpad's %u %s: expected below %u",
                     what, at, count, unit, count);
  scratchpad_fail(message, nullptr, 0);
}
} // namespace tessel_detail

template <typename T>
class Scratchpad {
public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using size_type = uint32_t;
  using pointer = CoreLocalMem<T>;
  using const_pointer = CoreLocalMem<const T>;
  using reference = T&;
  using const_reference = const T&;
  using iterator = pointer;

  [[nodiscard]] explicit Scratchpad(const ScratchpadBindingToken& token, TESSEL_SITE_PARAMS)
      : start_addr_(pointer{uintptr_t(get_common_arg_val<uint32_t>(int(token.crta_offset_), TESSEL_SITE))}),
        sentinel_addr_(pointer{start_addr_.get_address() + uintptr_t{token.size_in_bytes_}}),
        data_format_(DataFormat(token.llk_metadata_.format)) {
    const uint32_t base = uint32_t(start_addr_.get_address()), bytes = token.size_in_bytes_;
    const uint32_t l1_bytes = tessel_ctx()->l1_size_bytes;
    char message[240];
    if (uint64_t(base) + bytes > l1_bytes) {
      __builtin_snprintf(message, sizeof message,
                         "Scratchpad: common runtime argument %u holds L1 address %u; the scratchpad's %u bytes from "
                         "there end past this core's %u bytes of L1: expected the address of an L1 region of at least "
                         "%u bytes the host set aside for it",
                         token.crta_offset_, base, bytes, l1_bytes, bytes);
      tessel_detail::scratchpad_fail(message, TESSEL_SITE);
    }
    if (base % alignof(T) != 0) {
      __builtin_snprintf(message, sizeof message,
                         "Scratchpad<T>: L1 address %u is not aligned for T: expected a multiple of alignof(T) = %u",
                         base, uint32_t(alignof(T)));
      tessel_detail::scratchpad_fail(message, TESSEL_SITE);
    }
    if (bytes % sizeof(T) != 0) {
      __builtin_snprintf(message, sizeof message,
                         "Scratchpad<T>: the scratchpad's %u bytes are not a whole number of elements: expected a "
                         "multiple of sizeof(T) = %u",
                         bytes, uint32_t(sizeof(T)));
      tessel_detail::scratchpad_fail(message, TESSEL_SITE);
    }
  }

  [[nodiscard]] reference operator[](uint32_t index) const {
    if (__builtin_expect(index >= size(), 0))
      tessel_detail::scratchpad_past_end("operator[]", index, size(), "elements");
    return start_addr_[index];
  }
  [[nodiscard]] size_type size() const noexcept { return size_in_bytes() / uint32_t(sizeof(T)); }
  [[nodiscard]] size_type size_in_bytes() const noexcept {
    return uint32_t(sentinel_addr_.get_address() - start_addr_.get_address());
  }
  [[nodiscard]] constexpr DataFormat get_dataformat() const noexcept { return data_format_; }
  [[nodiscard]] uint32_t get_base_address() const noexcept { return uint32_t(start_addr_.get_address()); }
  [[nodiscard]] iterator begin() const noexcept { return start_addr_; }
  [[nodiscard]] iterator end() const noexcept { return sentinel_addr_; }
  [[nodiscard]] pointer local_mem() const noexcept { return start_addr_; }
  [[nodiscard]] auto scoped_lock(uint32_t offset, uint32_t num_elements) const {
    if (__builtin_expect(uint64_t(offset) + num_elements > size(), 0))
      tessel_detail::scratchpad_past_end("scoped_lock", offset + num_elements, size(), "elements (offset + count)");
    return (start_addr_ + offset).scoped_lock(num_elements);
  }

private:
  pointer start_addr_, sentinel_addr_;
  DataFormat data_format_;
};

#if !defined(TESSEL_KERNEL_COMPUTE)
template <typename T>
inline constexpr bool tessel_detail::kLocalL1Only<Scratchpad<T>> = true;

template <typename T>
struct noc_traits_t<Scratchpad<T>> {
  struct src_args_type {
    uint32_t offset_bytes = 0;
  };
  struct dst_args_type {
    uint32_t offset_bytes = 0;
  };
  struct dst_args_mcast_type {};
  template <Noc::AddressType kType>
  static uint32_t src_addr(const Scratchpad<T>& src, const Noc&, const src_args_type& args, const char* file,
                           uint32_t line) {
    static_assert(kType == Noc::AddressType::LOCAL_L1, "a Scratchpad is this core's L1 side of a transfer only");
    return offset_addr(src, args.offset_bytes, file, line);
  }
  template <Noc::AddressType kType>
  static uint32_t dst_addr(const Scratchpad<T>& dst, const Noc&, const dst_args_type& args, const char* file,
                           uint32_t line) {
    static_assert(kType == Noc::AddressType::LOCAL_L1, "a Scratchpad is this core's L1 side of a transfer only");
    return offset_addr(dst, args.offset_bytes, file, line);
  }
  template <Noc::AddressType kType>
  static uint64_t dst_addr_mcast(const Scratchpad<T>&, const Noc&, const dst_args_mcast_type&) {
    static_assert(tessel_detail::kDependentFalse<T>,
                  "a Scratchpad cannot be a multicast destination: it is private to this core's kernel");
    return 0;
  }

private:
  static uint32_t offset_addr(const Scratchpad<T>& pad, uint32_t offset_bytes, const char* file, uint32_t line) {
    if (__builtin_expect(offset_bytes >= pad.size_in_bytes(), 0)) {
      char message[160];
      __builtin_snprintf(message, sizeof message,
                         "Noc: offset_bytes %u is past the Scratchpad's %u bytes: expected an offset below %u",
                         offset_bytes, pad.size_in_bytes(), pad.size_in_bytes());
      tessel_detail::scratchpad_fail(message, file, line);
    }
    return pad.get_base_address() + offset_bytes;
  }
};
#endif // !TESSEL_KERNEL_COMPUTE

#endif // TESSEL_SCRATCHPAD_H
