// Kernel API shared by data-movement and compute kernels: runtime and
// compile-time arguments, circular buffers, core identity, DPRINT, ASSERT.
//
// Every call that can misuse the device takes its call site as trailing
// default arguments (__builtin_FILE/__builtin_LINE) so a failure names the
// kernel's own source line. Standard-library free, so kernels compile fast.
#ifndef TESSEL_KERNEL_COMMON_H
#define TESSEL_KERNEL_COMMON_H

#include "tessel/cb_interface.h"
#include "tessel/kernel_abi.h"

#define TESSEL_SITE_PARAMS const char *tessel_file = __builtin_FILE(), uint32_t tessel_line = __builtin_LINE()
#define TESSEL_SITE tessel_file, tessel_line

// Data formats, TT-Metalium numbering.
enum class DataFormat : uint8_t {
  Float32 = 0,
  Float16 = 1,
  Bfp8 = 2,
  Bfp4 = 3,
  Tf32 = 4,
  Float16_b = 5,
  Bfp8_b = 6,
  Bfp4_b = 7,
  Int32 = 8,
  UInt16 = 9,
  Lf8 = 10,
  Bfp2 = 11,
  Int16 = 13,
  Int8 = 14,
  Bfp2_b = 15,
  UInt32 = 24,
  UInt8 = 30,
  Invalid = 255,
};

#include "hostdevcommon/kernel_structs.h"

// Address-space qualifiers of Metalium's RISC-V compiler: nothing on the host.
#define tt_l1_ptr
#define tt_reg_ptr
// The function attributes Metalium's kernel headers define (risc_attribs.h,
// common_globals.h), which kernels and their helper headers use.
#ifndef FORCE_INLINE
#define FORCE_INLINE inline __attribute__((always_inline))
#endif
#ifndef ALWI
#define ALWI inline __attribute__((always_inline))
#endif

// The C++ standard headers Metalium's kernel headers bring in, for kernels
// that use std:: names without including them (tessel/kernel_std.h).
#include "tessel/kernel_std.h"

namespace tessel_detail {

[[noreturn]] inline void index_error(const char* call, int index, const char* what, uint32_t count, const char* file,
                                     uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail_index(k, call, index, what, count, file, line);
  __builtin_unreachable();
}

// An argument index at or past the `count` arguments this core was given.
// Inside the argument area (TESSEL_MAX_RUNTIME_ARGS words) silicon reads
// whatever the area holds: the simulator warns and this returns; past it,
// the simulator fails the kernel.
inline void arg_past_count(const char* call, int index, const char* what, uint32_t count, const char* file,
                           uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail_index(k, call, index, what, count, file, line);
}

template <typename T>
inline T bit_cast_u32(uint32_t v) {
  static_assert(sizeof(T) == 4, "runtime arguments are 4-byte values: get_arg_val<T> needs a 4-byte T");
  T t;
  __builtin_memcpy(&t, &v, 4);
  return t;
}

inline tessel_cb_iface& cb(uint32_t id, const char* call, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(id >= k->num_cb_indices || !k->cbs[id].configured, 0)) {
    k->api->fail_cb(k, call, id, file, line);
    __builtin_unreachable();
  }
  return k->cbs[id];
}

struct CoordArray {
  uint32_t v;
  uint32_t operator[](int) const { return v; }
  operator uint32_t() const { return v; }
};

} // namespace tessel_detail

// ---------------------------------------------------------------------------
// Arguments

template <typename T>
inline T get_arg_val(int arg_idx, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(uint32_t(arg_idx) >= k->rt_arg_count, 0))
    tessel_detail::arg_past_count("get_arg_val", arg_idx, "runtime argument", k->rt_arg_count, TESSEL_SITE);
  return tessel_detail::bit_cast_u32<T>(k->rt_args[arg_idx]);
}

inline uint32_t get_arg_addr(int arg_idx, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(uint32_t(arg_idx) >= k->rt_arg_count, 0))
    tessel_detail::arg_past_count("get_arg_addr", arg_idx, "runtime argument", k->rt_arg_count, TESSEL_SITE);
  return uint32_t(uintptr_t(&k->rt_args[arg_idx]));
}

template <typename T>
inline T get_common_arg_val(int arg_idx, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(uint32_t(arg_idx) >= k->common_arg_count, 0))
    tessel_detail::arg_past_count("get_common_arg_val", arg_idx, "common runtime argument", k->common_arg_count,
                                  TESSEL_SITE);
  return tessel_detail::bit_cast_u32<T>(k->common_args[arg_idx]);
}

inline uint32_t get_common_arg_addr(int arg_idx, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(uint32_t(arg_idx) >= k->common_arg_count, 0))
    tessel_detail::arg_past_count("get_common_arg_addr", arg_idx, "common runtime argument", k->common_arg_count,
                                  TESSEL_SITE);
  return uint32_t(uintptr_t(&k->common_args[arg_idx]));
}

// ---------------------------------------------------------------------------
// Circular buffers

inline void cb_reserve_back(uint32_t cb_id, uint32_t num_pages, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->cb_reserve_back(k, cb_id, num_pages, TESSEL_SITE);
}
inline void cb_push_back(uint32_t cb_id, uint32_t num_pages, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->cb_push_back(k, cb_id, num_pages, TESSEL_SITE);
}
inline void cb_wait_front(uint32_t cb_id, uint32_t num_pages, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->cb_wait_front(k, cb_id, num_pages, TESSEL_SITE);
}
inline void cb_pop_front(uint32_t cb_id, uint32_t num_pages, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->cb_pop_front(k, cb_id, num_pages, TESSEL_SITE);
}
// Non-blocking polls. A "no" lets the other RISCs run before returning, so a
// polling loop makes progress on the simulator's cooperative scheduler.
inline bool cb_pages_reservable_at_back(uint32_t cb_id, uint32_t num_pages, TESSEL_SITE_PARAMS) {
  tessel_cb_iface& q = tessel_detail::cb(cb_id, "cb_pages_reservable_at_back", TESSEL_SITE);
  tessel_kernel_ctx* k = tessel_ctx();
  if (q.num_pages - uint16_t(q.received - q.acked) >= num_pages) {
    if (__builtin_expect(tessel_stalled(k), 0)) k->api->stalled(k, "cb_pages_reservable_at_back", TESSEL_SITE);
    return true;
  }
  k->api->cb_poll(k, cb_id, num_pages, 0, TESSEL_SITE);
  return q.num_pages - uint16_t(q.received - q.acked) >= num_pages;
}
inline bool cb_pages_available_at_front(uint32_t cb_id, uint32_t num_pages, TESSEL_SITE_PARAMS) {
  tessel_cb_iface& q = tessel_detail::cb(cb_id, "cb_pages_available_at_front", TESSEL_SITE);
  tessel_kernel_ctx* k = tessel_ctx();
  if (uint16_t(q.received - q.acked) >= num_pages) {
    if (__builtin_expect(tessel_stalled(k), 0)) k->api->stalled(k, "cb_pages_available_at_front", TESSEL_SITE);
    return true;
  }
  k->api->cb_poll(k, cb_id, num_pages, 1, TESSEL_SITE);
  return uint16_t(q.received - q.acked) >= num_pages;
}
// Metalium's view of the CB's state (tessel/cb_interface.h), a reference as
// Metalium's is (`LocalCBInterface& cb = get_local_cb_interface(id);`): one
// view per CB index in the kernel's globals, re-pointed at each call.
inline LocalCBInterface& get_local_cb_interface(uint32_t cb_id, TESSEL_SITE_PARAMS) {
  static LocalCBInterface views[TESSEL_MAX_CBS];
  const tessel_detail::CbSite s{&tessel_detail::cb(cb_id, "get_local_cb_interface", TESSEL_SITE), cb_id, TESSEL_SITE};
  LocalCBInterface& v = views[cb_id];
  // The sites, not the fields: a field's assignment writes the CB's state.
  v.fifo_size.site = v.fifo_limit.site = v.fifo_page_size.site = v.fifo_num_pages.site = v.fifo_rd_ptr.site =
      v.fifo_wr_ptr.site = v.tiles_acked.site = v.tiles_received.site = v.fifo_wr_tile_ptr.site = s;
  return v;
}
inline uint32_t get_write_ptr(uint32_t cb_id, TESSEL_SITE_PARAMS) {
  return tessel_detail::cb(cb_id, "get_write_ptr", TESSEL_SITE).wr_ptr;
}
inline uint32_t get_read_ptr(uint32_t cb_id, TESSEL_SITE_PARAMS) {
  return tessel_detail::cb(cb_id, "get_read_ptr", TESSEL_SITE).rd_ptr;
}
// get_tile_size(cb) is a constant expression, as in Metalium, for a CB
// configured alike on every core the kernel runs on: the JIT passes those
// tile sizes (TESSEL_CB_TILE_SIZES) to kernels that name get_tile_size.
#include "tessel/cb_formats.h"
namespace tessel_detail {
#ifdef TESSEL_CB_TILE_SIZES
inline constexpr uint32_t cb_tile_sizes[] = {TESSEL_CB_TILE_SIZES};
#endif
// Not constexpr on purpose: reaching one during constant evaluation makes
// the compiler reject the kernel with the function's name in the error.
inline uint32_t error_cb_not_configured_alike_on_the_kernels_cores() { return 0; }
inline uint32_t error_cb_index_out_of_range() { return 0; }
constexpr uint32_t constant_tile_size(uint32_t cb_id) {
#ifdef TESSEL_CB_TILE_SIZES
  if (cb_id >= sizeof(cb_tile_sizes) / sizeof(cb_tile_sizes[0])) return error_cb_index_out_of_range();
  return cb_tile_sizes[cb_id] ? cb_tile_sizes[cb_id] : error_cb_not_configured_alike_on_the_kernels_cores();
#else
  // (The unreachable first branch keeps this a valid constexpr function.)
  return cb_id == ~0u ? 0u : error_cb_not_configured_alike_on_the_kernels_cores();
#endif
}
} // namespace tessel_detail
constexpr uint32_t get_tile_size(uint32_t cb_id, TESSEL_SITE_PARAMS) {
  if (__builtin_is_constant_evaluated()) return tessel_detail::constant_tile_size(cb_id);
  return tessel_detail::cb(cb_id, "get_tile_size", TESSEL_SITE).tile_size;
}
// Tiles are 32x32 of 4 faces: a constant expression as in Metalium.
constexpr uint32_t get_tile_hw(uint32_t cb_id, TESSEL_SITE_PARAMS) {
  if (__builtin_is_constant_evaluated()) return 1024;
  (void)tessel_detail::cb(cb_id, "get_tile_hw", TESSEL_SITE);
  return 1024;
}
constexpr uint32_t get_tile_num_faces(uint32_t cb_id, TESSEL_SITE_PARAMS) {
  if (__builtin_is_constant_evaluated()) return 4;
  (void)tessel_detail::cb(cb_id, "get_tile_num_faces", TESSEL_SITE);
  return 4;
}
// get_dataformat(cb) is a constant expression, as in Metalium, for a CB
// configured alike on every core the kernel runs on (the JIT's format
// table, tessel/cb_formats.h).
namespace tessel_detail {
constexpr DataFormat constant_dataformat(uint32_t cb_id) {
#ifdef TESSEL_CB_DATA_FORMATS
  if (cb_id >= sizeof(unpack_src_format) / sizeof(unpack_src_format[0]))
    return DataFormat(error_cb_index_out_of_range());
  return unpack_src_format[cb_id] != 255 ? DataFormat(unpack_src_format[cb_id])
                                         : DataFormat(error_cb_not_configured_alike_on_the_kernels_cores());
#else
  return cb_id == ~0u ? DataFormat::Invalid : DataFormat(error_cb_not_configured_alike_on_the_kernels_cores());
#endif
}
} // namespace tessel_detail
constexpr DataFormat get_dataformat(uint32_t cb_id, TESSEL_SITE_PARAMS) {
  if (__builtin_is_constant_evaluated()) return tessel_detail::constant_dataformat(cb_id);
  return DataFormat(tessel_detail::cb(cb_id, "get_dataformat", TESSEL_SITE).data_format);
}

// Blackhole's RISCs cache L1 loads; kernels invalidate the cache before
// reading what another RISC or the NoC wrote. The simulator's L1 is the
// host's memory, which every RISC sees as it is: nothing to invalidate.
inline __attribute__((always_inline)) void invalidate_l1_cache() {}

// ---------------------------------------------------------------------------
// Core identity

#define noc_index (uint8_t(tessel_ctx()->noc_index))
#define my_x (tessel_detail::CoordArray{tessel_ctx()->noc_x})
#define my_y (tessel_detail::CoordArray{tessel_ctx()->noc_y})
inline uint32_t get_absolute_logical_x() { return tessel_ctx()->logical_x; }
inline uint32_t get_absolute_logical_y() { return tessel_ctx()->logical_y; }
inline uint32_t get_relative_logical_x() { return tessel_ctx()->logical_x; }
inline uint32_t get_relative_logical_y() { return tessel_ctx()->logical_y; }

// ---------------------------------------------------------------------------
// Debug: ASSERT, WAYPOINT, profiler zones

#define ASSERT(cond, ...)                                                                                              \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      tessel_kernel_ctx* tessel_k = tessel_ctx();                                                                      \
      tessel_k->api->fail(tessel_k, "ASSERT(" #cond ") failed", __FILE__, __LINE__);                                   \
    }                                                                                                                  \
  } while (0)
#define WAYPOINT(x) ((void)0)
// The no-op spelling for headers used without the prelude; the prelude's
// profiler (tessel/profiler.h) defines the real one, whichever comes first.
#ifndef DeviceZoneScopedN
#define DeviceZoneScopedN(name) ((void)0)
#endif

#endif // TESSEL_KERNEL_COMMON_H
