// Data-movement kernel API: NoC addressing, transfers, barriers, semaphores,
// address generators and tensor accessors, with TT-Metalium's names and
// argument orders. Included through dataflow_api.h / api/dataflow/dataflow_api.h.
#ifndef TESSEL_DATAFLOW_H
#define TESSEL_DATAFLOW_H

#include "hostdevcommon/common_values.hpp" // VALID, INVALID: Metalium's dataflow API brings them
#include "tessel/kernel_common.h"
#include "tessel/noc_alignment.h" // NOC_*_ALIGNMENT_BYTES, DRAM_ALIGNMENT for the arch built for
#include "tessel/tensor_pages.h"

namespace tessel_detail {
// Alignments are powers of two.
inline uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) & ~(a - 1); }
inline uint32_t bank_alignment(bool dram) {
  tessel_kernel_ctx* k = tessel_ctx();
  return dram ? k->dram_read_alignment : k->l1_alignment;
}
inline uint64_t bank_noc_addr(bool dram, uint32_t bank, uint64_t addr, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  const uint32_t nbanks = dram ? k->num_dram_banks : k->num_l1_banks;
  if (__builtin_expect(bank >= nbanks, 0)) {
    k->api->fail_bank(k, dram, bank, file, line);
    __builtin_unreachable();
  }
  uint32_t xy = dram ? k->dram_bank_noc_xy[bank] : k->l1_bank_noc_xy[bank];
  return tessel_noc_xy_addr(xy & 0xff, xy >> 8, addr);
}
// Interleaved page -> NoC address (design §1.2): page p lives in bank
// p % banks at base + (p / banks) * page_stride.
inline uint64_t interleaved_noc_addr(bool dram, uint32_t base, uint32_t page_stride, uint32_t page_id, uint32_t offset,
                                     const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  const uint32_t nbanks = dram ? k->num_dram_banks : k->num_l1_banks;
  const uint32_t bank = page_id % nbanks;
  const uint64_t addr = uint64_t(base) + uint64_t(page_id / nbanks) * page_stride + offset;
  return bank_noc_addr(dram, bank, addr, file, line);
}
// The same for a page of page_bytes: pages are laid out at the bank's
// alignment (the host allocator's rule).
inline uint64_t page_noc_addr(bool dram, uint32_t base, uint32_t page_bytes, uint32_t page_id, uint32_t offset,
                              const char* file, uint32_t line) {
  return interleaved_noc_addr(dram, base, align_up(page_bytes, bank_alignment(dram)), page_id, offset, file, line);
}
} // namespace tessel_detail

// ---------------------------------------------------------------------------
// NoC addresses

inline uint64_t get_noc_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr, uint8_t noc = noc_index,
                             TESSEL_SITE_PARAMS) {
  (void)noc;
  return tessel_noc_checked_addr(noc_x, noc_y, 0, 0, 0, addr, TESSEL_SITE);
}
inline uint64_t get_noc_addr(uint32_t addr, uint8_t noc = noc_index) {
  (void)noc;
  tessel_kernel_ctx* k = tessel_ctx();
  return tessel_noc_xy_addr(k->noc_x, k->noc_y, addr);
}
inline uint64_t get_noc_multicast_addr(uint32_t noc_x_start, uint32_t noc_y_start, uint32_t noc_x_end,
                                       uint32_t noc_y_end, uint32_t addr, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)noc;
  return tessel_noc_checked_addr(noc_x_start, noc_y_start, noc_x_end, noc_y_end, 1, addr, TESSEL_SITE);
}
template <bool DRAM>
inline uint64_t get_noc_addr_from_bank_id(uint32_t bank_id, uint32_t bank_address_offset, uint8_t noc = noc_index,
                                          TESSEL_SITE_PARAMS) {
  (void)noc;
  return tessel_detail::bank_noc_addr(DRAM, bank_id, bank_address_offset, TESSEL_SITE);
}

// The fields of a unicast NoC address (Metalium's noc_parameters.h): tessel's
// addresses have Metalium's layout, the local address in the low 36 bits,
// then x and y in 6 bits each (kernel_abi.h). NOC_XY_ADDR does no check;
// a transfer to an address that names no core fails there.
#define NOC_ADDR_LOCAL_BITS TESSEL_NOC_LOCAL_BITS
#define NOC_ADDR_NODE_ID_BITS TESSEL_NOC_COORD_BITS
#define NOC_NODE_ID_MASK TESSEL_NOC_COORD_MASK
#define NOC_LOCAL_ADDR_MASK TESSEL_NOC_LOCAL_MASK
#define NOC_LOCAL_ADDR_OFFSET(addr) ((addr)&NOC_LOCAL_ADDR_MASK)
#define NOC_UNICAST_ADDR_X(addr) (((addr) >> NOC_ADDR_LOCAL_BITS) & NOC_NODE_ID_MASK)
#define NOC_UNICAST_ADDR_Y(addr) (((addr) >> (NOC_ADDR_LOCAL_BITS + NOC_ADDR_NODE_ID_BITS)) & NOC_NODE_ID_MASK)
#define NOC_XY_ADDR(x, y, addr)                                                                                        \
  ((((uint64_t)(y)) << (NOC_ADDR_LOCAL_BITS + NOC_ADDR_NODE_ID_BITS)) | (((uint64_t)(x)) << NOC_ADDR_LOCAL_BITS) |     \
   ((uint64_t)(addr)))
#define NOC_XY_ENCODING(x, y) ((((uint32_t)(y)) << NOC_ADDR_NODE_ID_BITS) | ((uint32_t)(x)))
#define NOC_XY_COORD(x, y) NOC_XY_ENCODING(x, y)
#define NOC_ADDR_COORD_SHIFT NOC_ADDR_LOCAL_BITS
// The NoC coordinates of logical worker (0, 0): worker (x, y) is at
// (x + VIRTUAL_TENSIX_START_X, y + VIRTUAL_TENSIX_START_Y). Read from this
// core's coordinates at run time (tessel's worker grid is contiguous).
#define VIRTUAL_TENSIX_START_X (tessel_ctx()->noc_x - tessel_ctx()->logical_x)
#define VIRTUAL_TENSIX_START_Y (tessel_ctx()->noc_y - tessel_ctx()->logical_y)
// A region of this core's L1 that always reads zero (kernel_abi.h): read it
// to clear memory; writing into it is an error.
#define MEM_ZEROS_BASE (uint32_t(uintptr_t(tessel_ctx()->l1_base)) + TESSEL_L1_ZEROS_OFFSET)
#define MEM_ZEROS_SIZE TESSEL_L1_ZEROS_BYTES
#ifndef NOC_MAX_BURST_SIZE
#define NOC_MAX_BURST_SIZE 8192 // one packet: NOC_MAX_BURST_WORDS x NOC_WORD_BYTES
#endif
#define NOC_UNICAST_COORDINATE_X(xy) ((xy)&NOC_NODE_ID_MASK)
#define NOC_UNICAST_COORDINATE_Y(xy) (((xy) >> NOC_ADDR_NODE_ID_BITS) & NOC_NODE_ID_MASK)
// Both NoCs reach a core by the same coordinates (docs/deviations.md).
#define DYNAMIC_NOC_X(noc, x) ((void)(noc), (x))
#define DYNAMIC_NOC_Y(noc, y) ((void)(noc), (y))

// The firmware's bank tables, read-only, as kernels index them:
// dram_bank_to_noc_xy[noc][bank] and l1_bank_to_noc_xy[noc][bank] (the
// bank's NOC_XY_ENCODING, to shift by NOC_ADDR_COORD_SHIFT),
// bank_to_dram_offset[bank] and bank_to_l1_offset[bank] (0: tessel's banks
// start at offset 0). A bank that does not exist fails at the kernel's line.
namespace tessel_detail {
struct BankSite {
  bool dram;
  const char* table;
  const char* file;
  uint32_t line;
  void check(uint32_t bank) const {
    tessel_kernel_ctx* k = tessel_ctx();
    const uint32_t banks = dram ? k->num_dram_banks : k->num_l1_banks;
    if (__builtin_expect(bank < banks, 1)) return;
    char message[160];
    __builtin_snprintf(message, sizeof message, "%s[%u]: bank %u does not exist: there are %u %s banks", table, bank,
                       bank, banks, dram ? "DRAM" : "L1");
    k->api->fail(k, message, file, line);
    __builtin_unreachable();
  }
};
struct BankNocXyRow {
  BankSite site;
  uint16_t operator[](uint32_t bank) const {
    site.check(bank);
    tessel_kernel_ctx* k = tessel_ctx();
    const uint32_t xy = site.dram ? k->dram_bank_noc_xy[bank] : k->l1_bank_noc_xy[bank];
    return uint16_t(NOC_XY_ENCODING(xy & 0xff, xy >> 8));
  }
};
struct BankNocXy {
  BankSite site;
  BankNocXyRow operator[](uint32_t noc) const {
    (void)noc;
    return {site};
  }
};
struct BankOffsets {
  BankSite site;
  int32_t operator[](uint32_t bank) const {
    site.check(bank);
    return 0;
  }
};
} // namespace tessel_detail
#define dram_bank_to_noc_xy (tessel_detail::BankNocXy{{true, "dram_bank_to_noc_xy[noc]", __FILE__, __LINE__}})
#define l1_bank_to_noc_xy (tessel_detail::BankNocXy{{false, "l1_bank_to_noc_xy[noc]", __FILE__, __LINE__}})
#define bank_to_dram_offset (tessel_detail::BankOffsets{{true, "bank_to_dram_offset", __FILE__, __LINE__}})
#define bank_to_l1_offset (tessel_detail::BankOffsets{{false, "bank_to_l1_offset", __FILE__, __LINE__}})

// ---------------------------------------------------------------------------
// Address generators

template <bool DRAM>
struct InterleavedAddrGen {
  uint32_t bank_base_address;
  uint32_t page_size;
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) const {
    (void)noc;
    return tessel_detail::page_noc_addr(DRAM, bank_base_address, page_size, id, offset, TESSEL_SITE);
  }
  uint32_t get_page_size() const { return page_size; }
};

template <bool DRAM>
struct InterleavedPow2AddrGen {
  uint32_t bank_base_address;
  uint32_t log_base_2_of_page_size;
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) const {
    (void)noc;
    return tessel_detail::page_noc_addr(DRAM, bank_base_address, 1u << log_base_2_of_page_size, id, offset,
                                        TESSEL_SITE);
  }
  uint32_t get_page_size() const { return 1u << log_base_2_of_page_size; }
};

// tile_hw: the tile's element count in Metalium (32x32 by default); tessel's
// page size already says how big a page is.
template <bool DRAM, uint32_t tile_hw = 1024>
struct InterleavedAddrGenFast {
  uint32_t bank_base_address;
  uint32_t page_size;
  DataFormat data_format;
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) const {
    (void)noc;
    return tessel_detail::page_noc_addr(DRAM, bank_base_address, page_size, id, offset, TESSEL_SITE);
  }
  uint32_t get_page_size() const { return page_size; }
};

template <bool DRAM>
struct InterleavedPow2AddrGenFast {
  uint32_t bank_base_address;
  uint32_t log_base_2_of_page_size;
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) const {
    (void)noc;
    return tessel_detail::page_noc_addr(DRAM, bank_base_address, 1u << log_base_2_of_page_size, id, offset,
                                        TESSEL_SITE);
  }
  uint32_t get_page_size() const { return 1u << log_base_2_of_page_size; }
};

// TensorAccessorArgs<CTA_OFFSET, CRTA_OFFSET>: the compile-time args the
// host's TensorAccessorArgs(buffer) wrote (include/tessel/tensor_accessor_args.hpp):
// interleaved [flags, aligned page size]; sharded [flags, aligned page size,
// rank, banks, tensor shape[rank], shard shape[rank], bank[banks]]. Flags
// bit 0 = sharded, bit 1 = DRAM.
namespace tensor_accessor {
inline constexpr uint32_t kSharded = 1u << 0;
inline constexpr uint32_t kIsDram = 1u << 1;
inline constexpr uint32_t kMaxRank = 8;
} // namespace tensor_accessor

template <uint32_t CTA_OFFSET, uint32_t CRTA_OFFSET = 0>
struct TensorAccessorArgs {
  static constexpr uint32_t flags = get_compile_time_arg_val(CTA_OFFSET);
  static constexpr uint32_t aligned_page_size = get_compile_time_arg_val(CTA_OFFSET + 1);
  static constexpr bool is_dram = (flags & tensor_accessor::kIsDram) != 0;
  static constexpr bool is_sharded = (flags & tensor_accessor::kSharded) != 0;
  static constexpr uint32_t rank = is_sharded ? get_compile_time_arg_val(CTA_OFFSET + 2) : 0;
  static constexpr uint32_t num_banks = is_sharded ? get_compile_time_arg_val(CTA_OFFSET + 3) : 0;
  static_assert(!is_sharded || (rank >= 1 && rank <= tensor_accessor::kMaxRank && num_banks >= 1),
                "TensorAccessorArgs: the compile-time args at this offset are not a sharded tensor's "
                "(rank 1..8, at least one bank): append the host's TensorAccessorArgs(buffer) here");
  // Sharded only: dimension d (outermost first) in pages, and shard i's bank.
  static constexpr uint32_t tensor_shape(uint32_t d) { return get_compile_time_arg_val(CTA_OFFSET + 4 + d); }
  static constexpr uint32_t shard_shape(uint32_t d) { return get_compile_time_arg_val(CTA_OFFSET + 4 + rank + d); }
  static constexpr uint32_t bank(uint32_t i) { return get_compile_time_arg_val(CTA_OFFSET + 4 + 2 * rank + i); }
  static constexpr uint32_t num_compile_time_args() { return is_sharded ? 4 + 2 * rank + num_banks : 2; }
  static constexpr uint32_t num_common_runtime_args() { return 0; }
  static constexpr uint32_t next_compile_time_args_offset() { return CTA_OFFSET + num_compile_time_args(); }
  static constexpr uint32_t next_common_runtime_args_offset() { return CRTA_OFFSET; }
  static constexpr uint32_t get_aligned_page_size() { return aligned_page_size; }
};

// A tensor bound by name (KernelBindings::Tensor, `tensor::<name>`): its
// TensorAccessorArgs at CTA_OFFSET, its address in the common runtime
// argument at byte ADDR_CRTA_OFFSET. TensorAccessor(tensor::<name>) reads both.
namespace tensor_accessor {
template <uint32_t CTA_OFFSET, uint32_t ADDR_CRTA_OFFSET>
struct TensorBindingToken {
  using args_t = TensorAccessorArgs<CTA_OFFSET>;
  static constexpr args_t args{};
  static constexpr uint32_t addr_crta_offset = ADDR_CRTA_OFFSET; // bytes
};
} // namespace tensor_accessor

namespace tessel_detail {
template <typename Args>
constexpr uint64_t tensor_pages() {
  uint64_t v = 1;
  for (uint32_t d = 0; d < Args::rank; ++d)
    v *= Args::tensor_shape(d);
  return v;
}
template <typename Args>
constexpr uint32_t shard_pages() {
  uint32_t v = 1;
  for (uint32_t d = 0; d < Args::rank; ++d)
    v *= Args::shard_shape(d);
  return v;
}
__attribute__((noinline, cold)) inline void fail_sharded_page(uint32_t page_id, uint64_t pages, const char* file,
                                                              uint32_t line) {
  char message[160];
  __builtin_snprintf(message, sizeof message,
                     "TensorAccessor: page %u is past the sharded tensor's %llu pages: expected a page id below %llu",
                     page_id, (unsigned long long)pages, (unsigned long long)pages);
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, file, line);
}
// Page -> NoC address of a sharded tensor (include/tessel/buffer.hpp): its
// shard (row-major over the shard grid) picks the bank and the slot in it;
// its position in the shard (row-major over the shard shape) the page.
template <typename Args>
inline uint64_t sharded_noc_addr(uint32_t base, uint32_t page_id, uint32_t offset, const char* file, uint32_t line) {
  if (__builtin_expect(page_id >= tensor_pages<Args>(), 0)) {
    fail_sharded_page(page_id, tensor_pages<Args>(), file, line);
    __builtin_unreachable();
  }
  uint32_t rest = page_id, shard = 0, in_shard = 0, shard_stride = 1, page_stride = 1;
#pragma GCC unroll 8
  for (int d = int(Args::rank) - 1; d >= 0; --d) {
    const uint32_t t = Args::tensor_shape(uint32_t(d)), w = Args::shard_shape(uint32_t(d));
    const uint32_t c = rest % t;
    rest /= t;
    shard += c / w * shard_stride;
    in_shard += c % w * page_stride;
    shard_stride *= (t + w - 1) / w;
    page_stride *= w;
  }
  const uint32_t slot = shard / Args::num_banks;
  const uint64_t addr = base + (uint64_t(slot) * shard_pages<Args>() + in_shard) * Args::aligned_page_size + offset;
  return bank_noc_addr(Args::is_dram, Args::bank(shard % Args::num_banks), addr, file, line);
}
} // namespace tessel_detail

namespace tessel_detail {
// A dimension list of a sharded tensor's layout: shape[d], outermost first.
template <typename Args, bool shard>
struct TensorDims {
  constexpr uint32_t operator[](uint32_t d) const { return shard ? Args::shard_shape(d) : Args::tensor_shape(d); }
  static constexpr uint32_t size() { return Args::rank; }
};
// TensorAccessor::DSpec, Metalium's distribution spec of the pages:
// is_interleaved / is_sharded, and for a sharded tensor its rank, banks and
// shapes in pages.
template <typename Args>
struct TensorDSpec {
  static constexpr bool is_interleaved = !Args::is_sharded;
  static constexpr bool is_sharded = Args::is_sharded;
  static constexpr uint32_t rank() { return Args::rank; }
  static constexpr uint32_t num_banks() { return Args::num_banks; }
  static constexpr TensorDims<Args, false> tensor_shape() { return {}; }
  static constexpr TensorDims<Args, true> shard_shape() { return {}; }
  static constexpr uint32_t tensor_volume() { return uint32_t(tensor_pages<Args>()); }
  static constexpr uint32_t shard_volume() { return shard_pages<Args>(); }
};
} // namespace tessel_detail

// Pages of an interleaved or sharded tensor (TensorAccessorArgs says which):
// get_noc_addr(page) finds the page's bank and address. For a sharded one,
// the page size given is its data size; pages sit at the host's aligned
// page size.
namespace tessel_detail {
template <typename Args>
constexpr uint32_t shard_count() {
  uint32_t v = 1;
  for (uint32_t d = 0; d < Args::rank; ++d)
    v *= (Args::tensor_shape(d) + Args::shard_shape(d) - 1) / Args::shard_shape(d);
  return v;
}
__attribute__((noinline, cold)) inline void fail_shard(uint32_t shard_id, uint32_t shards, const char* file,
                                                       uint32_t line) {
  char message[160];
  __builtin_snprintf(message, sizeof message,
                     "TensorAccessor::shard_pages: shard %u is past the sharded tensor's %u shards: expected a shard "
                     "id below %u",
                     shard_id, shards, shards);
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, file, line);
}
} // namespace tessel_detail

template <typename Args>
struct TensorAccessor {
  using ArgsType = Args;
  using DSpec = tessel_detail::TensorDSpec<Args>;
  uint32_t bank_base_address;
  uint32_t page_size;
  static constexpr DSpec dspec() { return {}; }
  constexpr TensorAccessor(const Args&, uint32_t base, uint32_t page = Args::aligned_page_size)
      : bank_base_address(base), page_size(page) {}
  template <uint32_t CTA_OFFSET, uint32_t ADDR_CRTA_OFFSET>
  TensorAccessor(const tensor_accessor::TensorBindingToken<CTA_OFFSET, ADDR_CRTA_OFFSET>&, TESSEL_SITE_PARAMS)
      : bank_base_address(get_common_arg_val<uint32_t>(ADDR_CRTA_OFFSET / 4, TESSEL_SITE)),
        page_size(Args::aligned_page_size) {}
  uint64_t get_noc_addr(uint32_t page_id, uint32_t offset = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) const {
    (void)noc;
    if constexpr (Args::is_sharded)
      return tessel_detail::sharded_noc_addr<Args>(bank_base_address, page_id, offset, TESSEL_SITE);
    else
      return tessel_detail::page_noc_addr(Args::is_dram, bank_base_address, page_size, page_id, offset, TESSEL_SITE);
  }
  uint32_t get_page_size() const { return page_size; }
  // The tensor's address in each bank (a sharded L1 tensor's: its shard's
  // L1 address on this core).
  constexpr uint32_t get_bank_base_address() const { return bank_base_address; }
  // Pages start..end-1 (tessel/tensor_pages.h).
  tensor_accessor::PageRange<tensor_accessor::PagesIterator<TensorAccessor>>
  pages(uint32_t start_page_id, uint32_t end_page_id, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) const {
    return {{this, start_page_id, noc, TESSEL_SITE}, {this, end_page_id, noc, TESSEL_SITE}};
  }
  // A sharded tensor's shard, positions start_page_offset..end_page_offset
  // of it (end 0, the default: the shard's end, as in Metalium).
  tensor_accessor::PageRange<tensor_accessor::ShardPagesIterator<TensorAccessor>>
  shard_pages(uint32_t shard_id, uint32_t start_page_offset = 0, uint32_t end_page_offset = 0, uint8_t noc = noc_index,
              TESSEL_SITE_PARAMS) const {
    static_assert(Args::is_sharded, "TensorAccessor::shard_pages is not supported by the interleaved tensor "
                                    "accessor: its TensorAccessorArgs must be a sharded tensor's");
    if (end_page_offset == 0) end_page_offset = tessel_detail::shard_pages<Args>();
    if (__builtin_expect(shard_id >= tessel_detail::shard_count<Args>(), 0)) {
      tessel_detail::fail_shard(shard_id, tessel_detail::shard_count<Args>(), TESSEL_SITE);
      __builtin_unreachable();
    }
    return {{this, shard_id, start_page_offset, end_page_offset, noc, TESSEL_SITE},
            {this, shard_id, end_page_offset, end_page_offset, noc, TESSEL_SITE}};
  }
  // The distance between pages in a bank: the host's aligned page size.
  uint32_t get_aligned_page_size() const {
    if constexpr (Args::is_sharded)
      return Args::aligned_page_size;
    else
      return tessel_detail::align_up(page_size, tessel_detail::bank_alignment(Args::is_dram));
  }
};
template <typename Args>
TensorAccessor(const Args&, uint32_t) -> TensorAccessor<Args>;
template <typename Args>
TensorAccessor(const Args&, uint32_t, uint32_t) -> TensorAccessor<Args>;
template <uint32_t CTA_OFFSET, uint32_t ADDR_CRTA_OFFSET>
TensorAccessor(const tensor_accessor::TensorBindingToken<CTA_OFFSET, ADDR_CRTA_OFFSET>&)
    -> TensorAccessor<TensorAccessorArgs<CTA_OFFSET>>;

// Metalium's address-generator traits, which kernel helpers test with
// `if constexpr`: whether an accessor has get_aligned_page_size(), a
// page_size member, or log_base_2_of_page_size.
template <typename T>
inline constexpr bool has_get_aligned_page_size_v = requires(const T& t) { t.get_aligned_page_size(); };
template <typename T>
inline constexpr bool has_page_size_v = requires(const T& t) { t.page_size; };
template <typename T>
inline constexpr bool has_log_base_2_of_page_size_v = requires(const T& t) { t.log_base_2_of_page_size; };

// ---------------------------------------------------------------------------
// Transfers

// max_page_size (Metalium: reads of at most that many bytes may be issued
// as one packet) and enable_noc_tracing change nothing here.
template <uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, bool enable_noc_tracing = true>
inline void noc_async_read(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size, uint8_t noc = noc_index,
                           TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->noc_read(k, src_noc_addr, dst_local_l1_addr, size, noc, TESSEL_SITE);
}
template <uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, bool enable_noc_tracing = true, bool posted = false>
inline void noc_async_write(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size, uint8_t noc = noc_index,
                            TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->noc_write(k, src_local_l1_addr, dst_noc_addr, size, noc, TESSEL_SITE);
}
inline void noc_async_read_one_packet(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size,
                                      uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  noc_async_read(src_noc_addr, dst_local_l1_addr, size, noc, TESSEL_SITE);
}
inline void noc_async_write_one_packet(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size,
                                       uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  noc_async_write(src_local_l1_addr, dst_noc_addr, size, noc, TESSEL_SITE);
}

// The free spelling of an address generator's (or a TensorAccessor's) get_noc_addr.
template <typename AddrGen>
requires requires(const AddrGen& a) { a.get_noc_addr(0u); }
inline uint64_t get_noc_addr(uint32_t id, const AddrGen& addrgen, uint32_t offset = 0, uint8_t noc = noc_index,
                             TESSEL_SITE_PARAMS) {
  return addrgen.get_noc_addr(id, offset, noc, TESSEL_SITE);
}

template <typename AddrGen>
inline void noc_async_read_page(uint32_t id, const AddrGen& addrgen, uint32_t dst_local_l1_addr, uint32_t offset = 0,
                                uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  noc_async_read(addrgen.get_noc_addr(id, offset, noc, TESSEL_SITE), dst_local_l1_addr, addrgen.get_page_size(), noc,
                 TESSEL_SITE);
}
template <typename AddrGen>
inline void noc_async_read_tile(uint32_t id, const AddrGen& addrgen, uint32_t dst_local_l1_addr, uint32_t offset = 0,
                                uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  noc_async_read_page(id, addrgen, dst_local_l1_addr, offset, noc, TESSEL_SITE);
}
template <typename AddrGen>
inline void noc_async_write_page(uint32_t id, const AddrGen& addrgen, uint32_t src_local_l1_addr, uint32_t size = 0,
                                 uint32_t offset = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  noc_async_write(src_local_l1_addr, addrgen.get_noc_addr(id, offset, noc, TESSEL_SITE),
                  size ? size : addrgen.get_page_size(), noc, TESSEL_SITE);
}
template <typename AddrGen>
inline void noc_async_write_tile(uint32_t id, const AddrGen& addrgen, uint32_t src_local_l1_addr,
                                 uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  noc_async_write_page(id, addrgen, src_local_l1_addr, 0, 0, noc, TESSEL_SITE);
}

inline void noc_async_write_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast, uint32_t size,
                                      uint32_t num_dests, bool linked = false, uint8_t noc = noc_index,
                                      TESSEL_SITE_PARAMS) {
  (void)linked;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->noc_write_multicast(k, src_local_l1_addr, dst_noc_addr_multicast, size, num_dests, 0, noc, TESSEL_SITE);
}
inline void noc_async_write_multicast_loopback_src(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                                   uint32_t size, uint32_t num_dests, bool linked = false,
                                                   uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)linked;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->noc_write_multicast(k, src_local_l1_addr, dst_noc_addr_multicast, size, num_dests, 1, noc, TESSEL_SITE);
}
inline void noc_inline_dw_write(uint64_t addr, uint32_t val, uint8_t be = 0xF, uint8_t noc = noc_index,
                                TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->noc_inline_write(k, addr, val, be, noc, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Barriers

#define TESSEL_BARRIER(name, kind)                                                                                     \
  inline void name(uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {                                                      \
    tessel_kernel_ctx* k = tessel_ctx();                                                                               \
    k->api->noc_barrier(k, kind, noc, TESSEL_SITE);                                                                    \
  }
TESSEL_BARRIER(noc_async_read_barrier, 0)
TESSEL_BARRIER(noc_async_write_barrier, 1)
TESSEL_BARRIER(noc_async_writes_flushed, 2)
TESSEL_BARRIER(noc_async_atomic_barrier, 3)
TESSEL_BARRIER(noc_async_full_barrier, 4)
#undef TESSEL_BARRIER

// ---------------------------------------------------------------------------
// Semaphores

inline uint32_t get_semaphore(uint32_t semaphore_id, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(semaphore_id >= k->num_semaphores, 0))
    tessel_detail::index_error("get_semaphore", int(semaphore_id), "semaphore", k->num_semaphores, TESSEL_SITE);
  if (__builtin_expect(!((k->semaphore_mask >> semaphore_id) & 1u), 0)) {
    k->api->fail_semaphore(k, semaphore_id, TESSEL_SITE);
    __builtin_unreachable();
  }
  return k->semaphore_l1 + semaphore_id * TESSEL_SEMAPHORE_STRIDE_BYTES;
}
inline void noc_semaphore_set(volatile uint32_t* sem_addr, uint32_t val, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sem_set(k, sem_addr, val, TESSEL_SITE);
}
inline void noc_semaphore_wait(volatile uint32_t* sem_addr, uint32_t val, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (*sem_addr == val && __builtin_expect(!k->no_fast_paths, 1)) {
    if (__builtin_expect(tessel_stalled(k), 0)) k->api->stalled(k, "noc_semaphore_wait", TESSEL_SITE);
    return;
  }
  k->api->sem_wait(k, sem_addr, val, 0, TESSEL_SITE);
}
inline void noc_semaphore_wait_min(volatile uint32_t* sem_addr, uint32_t val, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (*sem_addr >= val && __builtin_expect(!k->no_fast_paths, 1)) {
    if (__builtin_expect(tessel_stalled(k), 0)) k->api->stalled(k, "noc_semaphore_wait_min", TESSEL_SITE);
    return;
  }
  k->api->sem_wait(k, sem_addr, val, 1, TESSEL_SITE);
}
inline void noc_semaphore_inc(uint64_t addr, uint32_t incr, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sem_inc(k, addr, incr, noc, TESSEL_SITE);
}
inline void noc_semaphore_set_remote(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint8_t noc = noc_index,
                                     TESSEL_SITE_PARAMS) {
  noc_async_write(src_local_l1_addr, dst_noc_addr, 4, noc, TESSEL_SITE);
}
inline void noc_semaphore_set_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast, uint32_t num_dests,
                                        bool linked = false, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) {
  (void)linked;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sem_set_multicast(k, src_local_l1_addr, dst_noc_addr_multicast, num_dests, 0, noc, TESSEL_SITE);
}
inline void noc_semaphore_set_multicast_loopback_src(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                                     uint32_t num_dests, bool linked = false, uint8_t noc = noc_index,
                                                     TESSEL_SITE_PARAMS) {
  (void)linked;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sem_set_multicast(k, src_local_l1_addr, dst_noc_addr_multicast, num_dests, 1, noc, TESSEL_SITE);
}

// The read command buffer's state and transaction ids (free functions).
#include "tessel/noc_read_state.h"
// Tuples of accessors (with the standard headers only).
#include "tessel/tensor_tuples.h"

#endif // TESSEL_DATAFLOW_H
