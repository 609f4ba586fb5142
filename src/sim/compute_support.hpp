// What the compute engine's files share (compute.cpp: DST protocol, copy,
// element-wise ops, reduce, transpose, broadcasts, pack; compute_init.cpp:
// inits and reconfigs; compute_matmul.cpp: matmul; compute_sfpu.cpp: SFPU
// ops; compute_welford.cpp: Welford's mean and variance): the checks every op makes on its operands and on DST, and how a call
// is named in messages. The checks are inline, a few
// instructions each on the passing path; the messages are built out of line
// (compute_support.cpp), only when a check fails.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "sim/chip.hpp"
#include "sim/compute.hpp"
#include "sim/formats.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/tile_math.hpp"

namespace tessel::sim::detail {

inline ComputeState& state_of(tessel_kernel_ctx* k) { return *core_of(k).compute; }

inline std::string num(uint32_t v) { return std::to_string(v); }
inline std::string site(const char* file, uint32_t line) { return std::string(file ? file : "?") + ":" + num(line); }

// A call as messages show it, formatted only when something fails (the hot
// path builds no strings).
struct CallText {
  enum Kind : uint8_t {
    Copy,
    Binary,
    Pack,
    Matmul,
    Reduce,
    Transpose,
    Bcast,
    Sfpu,
    SfpuBinary,
    SfpuTernary,
    CopyBlock,
    DestTiles,
    SfpuState,
    Welford
  } kind;
  uint32_t op; // Binary/Bcast: tessel_binary_op; Bcast: (op << 4) | bcast; Reduce: (pool << 4) | dim; Sfpu*: op;
               // DestTiles: (kind << 8) | arg (enum tessel_dest_tiles; its arg); Welford: tessel_welford_op
  uint32_t v[9];
};

// The call as its message names it.
std::string text(const CallText& c);
// A Welford call (compute_welford.cpp); v: idst, a, b, c, lut_size.
std::string welford_text(uint32_t op, const uint32_t* v);
// Names of calls and their template arguments, for messages.
const char* binary_name(uint32_t op);       // add_tiles, sub_tiles, mul_tiles
std::string reduce_text(uint32_t pool_dim); // <SUM, REDUCE_ROW>
const char* bcast_name(uint32_t bcast);     // rows, cols, scalar
std::string bcast_call(uint32_t op_bcast);  // add_tiles_bcast_rows
// " (the last op init was ... at file:line)", or that none was called.
std::string last_init_note(const ComputeState& s);
// " (by call at file:line)" for a configuration's site, if it was set.
std::string site_note(const InitSite& at);

inline ComputeOp binary_compute_op(uint32_t op) {
  return op == TESSEL_BINARY_ADD ? ComputeOp::Add : op == TESSEL_BINARY_SUB ? ComputeOp::Sub : ComputeOp::Mul;
}

// The failing paths (compute_support.cpp). Each ends the calling kernel.
// A compute call on another RISC.
[[noreturn]] void not_compute(tessel_kernel_ctx* k, const char* call, const char* file, uint32_t line);
// A DST index outside the section one acquire holds.
[[noreturn]] void dst_index_error(tessel_kernel_ctx* k, const CallText& what, uint32_t idst, const char* file,
                                  uint32_t line);
// A DST write while MATH holds no section.
[[noreturn]] void math_not_holding(tessel_kernel_ctx* k, const CallText& what, const char* file, uint32_t line);
// An op whose init is missing: `need` says which, the last op init is named.
[[noreturn]] void missing_init(tessel_kernel_ctx* k, const CallText& what, const char* need, const char* file,
                               uint32_t line);
// A binary op whose own *_tiles_init is not the most recent op init.
[[noreturn]] void missing_op_init(tessel_kernel_ctx* k, const CallText& what, const char* name, const char* file,
                                  uint32_t line);
// An operand CB whose format is not the one the unpacker's SrcA (which = 0)
// or SrcB (1) is configured for.
[[noreturn]] void unpack_format_error(tessel_kernel_ctx* k, const CallText& what, uint32_t cb, uint32_t which,
                                      const char* file, uint32_t line);

// The compute calls exist only on the compute RISC (its ComputeState).
inline void check_compute(tessel_kernel_ctx* k, const char* call, const char* file, uint32_t line) {
  if (__builtin_expect(k->risc != TESSEL_RISC_COMPUTE, 0)) not_compute(k, call, file, line);
}

// A CB as an operand: configured, in a format the engine converts, pages
// large enough for a tile.
inline tessel_cb_iface& operand_cb(tessel_kernel_ctx* k, const char* call, const CallText& what, uint32_t cb,
                                   const char* file, uint32_t line) {
  if (__builtin_expect(cb >= k->num_cb_indices || !k->cbs[cb].configured, 0)) {
    k->api->fail_cb(k, call, cb, file, line);
    __builtin_unreachable();
  }
  tessel_cb_iface& q = k->cbs[cb];
  const DataFormat format = DataFormat(q.data_format);
  if (__builtin_expect(!is_packable(format), 0)) {
    std::string msg =
        text(what) + ": CB " + num(cb) + " holds " + to_string(format) +
        ", which the compute engine does not convert; expected Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, "
        "UInt32, UInt16 or UInt8";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(q.page_size < q.tile_size, 0)) {
    std::string msg = text(what) + ": CB " + num(cb) + " has " + num(q.page_size) + "-byte pages, smaller than one " +
                      to_string(format) + " tile (" + num(q.tile_size) + " bytes)";
    fail(k, std::move(msg), file, line);
  }
  return q;
}

// Pointer to tile `itile` from the front of an input CB this RISC waited for.
inline const uint8_t* front_tile(tessel_kernel_ctx* k, const char* call, const CallText& what, uint32_t cb,
                                 uint32_t itile, const char* file, uint32_t line) {
  tessel_cb_iface& q = operand_cb(k, call, what, cb, file, line);
  const uint8_t consumer = core_of(k).cb_consumer[cb];
  if (__builtin_expect(consumer != TESSEL_RISC_COMPUTE + 1 || itile >= q.waited_pages, 0)) {
    if (consumer != 0 && consumer != TESSEL_RISC_COMPUTE + 1) {
      std::string msg = text(what) + ": CB " + num(cb) + " is consumed on this core by " +
                        Chip::risc_name(consumer - 1u) + "; a CB has one consumer RISC";
      fail(k, std::move(msg), file, line);
    }
    // A CB that is a buffer's memory holds the buffer's data whether or not
    // anything pushed it: silicon reads it there, a likely bug, a warning.
    if ((core_of(k).cb_global_mask >> cb & 1) && itile < q.num_pages) {
      core_of(k).chip->warn(fiber_of(k),
                            text(what) + ": tile " + num(itile) + " of CB " + num(cb) +
                                " was not waited for; the CB is a buffer's memory "
                                "(set_globally_allocated_address), so silicon reads the buffer's data there, but "
                                "nothing said it is ready: call cb_wait_front(" +
                                num(cb) + ", n) first (and cb_push_back on the side that fills it)",
                            file, line);
      return reinterpret_cast<const uint8_t*>(uintptr_t(q.rd_ptr) + uintptr_t(itile) * q.page_size);
    }
    if (consumer == 0 || q.waited_pages == 0) {
      std::string msg =
          text(what) + ": no pages of CB " + num(cb) + " are waited for: call cb_wait_front(" + num(cb) + ", n) first";
      fail(k, std::move(msg), file, line);
    }
    {
      std::string msg = text(what) + ": tile " + num(itile) + " of CB " + num(cb) + " is beyond the " +
                        num(q.waited_pages) + (q.waited_pages == 1 ? " page" : " pages") +
                        " waited for with cb_wait_front (tile indices 0.." + num(q.waited_pages - 1) + ")";
      fail(k, std::move(msg), file, line);
    }
  }
  return reinterpret_cast<const uint8_t*>(uintptr_t(q.rd_ptr) + uintptr_t(itile) * q.page_size);
}

// DST tile idst of the section MATH holds.
// How an op uses a DST tile: Overwrite writes every element without reading
// it; Update reads it (so a logically zero tile is zeroed first).
enum class Access : uint8_t { Overwrite, Update };

// fresh (if given): whether the tile was untouched since the acquire.
inline float* math_dst(tessel_kernel_ctx* k, const CallText& what, uint32_t idst, const char* file, uint32_t line,
                       Access access, bool* fresh = nullptr) {
  ComputeState& s = state_of(k);
  if (__builtin_expect(!s.math_holds, 0)) math_not_holding(k, what, file, line);
  if (__builtin_expect(idst >= dst_capacity(k), 0)) dst_index_error(k, what, idst, file, line);
  const uint32_t t = section_base(k, s.acquires - 1) + idst;
  const uint32_t bit = 1u << t;
  if (fresh) *fresh = (s.zero_mask & bit) != 0;
  if ((s.zero_mask & bit) && access == Access::Update) std::memset(s.dst[t], 0, sizeof s.dst[t]);
  s.zero_mask &= ~bit;
  return s.dst[t];
}

inline void check_unpack_format(tessel_kernel_ctx* k, const CallText& what, uint32_t cb, uint32_t which,
                                const char* file, uint32_t line) {
  const ComputeState& s = state_of(k);
  const DataFormat want = which ? s.fmt_b : s.fmt_a;
  if (__builtin_expect(want != DataFormat::Invalid && DataFormat(k->cbs[cb].data_format) != want, 0))
    unpack_format_error(k, what, cb, which, file, line);
}

// FPU multiplies (matmul, reduce) work on floating-point formats only.
inline void check_float_operand(tessel_kernel_ctx* k, const CallText& what, uint32_t cb, const char* file,
                                uint32_t line) {
  const DataFormat f = DataFormat(k->cbs[cb].data_format);
  if (__builtin_expect(f != DataFormat::Float16_b && f != DataFormat::Float32 && f != DataFormat::Bfp8_b &&
                           f != DataFormat::Bfp4_b,
                       0)) {
    std::string msg = text(what) + ": CB " + num(cb) + " holds " + to_string(f) +
                      "; this FPU op takes floating-point tiles (Float32, Float16_b, Bfp8_b or Bfp4_b)";
    fail(k, std::move(msg), file, line);
  }
}

// Unpacks a CB tile into a source register (SrcA/SrcB): 19 bits, so Float32
// values keep 10 explicit mantissa bits (the other formats fit).
inline void unpack_src(DataFormat format, const uint8_t* tile, float* out) {
  unpack_tile(format, tile, out);
  if (format == DataFormat::Float32) keep_mantissa_bits(out, kSrcBits);
}

// Requires the FPU to be started (a full init ran).
inline void need_hw(tessel_kernel_ctx* k, const CallText& what, const char* file, uint32_t line) {
  if (__builtin_expect(!state_of(k).hw_started, 0))
    missing_init(k, what,
                 "the unpacker, FPU and packer are not configured: call compute_kernel_hw_startup (or the op's full "
                 "init, e.g. binary_op_init_common, mm_init) first",
                 file, line);
}

// Asks for the host cache lines of [p, p + size_bytes) into every cache level
// (kLocality 3) or into L2 and beyond (2). CB pages are often not in the
// host's caches when an op reads them (other cores ran since they were
// written): asking for all of an op's pages at once overlaps their misses.
template <int kLocality = 3>
inline void prefetch(const void* p, uint32_t size_bytes) {
  for (uint32_t offset = 0; offset < size_bytes; offset += 64)
    __builtin_prefetch(static_cast<const char*>(p) + offset, 0, kLocality);
}

// A DST tile rounded to bfloat16 precision, in place (when not
// fp32_dest_acc_en; compute.cpp).
void round_in_place(float* d);

// Page `page` from the front of a CB (no checks).
inline const void* front_page(const tessel_cb_iface& q, uint32_t page) {
  return reinterpret_cast<const void*>(uintptr_t(q.rd_ptr) + uintptr_t(page) * q.page_size);
}

} // namespace tessel::sim::detail
