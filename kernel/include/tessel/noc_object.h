// TT-Metalium's device-API NoC object for data-movement kernels: `Noc`,
// `NocOptions` / `NocOptVals`, and `noc_traits_t<T>`, the customisation
// point that turns a source or destination object plus its argument struct
// (`{.page_id = i}`, `{.offset_bytes = n}`, ...) into an address.
//
// Included through api/dataflow/noc.h (and experimental/noc.h, which
// spells the class experimental::Noc and takes its options as the
// Noc::TxnIdMode / ResponseMode / McastMode / BarrierMode / VcSelection
// template arguments; both spellings are accepted here).
//
// Every transfer and barrier is the free function of tessel/dataflow.h with
// the addresses the traits computed, so the simulator checks (address
// validity, CB protocol, barrier tracking, the watchdog) are the free
// functions' and errors name the kernel's line, which each method takes as
// its trailing default arguments.
//
// What the simulator does not model: virtual channels, posted writes and
// transaction ids are accepted and have no effect; a barrier on one
// transaction id waits for every transfer of its kind on that NoC (so it
// never returns early). The stateful forms keep their state in the Noc
// object (silicon: in the NoC's command buffer), so async_*_with_state must
// use the object that set_async_*_state was called on.
#ifndef TESSEL_NOC_OBJECT_H
#define TESSEL_NOC_OBJECT_H

#include "tessel/dataflow.h"

// Metalium's NoC parameters that kernels name. The burst size is
// Wormhole's, the smaller of the two: a kernel that splits transfers by it
// stays correct on Blackhole.
#ifndef NOC_UNICAST_WRITE_VC
#define NOC_UNICAST_WRITE_VC 1
#endif
#ifndef NOC_MAX_BURST_SIZE
#define NOC_MAX_BURST_SIZE 8192
#endif

// Compile-time options of a NoC call, OR-able: noc.async_write<NocOptions::TXN_ID | NocOptions::CUSTOM_VC>(...).
enum class NocOptions : uint32_t {
  DEFAULT = 0,
  TXN_ID = 1u << 0,
  POSTED = 1u << 1,
  CUSTOM_VC = 1u << 2,
  MCAST_INCL_SRC = 1u << 3,
  INLINE_L1 = 1u << 4,
  INLINE_REG = 1u << 5,
};
constexpr NocOptions operator|(NocOptions a, NocOptions b) noexcept { return NocOptions(uint32_t(a) | uint32_t(b)); }
constexpr bool has_flag(NocOptions opts, NocOptions flag) noexcept { return (uint32_t(opts) & uint32_t(flag)) != 0; }

// Runtime values of the options: vc for CUSTOM_VC, trid for TXN_ID.
struct NocOptVals {
  uint32_t vc = NOC_UNICAST_WRITE_VC;
  uint32_t trid = 0;
};

// Target of an inline write (experimental::Noc's template argument).
enum class InlineWriteDst : uint8_t { DEFAULT = 0, L1 = 1, REG = 2 };

namespace tessel_detail {
template <typename...>
inline constexpr bool kDependentFalse = false;
// Types that are only ever this core's L1 side of a transfer (a
// CircularBuffer, a CoreLocalMem): their headers specialize this.
template <typename T>
inline constexpr bool kLocalL1Only = false;
template <typename A, typename B>
inline constexpr bool kSameType = false;
template <typename A>
inline constexpr bool kSameType<A, A> = true;
} // namespace tessel_detail

// noc_traits_t<T> for a source or destination type T provides
//   src_args_type / dst_args_type / dst_args_mcast_type   (the argument structs it takes)
//   template <Noc::AddressType> static src_addr(const T&, const Noc&, const src_args_type&[, file, line])
//   ... dst_addr, dst_addr_mcast likewise,
// returning a NoC address (AddressType::NOC) or an L1 address of this core
// (AddressType::LOCAL_L1). tessel's own traits take the call site too.
template <typename T>
struct noc_traits_t {
  static_assert(tessel_detail::kDependentFalse<T>,
                "Noc: this type cannot be a NoC source or destination; use a TensorAccessor, CircularBuffer, "
                "CoreLocalMem, UnicastEndpoint, MulticastEndpoint or AllocatorBank, or specialize noc_traits_t");
};

struct MulticastEndpoint;
class CircularBuffer;

class Noc {
public:
  enum class AddressType { NOC, LOCAL_L1 };
  // experimental::Noc's option spellings.
  enum class TxnIdMode { ENABLED, DISABLED };
  enum class ResponseMode { NON_POSTED, POSTED };
  enum class BarrierMode { TXN_ID, FULL };
  enum class McastMode { INCLUDE_SRC, EXCLUDE_SRC };
  enum class VcSelection { DEFAULT, CUSTOM };

  static constexpr uint32_t INVALID_TXN_ID = 0xFFFFFFFF;

private:
  template <typename T>
  using src_args_t = typename noc_traits_t<T>::src_args_type;
  template <typename T>
  using dst_args_t = typename noc_traits_t<T>::dst_args_type;
  template <typename T>
  using dst_args_mcast_t = typename noc_traits_t<T>::dst_args_mcast_type;
  // max_page_size default: transfers of any size (more than one packet).
  static constexpr uint32_t kAnyPageSize = NOC_MAX_BURST_SIZE + 1;
  static constexpr const char* kNoReadState =
      "Noc::async_read_with_state: this Noc object has no read state; call set_async_read_state on it first "
      "(tessel keeps the state in the Noc object, silicon in the NoC's command buffer)";
  static constexpr const char* kNoWriteState =
      "Noc::async_write_with_state: this Noc object has no write state; call set_async_write_state on it first "
      "(tessel keeps the state in the Noc object, silicon in the NoC's command buffer)";

public:
  Noc() : noc_id_(noc_index) {}
  explicit Noc(uint8_t noc_id) : noc_id_(noc_id) {}

  uint8_t get_noc_id() const { return noc_id_; }

  bool is_local_bank(uint32_t virtual_x, uint32_t virtual_y) const {
    return virtual_x == my_x[noc_id_] && virtual_y == my_y[noc_id_];
  }
  bool is_local_addr(uint64_t noc_addr) const {
    return is_local_bank(uint32_t(noc_addr >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK,
                         uint32_t(noc_addr >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  }

  // -------------------------------------------------------------------------
  // Reads: src is anything with a NoC address, dst an L1 location of this core.

  template <NocOptions opts = NocOptions::DEFAULT, uint32_t max_page_size = kAnyPageSize,
            bool enable_noc_tracing = true, typename Src, typename Dst>
  void async_read(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                  const dst_args_t<Dst>& dst_args, const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    noc_async_read(source<AddressType::NOC>(src, src_args, TESSEL_SITE),
                   destination<AddressType::LOCAL_L1>(dst, dst_args, TESSEL_SITE), size_bytes, noc_id_, TESSEL_SITE);
  }
  template <TxnIdMode txn_id_mode, uint32_t max_page_size = kAnyPageSize, bool enable_noc_tracing = true, typename Src,
            typename Dst>
  void async_read(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                  const dst_args_t<Dst>& dst_args, uint32_t read_req_vc = NOC_UNICAST_WRITE_VC,
                  uint32_t trid = INVALID_TXN_ID, TESSEL_SITE_PARAMS) const {
    async_read(src, dst, size_bytes, src_args, dst_args, NocOptVals{read_req_vc, trid}, TESSEL_SITE);
  }

  // Records src's NoC location for async_read_with_state on this object.
  template <NocOptions opts = NocOptions::DEFAULT, uint32_t max_page_size = kAnyPageSize, typename Src>
  void set_async_read_state(const Src& src, uint32_t size_bytes, const src_args_t<Src>& src_args,
                            const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    read_state_ = {source<AddressType::NOC>(src, src_args, TESSEL_SITE), size_bytes, 1};
  }
  template <VcSelection vc_selection, uint32_t max_page_size = kAnyPageSize, typename Src>
  void set_async_read_state(const Src& src, uint32_t size_bytes, const src_args_t<Src>& src_args, uint8_t vc = 0,
                            TESSEL_SITE_PARAMS) const {
    set_async_read_state(src, size_bytes, src_args, NocOptVals{vc, 0}, TESSEL_SITE);
  }
  // Reads from the location set_async_read_state recorded: src's address
  // supplies the low 32 bits, the state the NoC coordinates above them. In
  // one-packet mode (max_page_size <= NOC_MAX_BURST_SIZE) the size is the
  // state's, as on silicon.
  template <NocOptions opts = NocOptions::DEFAULT, uint32_t max_page_size = kAnyPageSize, typename Src, typename Dst>
  void async_read_with_state(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                             const dst_args_t<Dst>& dst_args, const NocOptVals& noc_opts = {},
                             TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    const TransferState& state = checked_state(read_state_, kNoReadState, TESSEL_SITE);
    noc_async_read(with_state_address(state, source<AddressType::NOC>(src, src_args, TESSEL_SITE)),
                   destination<AddressType::LOCAL_L1>(dst, dst_args, TESSEL_SITE),
                   max_page_size <= NOC_MAX_BURST_SIZE ? state.size_bytes : size_bytes, noc_id_, TESSEL_SITE);
  }
  template <VcSelection vc_selection, uint32_t max_page_size = kAnyPageSize, typename Src, typename Dst>
  void async_read_with_state(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                             const dst_args_t<Dst>& dst_args, uint8_t vc = 0, TESSEL_SITE_PARAMS) const {
    async_read_with_state<NocOptions::DEFAULT, max_page_size>(src, dst, size_bytes, src_args, dst_args,
                                                              NocOptVals{vc, 0}, TESSEL_SITE);
  }

  // -------------------------------------------------------------------------
  // Writes: src is an L1 location of this core, dst anything with a NoC address.

  template <NocOptions opts = NocOptions::DEFAULT, uint32_t max_page_size = kAnyPageSize,
            bool enable_noc_tracing = true, typename Src, typename Dst>
  void async_write(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                   const dst_args_t<Dst>& dst_args, const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    noc_async_write(source<AddressType::LOCAL_L1>(src, src_args, TESSEL_SITE),
                    destination<AddressType::NOC>(dst, dst_args, TESSEL_SITE), size_bytes, noc_id_, TESSEL_SITE);
  }
  template <TxnIdMode txn_id_mode, ResponseMode response_mode = ResponseMode::NON_POSTED,
            uint32_t max_page_size = kAnyPageSize, bool enable_noc_tracing = true, typename Src, typename Dst>
  void async_write(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                   const dst_args_t<Dst>& dst_args, uint32_t vc = NOC_UNICAST_WRITE_VC, uint32_t trid = INVALID_TXN_ID,
                   TESSEL_SITE_PARAMS) const {
    async_write(src, dst, size_bytes, src_args, dst_args, NocOptVals{vc, trid}, TESSEL_SITE);
  }

  // Writes size_bytes zeros to dst from this core's zeros region
  // (MEM_ZEROS_BASE), MEM_ZEROS_SIZE bytes per transfer: reads of it into a
  // local destination (a CircularBuffer, a CoreLocalMem; wait with
  // write_zeros_l1_barrier), writes of it to any other (async_write_barrier).
  template <typename Dst>
  void async_write_zeros(const Dst& dst, uint32_t size_bytes, const dst_args_t<Dst>& dst_args = {},
                         TESSEL_SITE_PARAMS) const {
    if constexpr (__is_base_of(CircularBuffer, Dst))
      check_zeros_in_cb(dst.get_cb_id(), dst_args.offset_bytes, size_bytes, TESSEL_SITE);
    for (uint32_t done = 0; done < size_bytes; done += MEM_ZEROS_SIZE) {
      const uint32_t chunk = size_bytes - done < MEM_ZEROS_SIZE ? size_bytes - done : MEM_ZEROS_SIZE;
      if constexpr (tessel_detail::kLocalL1Only<Dst>)
        noc_async_read(::get_noc_addr(MEM_ZEROS_BASE),
                       destination<AddressType::LOCAL_L1>(dst, dst_args, TESSEL_SITE) + done, chunk, noc_id_,
                       TESSEL_SITE);
      else
        noc_async_write(MEM_ZEROS_BASE, destination<AddressType::NOC>(dst, dst_args, TESSEL_SITE) + done, chunk,
                        noc_id_, TESSEL_SITE);
    }
  }
  // A CB's zeros start at its write pointer and must end inside the CB.
  static void check_zeros_in_cb(uint32_t cb_id, uint32_t offset, uint32_t size_bytes, const char* file, uint32_t line) {
    tessel_cb_iface& q = tessel_detail::cb(cb_id, "Noc::async_write_zeros", file, line);
    const uint64_t start = uint64_t(q.wr_ptr) + offset;
    if (__builtin_expect(start + size_bytes <= q.fifo_limit, 1)) return;
    char message[256];
    __builtin_snprintf(message, sizeof message,
                       "Noc::async_write_zeros: %u bytes at %u bytes past CB %u's write pointer run %llu bytes past "
                       "the CB's end (silicon zeroes the memory after it); expected at most %llu bytes there",
                       size_bytes, offset, cb_id, (unsigned long long)(start + size_bytes - q.fifo_limit),
                       (unsigned long long)(start < q.fifo_limit ? q.fifo_limit - start : 0));
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->fail(k, message, file, line);
  }
  // Waits for async_write_zeros into local L1: the reads it issued.
  void write_zeros_l1_barrier(TESSEL_SITE_PARAMS) const { noc_async_read_barrier(noc_id_, TESSEL_SITE); }
  // Zeroes a page of a tensor (or any NoC destination) by writing size_bytes
  // of `zeros`, a CB whose memory at its write pointer holds zeros.
  template <typename Dst, typename Zeros>
  requires __is_base_of(CircularBuffer, Zeros) void async_write_zeros(const Dst& dst, uint32_t size_bytes,
                                                                      const dst_args_t<Dst>& dst_args,
                                                                      const Zeros& zeros, TESSEL_SITE_PARAMS) const {
    noc_async_write(zeros.get_write_ptr(TESSEL_SITE), destination<AddressType::NOC>(dst, dst_args, TESSEL_SITE),
                    size_bytes, noc_id_, TESSEL_SITE);
  }
  void write_zeros_dram_barrier(TESSEL_SITE_PARAMS) const { noc_async_write_barrier(noc_id_, TESSEL_SITE); }

  // Writes to every core of a rectangle; num_dsts counts them (the sender
  // too with NocOptions::MCAST_INCL_SRC).
  template <NocOptions opts = NocOptions::DEFAULT, uint32_t max_page_size = kAnyPageSize,
            bool enable_noc_tracing = true, typename Src, typename Dst>
  void async_write_multicast(const Src& src, const Dst& dst, uint32_t size_bytes, uint32_t num_dsts,
                             const src_args_t<Src>& src_args, const dst_args_mcast_t<Dst>& dst_args,
                             bool linked = false, TESSEL_SITE_PARAMS) const {
    static_assert(!has_flag(opts, NocOptions::TXN_ID), "Noc::async_write_multicast: no transaction ids on multicasts");
    static_assert(!has_flag(opts, NocOptions::POSTED), "Noc::async_write_multicast: multicasts cannot be posted");
    const uint32_t src_l1 = source<AddressType::LOCAL_L1>(src, src_args, TESSEL_SITE);
    const uint64_t dst_mcast = multicast_destination(dst, dst_args, TESSEL_SITE);
    if constexpr (has_flag(opts, NocOptions::MCAST_INCL_SRC))
      noc_async_write_multicast_loopback_src(src_l1, dst_mcast, size_bytes, num_dsts, linked, noc_id_, TESSEL_SITE);
    else
      noc_async_write_multicast(src_l1, dst_mcast, size_bytes, num_dsts, linked, noc_id_, TESSEL_SITE);
  }
  template <McastMode mcast_mode, TxnIdMode txn_id_mode = TxnIdMode::DISABLED,
            ResponseMode response_mode = ResponseMode::NON_POSTED, uint32_t max_page_size = kAnyPageSize,
            bool enable_noc_tracing = true, typename Src, typename Dst>
  void async_write_multicast(const Src& src, const Dst& dst, uint32_t size_bytes, uint32_t num_dsts,
                             const src_args_t<Src>& src_args, const dst_args_mcast_t<Dst>& dst_args,
                             bool linked = false, uint32_t trid = INVALID_TXN_ID, TESSEL_SITE_PARAMS) const {
    (void)trid;
    static_assert(txn_id_mode == TxnIdMode::DISABLED, "Noc::async_write_multicast: no transaction ids on multicasts");
    static_assert(response_mode == ResponseMode::NON_POSTED, "Noc::async_write_multicast: multicasts cannot be posted");
    constexpr NocOptions opts = mcast_mode == McastMode::INCLUDE_SRC ? NocOptions::MCAST_INCL_SRC : NocOptions::DEFAULT;
    async_write_multicast<opts>(src, dst, size_bytes, num_dsts, src_args, dst_args, linked, TESSEL_SITE);
  }

  // Records dst's NoC location for async_write_with_state on this object.
  template <NocOptions opts = NocOptions::DEFAULT, uint32_t max_page_size = kAnyPageSize, typename Dst>
  void set_async_write_state(const Dst& dst, uint32_t size_bytes, const dst_args_t<Dst>& dst_args,
                             const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    static_assert(!has_flag(opts, NocOptions::TXN_ID),
                  "Noc::set_async_write_state: no transaction ids on stateful writes; use async_write<TXN_ID>");
    write_state_ = {destination<AddressType::NOC>(dst, dst_args, TESSEL_SITE), size_bytes, 1};
  }
  template <ResponseMode response_mode, uint32_t max_page_size = kAnyPageSize, typename Dst>
  void set_async_write_state(const Dst& dst, uint32_t size_bytes, const dst_args_t<Dst>& dst_args,
                             uint8_t vc = NOC_UNICAST_WRITE_VC, TESSEL_SITE_PARAMS) const {
    set_async_write_state(dst, size_bytes, dst_args, NocOptVals{vc, 0}, TESSEL_SITE);
  }
  // Writes to the location set_async_write_state recorded (see async_read_with_state).
  template <NocOptions opts = NocOptions::DEFAULT, uint32_t max_page_size = kAnyPageSize, typename Src, typename Dst>
  void async_write_with_state(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                              const dst_args_t<Dst>& dst_args, const NocOptVals& noc_opts = {},
                              TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    static_assert(!has_flag(opts, NocOptions::TXN_ID),
                  "Noc::async_write_with_state: no transaction ids on stateful writes; use async_write<TXN_ID>");
    const TransferState& state = checked_state(write_state_, kNoWriteState, TESSEL_SITE);
    noc_async_write(source<AddressType::LOCAL_L1>(src, src_args, TESSEL_SITE),
                    with_state_address(state, destination<AddressType::NOC>(dst, dst_args, TESSEL_SITE)),
                    max_page_size <= NOC_MAX_BURST_SIZE ? state.size_bytes : size_bytes, noc_id_, TESSEL_SITE);
  }
  template <ResponseMode response_mode, uint32_t max_page_size = kAnyPageSize, typename Src, typename Dst>
  void async_write_with_state(const Src& src, const Dst& dst, uint32_t size_bytes, const src_args_t<Src>& src_args,
                              const dst_args_t<Dst>& dst_args, uint8_t vc = NOC_UNICAST_WRITE_VC,
                              TESSEL_SITE_PARAMS) const {
    async_write_with_state<NocOptions::DEFAULT, max_page_size>(src, dst, size_bytes, src_args, dst_args,
                                                               NocOptVals{vc, 0}, TESSEL_SITE);
  }

  // One 32-bit value to a NoC address of a core's L1 (not DRAM); be enables bytes.
  template <NocOptions opts = NocOptions::DEFAULT, typename Dst>
  void inline_dw_write(const Dst& dst, uint32_t val, const dst_args_t<Dst>& dst_args, uint8_t be = 0xF,
                       const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    static_assert(!has_flag(opts, NocOptions::TXN_ID), "Noc::inline_dw_write: no transaction ids on inline writes");
    static_assert(!(has_flag(opts, NocOptions::INLINE_L1) && has_flag(opts, NocOptions::INLINE_REG)),
                  "Noc::inline_dw_write: INLINE_L1 and INLINE_REG exclude each other");
    static_assert(!tessel_detail::kSameType<Dst, MulticastEndpoint>,
                  "Noc::inline_dw_write: an inline write has one destination, not a MulticastEndpoint");
    noc_inline_dw_write(destination<AddressType::NOC>(dst, dst_args, TESSEL_SITE), val, be, noc_id_, TESSEL_SITE);
  }
  template <TxnIdMode txn_id_mode, InlineWriteDst dst_type = InlineWriteDst::DEFAULT,
            ResponseMode response_mode = ResponseMode::NON_POSTED, typename Dst>
  void inline_dw_write(const Dst& dst, uint32_t val, const dst_args_t<Dst>& dst_args, uint8_t be = 0xF,
                       uint32_t vc = NOC_UNICAST_WRITE_VC, uint32_t trid = INVALID_TXN_ID, TESSEL_SITE_PARAMS) const {
    static_assert(txn_id_mode == TxnIdMode::DISABLED, "Noc::inline_dw_write: no transaction ids on inline writes");
    inline_dw_write(dst, val, dst_args, be, NocOptVals{vc, trid}, TESSEL_SITE);
  }

  // -------------------------------------------------------------------------
  // Barriers: each waits for this RISC's transfers of its kind on this NoC.

  template <NocOptions opts = NocOptions::DEFAULT>
  void async_read_barrier(const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    noc_async_read_barrier(noc_id_, TESSEL_SITE);
  }
  template <BarrierMode barrier_type>
  void async_read_barrier(uint32_t trid = INVALID_TXN_ID, TESSEL_SITE_PARAMS) const {
    (void)trid;
    noc_async_read_barrier(noc_id_, TESSEL_SITE);
  }
  template <NocOptions opts = NocOptions::DEFAULT>
  void async_write_barrier(const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    noc_async_write_barrier(noc_id_, TESSEL_SITE);
  }
  template <BarrierMode barrier_type>
  void async_write_barrier(uint32_t trid = INVALID_TXN_ID, TESSEL_SITE_PARAMS) const {
    (void)trid;
    noc_async_write_barrier(noc_id_, TESSEL_SITE);
  }
  template <NocOptions opts = NocOptions::DEFAULT>
  void async_writes_flushed(const NocOptVals& noc_opts = {}, TESSEL_SITE_PARAMS) const {
    (void)noc_opts;
    noc_async_writes_flushed(noc_id_, TESSEL_SITE);
  }
  template <ResponseMode response_mode, BarrierMode barrier_type = BarrierMode::FULL>
  void async_writes_flushed(uint32_t trid = INVALID_TXN_ID, TESSEL_SITE_PARAMS) const {
    (void)trid;
    noc_async_writes_flushed(noc_id_, TESSEL_SITE);
  }
  void async_atomic_barrier(TESSEL_SITE_PARAMS) const { noc_async_atomic_barrier(noc_id_, TESSEL_SITE); }
  void async_full_barrier(TESSEL_SITE_PARAMS) const { noc_async_full_barrier(noc_id_, TESSEL_SITE); }
  // Waits for all of this RISC's reads on this NoC (there are no per-id
  // counters to poll), so a polling loop sees its data on the first poll.
  bool is_read_trid_flushed(uint32_t trid, TESSEL_SITE_PARAMS) const {
    (void)trid;
    noc_async_read_barrier(noc_id_, TESSEL_SITE);
    return true;
  }

private:
  struct TransferState {
    uint64_t noc_addr;
    uint32_t size_bytes;
    uint32_t set;
  };

  // The traits' address, passing the call site to traits that take it.
  template <AddressType kType, typename Src>
  auto source(const Src& src, const src_args_t<Src>& args, const char* file, uint32_t line) const {
    using Traits = noc_traits_t<Src>;
    if constexpr (requires { Traits::template src_addr<kType>(src, *this, args, file, line); })
      return address_of<kType>(Traits::template src_addr<kType>(src, *this, args, file, line));
    else
      return address_of<kType>(Traits::template src_addr<kType>(src, *this, args));
  }
  template <AddressType kType, typename Dst>
  auto destination(const Dst& dst, const dst_args_t<Dst>& args, const char* file, uint32_t line) const {
    using Traits = noc_traits_t<Dst>;
    if constexpr (requires { Traits::template dst_addr<kType>(dst, *this, args, file, line); })
      return address_of<kType>(Traits::template dst_addr<kType>(dst, *this, args, file, line));
    else
      return address_of<kType>(Traits::template dst_addr<kType>(dst, *this, args));
  }
  template <typename Dst>
  uint64_t multicast_destination(const Dst& dst, const dst_args_mcast_t<Dst>& args, const char* file,
                                 uint32_t line) const {
    using Traits = noc_traits_t<Dst>;
    if constexpr (requires { Traits::template dst_addr_mcast<AddressType::NOC>(dst, *this, args, file, line); })
      return Traits::template dst_addr_mcast<AddressType::NOC>(dst, *this, args, file, line);
    else
      return Traits::template dst_addr_mcast<AddressType::NOC>(dst, *this, args);
  }
  // L1 addresses are 32-bit here (tessel maps L1 below 4 GiB).
  template <AddressType kType, typename A>
  static auto address_of(A addr) {
    if constexpr (kType == AddressType::LOCAL_L1)
      return uint32_t(addr);
    else
      return uint64_t(addr);
  }

  // The state set_async_*_state recorded; without one, fails with `message`.
  static const TransferState& checked_state(const TransferState& state, const char* message, const char* file,
                                            uint32_t line) {
    if (__builtin_expect(!state.set, 0)) {
      tessel_kernel_ctx* k = tessel_ctx();
      k->api->fail(k, message, file, line);
    }
    return state;
  }
  static uint64_t with_state_address(const TransferState& state, uint64_t noc_addr) {
    return (state.noc_addr & ~uint64_t(0xFFFFFFFFu)) | uint32_t(noc_addr);
  }

  uint8_t noc_id_;
  mutable TransferState read_state_ = {};
  mutable TransferState write_state_ = {};
};

// TensorAccessor and the address generators (anything with
// get_noc_addr(page_id, offset, noc) and get_page_size()): args {.page_id, .offset_bytes}.
namespace tessel_detail {
template <typename Accessor>
uint64_t accessor_noc_addr(const Accessor& a, uint32_t page_id, uint32_t offset, uint8_t noc, const char* file,
                           uint32_t line) {
  if constexpr (requires { a.get_noc_addr(page_id, offset, noc, file, line); })
    return a.get_noc_addr(page_id, offset, noc, file, line);
  else
    return a.get_noc_addr(page_id, offset, noc);
}
// A page of an accessor as this core's L1 address: it must be in this core's L1.
template <Noc::AddressType kType, typename Accessor>
auto accessor_address(const Accessor& a, const Noc& noc, uint32_t page_id, uint32_t offset, const char* file,
                      uint32_t line) {
  const uint64_t noc_addr = accessor_noc_addr(a, page_id, offset, noc.get_noc_id(), file, line);
  if constexpr (kType == Noc::AddressType::LOCAL_L1) {
    if (__builtin_expect(!noc.is_local_addr(noc_addr), 0)) {
      tessel_kernel_ctx* k = tessel_ctx();
      k->api->fail(k,
                   "Noc: a tensor page used as this core's L1 source or destination lives on another core or in "
                   "DRAM; pass the tensor as the NoC side of the transfer instead",
                   file, line);
    }
    return uint32_t(noc_addr & TESSEL_NOC_LOCAL_MASK);
  } else {
    return noc_addr;
  }
}
} // namespace tessel_detail

template <typename Accessor>
requires requires(const Accessor& a) {
  a.get_noc_addr(0u, 0u, uint8_t(0));
  a.get_page_size();
}
struct noc_traits_t<Accessor> {
  struct src_args_type {
    uint32_t page_id{};
    uint32_t offset_bytes = 0;
  };
  struct dst_args_type {
    uint32_t page_id{};
    uint32_t offset_bytes = 0;
  };
  template <Noc::AddressType kType>
  static auto src_addr(const Accessor& src, const Noc& noc, const src_args_type& args, const char* file,
                       uint32_t line) {
    return tessel_detail::accessor_address<kType>(src, noc, args.page_id, args.offset_bytes, file, line);
  }
  template <Noc::AddressType kType>
  static auto dst_addr(const Accessor& dst, const Noc& noc, const dst_args_type& args, const char* file,
                       uint32_t line) {
    return tessel_detail::accessor_address<kType>(dst, noc, args.page_id, args.offset_bytes, file, line);
  }
};

// A tensor page (tensor_accessor::Page, from accessor.pages() and
// shard_pages()) as a source or destination: its NoC address, plus
// offset_bytes.
template <>
struct noc_traits_t<tensor_accessor::Page> {
  struct src_args_type {
    uint32_t offset_bytes = 0;
  };
  using dst_args_type = src_args_type;
  template <Noc::AddressType kType>
  static auto src_addr(const tensor_accessor::Page& page, const Noc&, const src_args_type& args, const char*,
                       uint32_t) {
    if constexpr (kType == Noc::AddressType::LOCAL_L1)
      return uint32_t(NOC_LOCAL_ADDR_OFFSET(page.noc_addr()) + args.offset_bytes);
    else
      return page.noc_addr() + args.offset_bytes;
  }
  template <Noc::AddressType kType>
  static auto dst_addr(const tensor_accessor::Page& page, const Noc& noc, const dst_args_type& args, const char* file,
                       uint32_t line) {
    return src_addr<kType>(page, noc, args, file, line);
  }
};

namespace experimental {
using ::Noc;
using ::noc_traits_t;
} // namespace experimental

#endif // TESSEL_NOC_OBJECT_H
