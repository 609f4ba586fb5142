// TT-Metalium's NoC endpoints: raw addresses as Noc sources and destinations.
//   UnicastEndpoint                 {.noc_x, .noc_y, .addr}   one core's L1 (or, as a
//                                   LOCAL_L1 side, .addr on this core)
//   MulticastEndpoint               {.noc_x_start, .noc_y_start, .noc_x_end, .noc_y_end, .addr}
//   AllocatorBank<AllocatorBankType::DRAM or L1>   {.bank_id, .addr}
//   PrecomposedUnicastEndpoint      {.noc_addr}   a NoC address already made (get_noc_addr
//                                   and the like), used as is; never the local side
// Included through api/dataflow/endpoints.h and experimental/endpoints.h.
#ifndef TESSEL_NOC_ENDPOINTS_H
#define TESSEL_NOC_ENDPOINTS_H

#include "tessel/noc_object.h"

struct UnicastEndpoint {
  uint64_t get_noc_unicast_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr, uint8_t noc, TESSEL_SITE_PARAMS) const {
    return ::get_noc_addr(noc_x, noc_y, addr, noc, TESSEL_SITE);
  }
};

struct MulticastEndpoint {
  uint64_t get_noc_multicast_addr(uint32_t noc_x_start, uint32_t noc_y_start, uint32_t noc_x_end, uint32_t noc_y_end,
                                  uint32_t addr, uint8_t noc, TESSEL_SITE_PARAMS) const {
    return ::get_noc_multicast_addr(noc_x_start, noc_y_start, noc_x_end, noc_y_end, addr, noc, TESSEL_SITE);
  }
};

enum class AllocatorBankType { L1, DRAM };

template <AllocatorBankType bank_type>
struct AllocatorBank {
  uint64_t get_noc_addr_from_bank_id(uint32_t bank_id, uint32_t addr, uint8_t noc, TESSEL_SITE_PARAMS) const {
    return ::get_noc_addr_from_bank_id<bank_type == AllocatorBankType::DRAM>(bank_id, addr, noc, TESSEL_SITE);
  }
};

struct PrecomposedUnicastEndpoint {};

template <>
struct noc_traits_t<PrecomposedUnicastEndpoint> {
  struct src_args_type {
    uint64_t noc_addr{};
  };
  struct dst_args_type {
    uint64_t noc_addr{};
  };
  template <Noc::AddressType kType>
  static uint64_t src_addr(const PrecomposedUnicastEndpoint&, const Noc&, const src_args_type& args, const char*,
                           uint32_t) {
    static_assert(kType == Noc::AddressType::NOC,
                  "a PrecomposedUnicastEndpoint is a NoC address: it cannot be the local L1 side of a transfer");
    return args.noc_addr;
  }
  template <Noc::AddressType kType>
  static uint64_t dst_addr(const PrecomposedUnicastEndpoint&, const Noc&, const dst_args_type& args, const char*,
                           uint32_t) {
    static_assert(kType == Noc::AddressType::NOC,
                  "a PrecomposedUnicastEndpoint is a NoC address: it cannot be the local L1 side of a transfer");
    return args.noc_addr;
  }
};

template <>
struct noc_traits_t<UnicastEndpoint> {
  struct src_args_type {
    uint32_t noc_x{};
    uint32_t noc_y{};
    uint32_t addr{};
  };
  using dst_args_type = src_args_type;
  template <Noc::AddressType kType>
  static uint64_t src_addr(const UnicastEndpoint& src, const Noc& noc, const src_args_type& args, const char* file,
                           uint32_t line) {
    if constexpr (kType == Noc::AddressType::LOCAL_L1)
      return args.addr;
    else
      return src.get_noc_unicast_addr(args.noc_x, args.noc_y, args.addr, noc.get_noc_id(), file, line);
  }
  template <Noc::AddressType kType>
  static uint64_t dst_addr(const UnicastEndpoint& dst, const Noc& noc, const dst_args_type& args, const char* file,
                           uint32_t line) {
    return src_addr<kType>(dst, noc, args, file, line);
  }
};

template <>
struct noc_traits_t<MulticastEndpoint> {
  struct dst_args_mcast_type {
    uint32_t noc_x_start{};
    uint32_t noc_y_start{};
    uint32_t noc_x_end{};
    uint32_t noc_y_end{};
    uint32_t addr{};
  };
  template <Noc::AddressType kType>
  static uint64_t dst_addr_mcast(const MulticastEndpoint& dst, const Noc& noc, const dst_args_mcast_type& args,
                                 const char* file, uint32_t line) {
    static_assert(kType == Noc::AddressType::NOC, "a MulticastEndpoint is a NoC destination only");
    return dst.get_noc_multicast_addr(args.noc_x_start, args.noc_y_start, args.noc_x_end, args.noc_y_end, args.addr,
                                      noc.get_noc_id(), file, line);
  }
};

template <AllocatorBankType bank_type>
struct noc_traits_t<AllocatorBank<bank_type>> {
  struct src_args_type {
    uint32_t bank_id{};
    uint32_t addr{};
  };
  using dst_args_type = src_args_type;
  template <Noc::AddressType kType>
  static uint64_t src_addr(const AllocatorBank<bank_type>& src, const Noc& noc, const src_args_type& args,
                           const char* file, uint32_t line) {
    static_assert(kType == Noc::AddressType::NOC, "an AllocatorBank is the NoC side of a transfer only");
    return src.get_noc_addr_from_bank_id(args.bank_id, args.addr, noc.get_noc_id(), file, line);
  }
  template <Noc::AddressType kType>
  static uint64_t dst_addr(const AllocatorBank<bank_type>& dst, const Noc& noc, const dst_args_type& args,
                           const char* file, uint32_t line) {
    return src_addr<kType>(dst, noc, args, file, line);
  }
};

namespace experimental {
using ::AllocatorBank;
using ::AllocatorBankType;
using ::MulticastEndpoint;
using ::UnicastEndpoint;
} // namespace experimental

#endif // TESSEL_NOC_ENDPOINTS_H
