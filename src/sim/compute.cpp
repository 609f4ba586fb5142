// The compute engine: DST protocol, inits, unpack -> FPU op -> DST, pack.
// Invariants and the DST layout are in compute.hpp.
//
// Numerics (docs/numerics.md): unpack converts the CB tile to float exactly
// (formats.cpp); an op computes in float; the value written to DST is
// rounded to bfloat16 precision unless fp32_dest_acc_en; pack converts to the
// output CB's format. Every loop over a tile is a plain float loop the
// compiler vectorises.
#include "sim/compute.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "sim/chip.hpp"
#include "sim/formats.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/sfpu.hpp"
#include "sim/simd.hpp"
#include "sim/tile_math.hpp"
#include "tessel/tile.hpp"

namespace tessel::sim {

void ComputeState::reset() {
  zero_mask = ~0u;
  hw_started = false;
  op = ComputeOp::None;
  acc_to_dest = false;
  op_arg = 0;
  op_init_call = op_init_file = nullptr;
  op_init_line = 0;
  fmt_a = fmt_b = fmt_pack = DataFormat::Invalid;
  fmt_a_site = fmt_b_site = fmt_pack_site = sfpu_site = unpack_binary_site = {};
  sfpu_mask = sfpu_binary_mask = 0;
  math_holds = pack_holds = legacy = false;
  committed = acquires = releases = 0;
  acquire_file = nullptr;
  acquire_line = 0;
  std::memset(pack_cursor, 0, sizeof pack_cursor);
}

void reset_compute(Core& core) {
  if (!core.compute) core.compute = std::make_unique<ComputeState>();
  core.compute->reset();
  tessel_sfpi_window& w = core.ctx[TESSEL_RISC_COMPUTE].sfpi;
  w = tessel_sfpi_window{};
  w.lanes = ~0u;
}

std::string dst_left_held(const ComputeState& s, const char** file, uint32_t* line) {
  if (!s.math_holds && !s.pack_holds && s.committed == 0) return {};
  *file = s.acquire_file;
  *line = s.acquire_line;
  return s.legacy ? "kernel ended holding DST (acquired here with acquire_dst): call release_dst before returning"
                  : "kernel ended holding DST (last acquired here): every tile_regs_acquire needs its "
                    "tile_regs_commit, tile_regs_wait and tile_regs_release before the kernel returns";
}

namespace {

inline ComputeState& state_of(tessel_kernel_ctx* k) { return *core_of(k).compute; }

std::string num(uint32_t v) { return std::to_string(v); }
std::string site(const char* file, uint32_t line) { return std::string(file ? file : "?") + ":" + num(line); }

const char* binary_name(uint32_t op) {
  return op == TESSEL_BINARY_ADD ? "add_tiles" : op == TESSEL_BINARY_SUB ? "sub_tiles" : "mul_tiles";
}
ComputeOp binary_compute_op(uint32_t op) {
  return op == TESSEL_BINARY_ADD ? ComputeOp::Add : op == TESSEL_BINARY_SUB ? ComputeOp::Sub : ComputeOp::Mul;
}

// A call as messages show it, formatted only when something fails (the hot
// path builds no strings).
struct CallText {
  enum Kind : uint8_t { Copy, Binary, Pack, Matmul, Reduce, Transpose, Bcast, Sfpu, SfpuBinary, CopyBlock } kind;
  uint32_t op; // Binary/Bcast: tessel_binary_op; Bcast: (op << 4) | bcast; Reduce: (pool << 4) | dim; Sfpu*: op
  uint32_t v[9];
};

const char* pool_name(uint32_t pool) {
  return pool == TESSEL_POOL_SUM ? "SUM" : pool == TESSEL_POOL_AVG ? "AVG" : "MAX";
}
const char* dim_name(uint32_t dim) {
  return dim == TESSEL_REDUCE_ROW ? "REDUCE_ROW" : dim == TESSEL_REDUCE_COL ? "REDUCE_COL" : "REDUCE_SCALAR";
}
std::string reduce_text(uint32_t pool_dim) {
  return std::string("<") + pool_name(pool_dim >> 4) + ", " + dim_name(pool_dim & 15u) + ">";
}
const char* bcast_name(uint32_t b) {
  return b == TESSEL_BCAST_ROW ? "rows" : b == TESSEL_BCAST_COL ? "cols" : "scalar";
}
std::string bcast_call(uint32_t op_bcast) {
  const uint32_t op = op_bcast >> 4;
  return std::string(op == TESSEL_BINARY_ADD   ? "add"
                     : op == TESSEL_BINARY_SUB ? "sub"
                                               : "mul") +
         "_tiles_bcast_" + bcast_name(op_bcast & 15u);
}

TESSEL_COLD std::string text(const CallText& c) {
  const uint32_t* v = c.v;
  switch (c.kind) {
  case CallText::Copy: return "copy_tile(cb=" + num(v[0]) + ", itile=" + num(v[1]) + ", idst=" + num(v[2]) + ")";
  case CallText::Binary:
    return std::string(binary_name(c.op)) + "(cb0=" + num(v[0]) + ", cb1=" + num(v[1]) + ", itile0=" + num(v[2]) +
           ", itile1=" + num(v[3]) + ", idst=" + num(v[4]) + ")";
  case CallText::Matmul:
    if (v[6] == 1 && v[7] == 1 && v[8] == 1)
      return "matmul_tiles(in0=" + num(v[0]) + ", in1=" + num(v[1]) + ", itile0=" + num(v[2]) +
             ", itile1=" + num(v[3]) + ", idst=" + num(v[4]) + (v[5] ? ", transpose=1)" : ")");
    return "matmul_block(in0=" + num(v[0]) + ", in1=" + num(v[1]) + ", itile0=" + num(v[2]) + ", itile1=" + num(v[3]) +
           ", idst=" + num(v[4]) + ", transpose=" + num(v[5]) + ", ct_dim=" + num(v[6]) + ", rt_dim=" + num(v[7]) +
           ", kt_dim=" + num(v[8]) + ")";
  case CallText::Reduce:
    return "reduce_tile" + reduce_text(c.op) + "(cb=" + num(v[0]) + ", cb_scaler=" + num(v[1]) +
           ", itile=" + num(v[2]) + ", itile_scaler=" + num(v[3]) + ", idst=" + num(v[4]) + ")";
  case CallText::Transpose:
    return "transpose_wh_tile(cb=" + num(v[0]) + ", itile=" + num(v[1]) + ", idst=" + num(v[2]) + ")";
  case CallText::Bcast:
    return bcast_call(c.op) + "(cb0=" + num(v[0]) + ", cb1=" + num(v[1]) + ", itile0=" + num(v[2]) +
           ", itile1=" + num(v[3]) + ", idst=" + num(v[4]) + ")";
  case CallText::Sfpu: return std::string(sfpu_name(c.op)) + "(idst=" + num(v[0]) + ")";
  case CallText::SfpuBinary:
    return std::string(sfpu_binary_name(c.op)) + "(idst0=" + num(v[0]) + ", idst1=" + num(v[1]) +
           ", odst=" + num(v[2]) + ")";
  case CallText::CopyBlock:
    return "copy_block_matmul_partials(cb=" + num(v[0]) + ", start_itile=" + num(v[1]) + ", start_idst=" + num(v[2]) +
           ", ntiles=" + num(v[3]) + ")";
  default: return "pack_tile(idst=" + num(v[0]) + ", cb=" + num(v[1]) + ")";
  }
}

// The compute calls exist only on the compute RISC (its ComputeState).
TESSEL_COLD void not_compute(tessel_kernel_ctx* k, const char* call, const char* file, uint32_t line) {
  {
    std::string msg = std::string(call) + " is a compute kernel call, but this kernel runs on " +
                      Chip::risc_name(k->risc) + " (create it with a ComputeConfig)";
    fail(k, std::move(msg), file, line);
  }
}
inline void check_compute(tessel_kernel_ctx* k, const char* call, const char* file, uint32_t line) {
  if (__builtin_expect(k->risc != TESSEL_RISC_COMPUTE, 0)) not_compute(k, call, file, line);
}

} // namespace

std::string dst_mode(const tessel_kernel_ctx* k) {
  return std::string(k->dst_full_sync_en ? "full-sync" : "half-sync") +
         (k->fp32_dest_acc_en ? " with fp32_dest_acc_en" : " with 16-bit DST");
}

namespace {

[[noreturn]] TESSEL_COLD void dst_index_error(tessel_kernel_ctx* k, const CallText& what, uint32_t idst,
                                              const char* file, uint32_t line) {
  const uint32_t cap = dst_capacity(k);
  {
    std::string msg = text(what) + ": DST index " + num(idst) + " is out of range: one acquire holds " + num(cap) +
                      " tiles in " + dst_mode(k) + " mode (indices 0.." + num(cap - 1) +
                      "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)";
    fail(k, std::move(msg), file, line);
  }
}

[[noreturn]] TESSEL_COLD void math_not_holding(tessel_kernel_ctx* k, const CallText& what, const char* file,
                                               uint32_t line) {
  const ComputeState& s = state_of(k);
  {
    std::string msg = text(what) +
                      ": MATH does not hold DST: call tile_regs_acquire (or acquire_dst) before writing DST" +
                      (s.committed ? " (the last section was already handed to PACK with tile_regs_commit)" : "");
    fail(k, std::move(msg), file, line);
  }
}

std::string last_init_note(const ComputeState& s) {
  if (!s.op_init_call) return " (no op init was called in this kernel)";
  return std::string(" (the last op init was ") + s.op_init_call + " at " + site(s.op_init_file, s.op_init_line) + ")";
}

[[noreturn]] TESSEL_COLD void missing_init(tessel_kernel_ctx* k, const CallText& what, const char* need,
                                           const char* file, uint32_t line) {
  {
    std::string msg = text(what) + ": " + need + last_init_note(state_of(k));
    fail(k, std::move(msg), file, line);
  }
}

// A binary op whose own *_tiles_init is not the most recent op init. The
// message is built here, not by the caller: a failing kernel's frame is
// abandoned, never unwound, so the caller must hold no strings.
[[noreturn]] TESSEL_COLD void missing_op_init(tessel_kernel_ctx* k, const CallText& what, const char* name,
                                              const char* file, uint32_t line) {
  std::string msg = text(what) + ": the FPU is not configured for " + name + ": call " + name +
                    "_init(cb0, cb1) first" + last_init_note(state_of(k));
  fail(k, std::move(msg), file, line); // msg is left empty: nothing leaks from this abandoned frame
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

// ---- Data-format configuration ----

std::string site_note(const InitSite& at) {
  return at.call ? std::string(" (by ") + at.call + " at " + site(at.file, at.line) + ")" : std::string();
}

// An operand CB whose format is not the one the unpacker's SrcA (which = 0)
// or SrcB (1) is configured for. Unset configuration (no full init yet) is
// reported by the init checks, not here.
[[noreturn]] TESSEL_COLD void unpack_format_error(tessel_kernel_ctx* k, const CallText& what, uint32_t cb,
                                                  uint32_t which, const char* file, uint32_t line) {
  const ComputeState& s = state_of(k);
  const DataFormat want = which ? s.fmt_b : s.fmt_a;
  const char* reg = which ? "SrcB" : "SrcA";
  std::string msg = text(what) + ": CB " + num(cb) + " holds " + to_string(DataFormat(k->cbs[cb].data_format)) +
                    ", but the unpacker's " + reg + " is configured for " + to_string(want) +
                    site_note(which ? s.fmt_b_site : s.fmt_a_site) + ": call reconfig_data_format_" +
                    (which ? "srcb(" : "srca(") + num(cb) + ") (or reconfig_data_format) first";
  fail(k, std::move(msg), file, line);
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

// Per-thread scratch for ops that unpack several tiles (a matmul block holds
// up to 16 in0 and 16 in1 tiles). Ops never yield mid-call, so one per host
// thread is enough.
struct Scratch {
  alignas(64) float sa[kTileHW]; // unpacked operands (SrcA / SrcB)
  alignas(64) float sb[kTileHW];
  alignas(64) float a[kDstTiles][kTileHW];
  alignas(64) float b[kDstTiles][kTileHW];
  alignas(64) float a2[kDstTiles][kTileHW];
  alignas(64) float b2[kDstTiles][kTileHW];
  alignas(64) float c[kTileHW];
  alignas(64) float t[kTileHW];
};
Scratch& scratch() {
  thread_local std::unique_ptr<Scratch> s = std::make_unique<Scratch>();
  return *s;
}

// Unpacks a CB tile into a source register (SrcA/SrcB): 19 bits, so Float32
// values keep 10 explicit mantissa bits (the other formats fit).
inline void unpack_src(DataFormat format, const uint8_t* tile, float* out) {
  unpack_tile(format, tile, out);
  if (format == DataFormat::Float32) keep_mantissa_bits(out, kSrcBits);
}

// Unpacks tile `itile` of cb (checked) into `out`, as a source register holds it.
inline void unpack_src_tile(tessel_kernel_ctx* k, const char* call, const CallText& what, uint32_t cb, uint32_t itile,
                            float* out, const char* file, uint32_t line) {
  const uint8_t* tile = front_tile(k, call, what, cb, itile, file, line);
  unpack_src(DataFormat(k->cbs[cb].data_format), tile, out);
}

// Unpacks tile `itile` of cb (checked) into `rows`, row-major, as a source register holds it.
inline void unpack_rows(tessel_kernel_ctx* k, const char* call, const CallText& what, uint32_t cb, uint32_t itile,
                        float* rows, float* tmp, const char* file, uint32_t line) {
  const uint8_t* tile = front_tile(k, call, what, cb, itile, file, line);
  unpack_src(DataFormat(k->cbs[cb].data_format), tile, tmp);
  to_rows(tmp, rows);
}

// ---- Tile loops (vectorised) ----

template <bool kRound>
TESSEL_TILE_LOOP void store(float* __restrict d, const float* __restrict v) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    d[i] = kRound ? round_to_bf16(v[i]) : v[i];
}

TESSEL_TILE_LOOP void round_in_place(float* d) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    d[i] = round_to_bf16(d[i]);
}

template <uint32_t kOp, bool kAcc, bool kRound>
TESSEL_TILE_LOOP void binary_loop(float* __restrict d, const float* __restrict a, const float* __restrict b) {
  for (uint32_t i = 0; i < kTileHW; ++i) {
    float r = kOp == TESSEL_BINARY_ADD ? a[i] + b[i] : kOp == TESSEL_BINARY_SUB ? a[i] - b[i] : a[i] * b[i];
    if constexpr (kAcc) r = d[i] + r;
    d[i] = kRound ? round_to_bf16(r) : r;
  }
}

template <uint32_t kOp>
void binary_dispatch(float* d, const float* a, const float* b, bool acc, bool round) {
  if (acc)
    round ? binary_loop<kOp, true, true>(d, a, b) : binary_loop<kOp, true, false>(d, a, b);
  else
    round ? binary_loop<kOp, false, true>(d, a, b) : binary_loop<kOp, false, false>(d, a, b);
}

const char* step_name(uint32_t step) {
  static const char* const kNames[] = {"tile_regs_acquire", "tile_regs_commit", "tile_regs_wait",
                                       "tile_regs_release", "acquire_dst",      "release_dst"};
  return step < 6 ? kNames[step] : "?";
}

} // namespace

// ---------------------------------------------------------------------------

namespace {

// A CB named by an init: it must exist on this core.
inline DataFormat init_cb_format(tessel_kernel_ctx* k, const char* call, uint32_t cb, const char* file, uint32_t line) {
  if (__builtin_expect(cb >= k->num_cb_indices || !k->cbs[cb].configured, 0)) {
    k->api->fail_cb(k, call, cb, file, line);
    __builtin_unreachable();
  }
  return DataFormat(k->cbs[cb].data_format);
}

// reconfig_data_format*(old, new): the hardware reconfigures only when the
// two CBs' formats differ, so a wrong `old` leaves the previous format in
// place (and a later op on `new` reports it). old1 = 1 + old, or 0 if absent.
void reconfig(tessel_kernel_ctx* k, DataFormat& fmt, InitSite& at, const char* call, uint32_t cb, uint32_t old1,
              const char* file, uint32_t line) {
  const DataFormat f = init_cb_format(k, call, cb, file, line);
  if (old1 != 0 && init_cb_format(k, call, old1 - 1, file, line) == f) return;
  fmt = f;
  at = {call, file, line};
}

} // namespace

void api_compute_init(tessel_kernel_ctx* k, uint32_t init, const char* call, uint32_t a, uint32_t b, uint32_t c,
                      const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), call, file, line);
  check_compute(k, call, file, line);
  ComputeState& s = state_of(k);
  auto set_op = [&](ComputeOp op, bool acc, uint32_t arg = 0) {
    s.op = op;
    s.acc_to_dest = acc;
    s.op_arg = arg;
    s.op_init_call = call;
    s.op_init_file = file;
    s.op_init_line = line;
  };
  // The full inits configure the unpacker's two sources and the packer.
  auto configure = [&](uint32_t srca_cb, uint32_t srcb_cb, uint32_t pack_cb) {
    const DataFormat fa = init_cb_format(k, call, srca_cb, file, line);
    const DataFormat fb = init_cb_format(k, call, srcb_cb, file, line);
    const DataFormat fp = init_cb_format(k, call, pack_cb, file, line);
    s.hw_started = true;
    s.fmt_a = fa;
    s.fmt_b = fb;
    s.fmt_pack = fp;
    s.fmt_a_site = s.fmt_b_site = s.fmt_pack_site = {call, file, line};
  };
  // Every init but the SFPU ones, the reconfigs and reduce_uninit sets the
  // unpacker up for its own op.
  const bool binary_math_only = (init == TESSEL_INIT_ADD || init == TESSEL_INIT_SUB || init == TESSEL_INIT_MUL) &&
                                (c & TESSEL_BINARY_INIT_MATH_ONLY) != 0;
  if (binary_math_only && !s.unpack_binary_site.call) {
    std::string msg = std::string(call) +
                      " configures MATH only, but the unpacker is not set up for eltwise binary ops" +
                      last_init_note(s) + ": call binary_op_init_common(cb0, cb1, ocb) first or use the full init";
    fail(k, std::move(msg), file, line);
  }
  const bool unpacker_init = init != TESSEL_INIT_SFPU && init != TESSEL_INIT_SFPU_BINARY &&
                             init != TESSEL_INIT_REDUCE_UNINIT && init != TESSEL_INIT_RECONFIG_SRCA &&
                             init != TESSEL_INIT_RECONFIG_SRCB && init != TESSEL_INIT_RECONFIG_PACK;
  if (unpacker_init && !binary_math_only) {
    const bool binary = init == TESSEL_INIT_BINARY_COMMON || init == TESSEL_INIT_ADD || init == TESSEL_INIT_SUB ||
                        init == TESSEL_INIT_MUL;
    s.unpack_binary_site = binary ? InitSite{call, file, line} : InitSite{};
  }
  switch (init) {
  case TESSEL_INIT_HW_STARTUP:
  case TESSEL_INIT_BINARY_COMMON: configure(a, b, c); break;
  case TESSEL_INIT_UNARY_COMMON:
    configure(a, a, c);
    set_op(ComputeOp::Copy, false);
    break;
  case TESSEL_INIT_COPY: set_op(ComputeOp::Copy, false); break;
  case TESSEL_INIT_ADD: set_op(ComputeOp::Add, (c & 1u) != 0); break;
  case TESSEL_INIT_SUB: set_op(ComputeOp::Sub, (c & 1u) != 0); break;
  case TESSEL_INIT_MUL: set_op(ComputeOp::Mul, (c & 1u) != 0); break;
  case TESSEL_INIT_MATMUL_FULL:
    configure(b, a, c >> 8); // in1 -> SrcA, in0 -> SrcB
    set_op(ComputeOp::Matmul, false, c & 1u);
    break;
  case TESSEL_INIT_MATMUL:
    init_cb_format(k, call, a, file, line);
    init_cb_format(k, call, b, file, line);
    set_op(ComputeOp::Matmul, false, c & 1u);
    break;
  case TESSEL_INIT_REDUCE:
    init_cb_format(k, call, a, file, line);
    init_cb_format(k, call, b, file, line);
    set_op(ComputeOp::Reduce, false, c);
    break;
  case TESSEL_INIT_REDUCE_UNINIT:
    if (s.op != ComputeOp::Reduce) {
      std::string msg = std::string(call) + ": no reduce_init is in effect" + last_init_note(s);
      fail(k, std::move(msg), file, line);
    }
    set_op(ComputeOp::None, false);
    break;
  case TESSEL_INIT_TRANSPOSE:
    init_cb_format(k, call, a, file, line);
    set_op(ComputeOp::Transpose, false);
    break;
  case TESSEL_INIT_BCAST:
    init_cb_format(k, call, a, file, line);
    init_cb_format(k, call, b, file, line);
    set_op(ComputeOp::Bcast, false, c);
    break;
  case TESSEL_INIT_SFPU:
  case TESSEL_INIT_SFPU_BINARY:
    s.sfpu_mask = init == TESSEL_INIT_SFPU ? a : 0;
    s.sfpu_binary_mask = init == TESSEL_INIT_SFPU ? 0 : a;
    s.sfpu_site = {call, file, line};
    break;
  case TESSEL_INIT_RECONFIG_SRCA: reconfig(k, s.fmt_a, s.fmt_a_site, call, a, b, file, line); break;
  case TESSEL_INIT_RECONFIG_SRCB: reconfig(k, s.fmt_b, s.fmt_b_site, call, a, b, file, line); break;
  case TESSEL_INIT_RECONFIG_PACK: reconfig(k, s.fmt_pack, s.fmt_pack_site, call, a, b, file, line); break;
  default: {
    std::string msg = std::string(call) + ": unknown init " + num(init);
    fail(k, std::move(msg), file, line);
  }
  }
}

void api_dst_step(tessel_kernel_ctx* k, uint32_t step, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "tile_regs_acquire/commit/wait/release", file, line);
  const char* call = step_name(step);
  check_compute(k, call, file, line);
  ComputeState& s = state_of(k);
  switch (step) {
  case TESSEL_DST_ACQUIRE:
  case TESSEL_DST_ACQUIRE_LEGACY: {
    if (s.math_holds) {
      std::string msg = std::string(call) + ": MATH already holds DST (acquired at " +
                        site(s.acquire_file, s.acquire_line) + "); call " +
                        (s.legacy ? "release_dst" : "tile_regs_commit") + " first";
      fail(k, std::move(msg), file, line);
    }
    if (step == TESSEL_DST_ACQUIRE_LEGACY && (s.committed || s.pack_holds)) {
      std::string msg = std::string(call) +
                        ": a DST section is still committed to PACK: call tile_regs_wait and tile_regs_release first";
      fail(k, std::move(msg), file, line);
    }
    if (s.committed >= dst_sections(k)) {
      std::string msg =
          std::string(call) + ": every DST section (" + num(dst_sections(k)) + " in " + dst_mode(k) +
          " mode) is committed and not yet released by PACK: call tile_regs_wait and tile_regs_release first "
          "(on the device this acquire would wait forever)";
      fail(k, std::move(msg), file, line);
    }
    const uint32_t base = section_base(k, s.acquires);
    const uint32_t span = kDstTiles / dst_sections(k);
    s.zero_mask |= ((1u << span) - 1u) << base; // zeroed lazily (math_dst)
    ++s.acquires;
    s.math_holds = true;
    s.acquire_file = file;
    s.acquire_line = line;
    if (step == TESSEL_DST_ACQUIRE_LEGACY) s.legacy = s.pack_holds = true;
    return;
  }
  case TESSEL_DST_COMMIT:
    if (!s.math_holds || s.legacy) {
      std::string msg = std::string(call) + ": MATH does not hold DST" +
                        (s.legacy ? " through tile_regs_acquire (it used acquire_dst: end with release_dst)"
                                  : ": call tile_regs_acquire first");
      fail(k, std::move(msg), file, line);
    }
    s.math_holds = false;
    ++s.committed;
    return;
  case TESSEL_DST_WAIT:
    if (s.pack_holds) {
      std::string msg = std::string(call) + ": PACK already holds DST: call " +
                        (s.legacy ? "release_dst" : "tile_regs_release") + " first";
      fail(k, std::move(msg), file, line);
    }
    if (s.committed == 0) {
      std::string msg = std::string(call) +
                        ": no DST section has been committed: call tile_regs_commit first (waiting would never return)";
      fail(k, std::move(msg), file, line);
    }
    s.pack_holds = true;
    return;
  case TESSEL_DST_RELEASE:
    if (!s.pack_holds || s.legacy) {
      std::string msg = std::string(call) + ": PACK does not hold DST" +
                        (s.legacy ? " through tile_regs_wait (it used acquire_dst: end with release_dst)"
                                  : ": call tile_regs_wait first");
      fail(k, std::move(msg), file, line);
    }
    s.pack_holds = false;
    --s.committed;
    ++s.releases;
    return;
  case TESSEL_DST_RELEASE_LEGACY:
    if (!s.legacy) {
      std::string msg = std::string(call) + ": DST was not acquired with acquire_dst" +
                        std::string(s.math_holds || s.pack_holds || s.committed
                                        ? " (it is held through tile_regs_*: use tile_regs_commit/wait/release)"
                                        : "");
      fail(k, std::move(msg), file, line);
    }
    s.math_holds = s.pack_holds = s.legacy = false;
    ++s.releases;
    return;
  default: {
    std::string msg = "unknown DST step " + num(step);
    fail(k, std::move(msg), file, line);
  }
  }
}

namespace {

// DST[idst] = cb[itile] (checks done by the caller except the operand's).
inline void copy_one(tessel_kernel_ctx* k, const char* call, const CallText& what, uint32_t cb, uint32_t itile,
                     uint32_t idst, const char* file, uint32_t line) {
  float* d = math_dst(k, what, idst, file, line, Access::Overwrite);
  const uint8_t* tile = front_tile(k, call, what, cb, itile, file, line);
  check_unpack_format(k, what, cb, 0, file, line);
  const DataFormat f = DataFormat(k->cbs[cb].data_format);
  // Through SrcA, except Float32 CBs unpacked straight to a 32-bit DST.
  if (f == DataFormat::Float32 && k->fp32_dest_acc_en && ((k->unpack_to_dest_fp32 >> cb) & 1u))
    unpack_tile(f, tile, d);
  else
    unpack_src(f, tile, d);
  // Float16_b and Bfp values already fit bfloat16 precision.
  if (!k->fp32_dest_acc_en && f != DataFormat::Float16_b && f != DataFormat::Bfp8_b && f != DataFormat::Bfp4_b)
    round_in_place(d);
}

// Two Float16_b operands straight from their CB pages (the common case: no
// unpacked copies).
using bf16_alias = uint16_t __attribute__((may_alias));
// Packs a tile whose values are all bfloat16-exact (every write to 16-bit DST
// rounds) to Float16_b: the high half of each float, no rounding needed.
TESSEL_TILE_LOOP void pack_bf16_exact(const float* __restrict in, uint8_t* out) {
  auto o = reinterpret_cast<bf16_alias*>(out);
  for (uint32_t i = 0; i < kTileHW; ++i)
    o[i] = uint16_t(std::bit_cast<uint32_t>(in[i]) >> 16);
}

template <uint32_t kOp, bool kAcc, bool kRound>
TESSEL_TILE_LOOP void binary_bf16_loop(float* __restrict d, const bf16_alias* __restrict a,
                                       const bf16_alias* __restrict b) {
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float x = std::bit_cast<float>(uint32_t(a[i]) << 16), y = std::bit_cast<float>(uint32_t(b[i]) << 16);
    float r = kOp == TESSEL_BINARY_ADD ? x + y : kOp == TESSEL_BINARY_SUB ? x - y : x * y;
    if constexpr (kAcc) r = d[i] + r;
    d[i] = kRound ? round_to_bf16(r) : r;
  }
}
template <uint32_t kOp>
void binary_bf16(float* d, const uint8_t* a, const uint8_t* b, bool acc, bool round) {
  auto pa = reinterpret_cast<const bf16_alias*>(a);
  auto pb = reinterpret_cast<const bf16_alias*>(b);
  if (acc)
    round ? binary_bf16_loop<kOp, true, true>(d, pa, pb) : binary_bf16_loop<kOp, true, false>(d, pa, pb);
  else
    round ? binary_bf16_loop<kOp, false, true>(d, pa, pb) : binary_bf16_loop<kOp, false, false>(d, pa, pb);
}

constexpr const char* kCopyInitNeeded =
    "the unpacker is not configured for copy_tile: call copy_tile_init(cb) (or unary_op_init_common / init_sfpu) "
    "first";

// Requires the FPU to be started (a full init ran).
inline void need_hw(tessel_kernel_ctx* k, const CallText& what, const char* file, uint32_t line) {
  if (__builtin_expect(!state_of(k).hw_started, 0))
    missing_init(k, what,
                 "the unpacker, FPU and packer are not configured: call compute_kernel_hw_startup (or the op's full "
                 "init, e.g. binary_op_init_common, mm_init) first",
                 file, line);
}

// d (+)= a x b elementwise at the kernel's fidelity: a on SrcA, b on SrcB.
void fidelity_mul(tessel_kernel_ctx* k, float* d, float* a, float* b, bool acc, bool round) {
  const uint32_t fid = k->math_fidelity;
  Scratch& w = scratch();
  prepare_srca(fid, a, w.a2[0]);
  prepare_srcb(fid, b, w.b2[0]);
  const bool two = fidelity_passes(fid) == 2;
  for (uint32_t i = 0; i < kTileHW; ++i) {
    float r = a[i] * b[i];
    if (two) r += w.a2[0][i] * w.b2[0][i];
    if (acc) r += d[i];
    d[i] = round ? round_to_bf16(r) : r;
  }
}

} // namespace

void api_copy_tile(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "copy_tile", file, line);
  check_compute(k, "copy_tile", file, line);
  const CallText what{CallText::Copy, 0, {cb, itile, idst}};
  if (__builtin_expect(state_of(k).op != ComputeOp::Copy, 0)) missing_init(k, what, kCopyInitNeeded, file, line);
  copy_one(k, "copy_tile", what, cb, itile, idst, file, line);
}

void api_copy_block(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, uint32_t n, const char* file,
                    uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "copy_block_matmul_partials", file, line);
  check_compute(k, "copy_block_matmul_partials", file, line);
  const CallText what{CallText::CopyBlock, 0, {cb, itile, idst, n}};
  if (__builtin_expect(state_of(k).op != ComputeOp::Copy, 0)) missing_init(k, what, kCopyInitNeeded, file, line);
  for (uint32_t i = 0; i < n; ++i)
    copy_one(k, "copy_block_matmul_partials", what, cb, itile + i, idst + i, file, line);
}

void api_binary_tiles(tessel_kernel_ctx* k, uint32_t op, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1,
                      uint32_t idst, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "add/sub/mul_tiles", file, line);
  const char* name = binary_name(op);
  check_compute(k, name, file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Binary, op, {cb0, cb1, i0, i1, idst}};
  if (__builtin_expect(!s.hw_started, 0))
    missing_init(k, what, "binary ops need binary_op_init_common (or compute_kernel_hw_startup) first", file, line);
  if (__builtin_expect(s.op != binary_compute_op(op), 0)) missing_op_init(k, what, name, file, line);
  float* d = math_dst(k, what, idst, file, line, s.acc_to_dest ? Access::Update : Access::Overwrite);
  const uint8_t* a = front_tile(k, name, what, cb0, i0, file, line);
  const uint8_t* b = front_tile(k, name, what, cb1, i1, file, line);
  check_unpack_format(k, what, cb0, 0, file, line);
  check_unpack_format(k, what, cb1, 1, file, line);
  const bool round = !k->fp32_dest_acc_en;
  const DataFormat fa = DataFormat(k->cbs[cb0].data_format), fb = DataFormat(k->cbs[cb1].data_format);
  const bool plain_mul = op != TESSEL_BINARY_MUL || !fidelity_needs_prep(k->math_fidelity);
  if (fa == DataFormat::Float16_b && fb == DataFormat::Float16_b && plain_mul) {
    switch (op) {
    case TESSEL_BINARY_ADD: binary_bf16<TESSEL_BINARY_ADD>(d, a, b, s.acc_to_dest, round); break;
    case TESSEL_BINARY_SUB: binary_bf16<TESSEL_BINARY_SUB>(d, a, b, s.acc_to_dest, round); break;
    default: binary_bf16<TESSEL_BINARY_MUL>(d, a, b, s.acc_to_dest, round); break;
    }
    return;
  }
  Scratch& w = scratch();
  unpack_src(fa, a, w.sa);
  unpack_src(fb, b, w.sb);
  switch (op) {
  case TESSEL_BINARY_ADD: binary_dispatch<TESSEL_BINARY_ADD>(d, w.sa, w.sb, s.acc_to_dest, round); break;
  case TESSEL_BINARY_SUB: binary_dispatch<TESSEL_BINARY_SUB>(d, w.sa, w.sb, s.acc_to_dest, round); break;
  default:
    if (plain_mul)
      binary_dispatch<TESSEL_BINARY_MUL>(d, w.sa, w.sb, s.acc_to_dest, round);
    else
      fidelity_mul(k, d, w.sa, w.sb, s.acc_to_dest, round);
  }
}

void api_matmul(tessel_kernel_ctx* k, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1, uint32_t idst,
                uint32_t transpose, uint32_t ct, uint32_t rt, uint32_t kt, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "matmul_tiles", file, line);
  const bool block = !(ct == 1 && rt == 1 && kt == 1);
  const char* name = block ? "matmul_block" : "matmul_tiles";
  check_compute(k, name, file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Matmul, 0, {cb0, cb1, i0, i1, idst, transpose, ct, rt, kt}};
  need_hw(k, what, file, line);
  if (__builtin_expect(s.op != ComputeOp::Matmul, 0))
    missing_init(k, what,
                 "the FPU is not configured for matmul: call mm_init(in0, in1, out) (or matmul_init, mm_init_short, "
                 "mm_block_init) first",
                 file, line);
  if (__builtin_expect(transpose != s.op_arg, 0)) {
    std::string msg = text(what) + ": transpose=" + num(transpose) + " but " + s.op_init_call + " at " +
                      site(s.op_init_file, s.op_init_line) + " configured transpose=" + num(s.op_arg) +
                      " (the unpacker transposes in1 only as its init says)";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(ct == 0 || rt == 0 || ct * rt > dst_capacity(k), 0)) {
    std::string msg = text(what) + ": a " + num(rt) + " x " + num(ct) +
                      " output block must have at least 1 and at most " + num(dst_capacity(k)) +
                      " tiles (the capacity of one DST acquire, " + dst_mode(k) + ")";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(idst + ct * rt > dst_capacity(k), 0)) dst_index_error(k, what, idst + ct * rt - 1, file, line);
  math_dst(k, what, idst, file, line, Access::Update); // MATH holds DST
  check_float_operand(k, what, cb0, file, line);
  check_float_operand(k, what, cb1, file, line);
  // in1 goes to SrcA and in0 to SrcB; kernels configure them in either order.
  if (s.fmt_a != DataFormat::Invalid) {
    const DataFormat f0 = DataFormat(k->cbs[cb0].data_format), f1 = DataFormat(k->cbs[cb1].data_format);
    if (!(f1 == s.fmt_a && f0 == s.fmt_b) && !(f0 == s.fmt_a && f1 == s.fmt_b))
      unpack_format_error(k, what, f1 != s.fmt_a && f1 != s.fmt_b ? cb1 : cb0, f1 != s.fmt_a ? 0 : 1, file, line);
  }

  Scratch& w = scratch();
  const uint32_t fid = k->math_fidelity;
  const bool prep = fidelity_needs_prep(fid);
  for (uint32_t r = 0; r < rt; ++r) {
    unpack_src_tile(k, name, what, cb0, i0 + r * kt, w.a[r], file, line);
    if (prep) prepare_srcb(fid, w.a[r], w.a2[r]);
  }
  for (uint32_t c = 0; c < ct; ++c) {
    if (transpose) {
      unpack_rows(k, name, what, cb1, i1 + c, w.c, w.t, file, line);
      transpose_rows(w.c, w.t);
      from_rows(w.t, w.b[c]);
    } else {
      unpack_src_tile(k, name, what, cb1, i1 + c, w.b[c], file, line);
    }
    if (prep) prepare_srca(fid, w.b[c], w.b2[c]);
  }
  const bool two = prep && fidelity_passes(fid) == 2;
  const bool round = !k->fp32_dest_acc_en;
  // Each DST tile accumulates in place (face order), rounded once at the end.
  for (uint32_t r = 0; r < rt; ++r)
    for (uint32_t c = 0; c < ct; ++c) {
      float* d = math_dst(k, what, idst + r * ct + c, file, line, Access::Update);
      matmul_tile_acc(w.a[r], w.b[c], d, round && !two);
      if (two) matmul_tile_acc(w.a2[r], w.b2[c], d, round);
    }
}

void api_reduce_tile(tessel_kernel_ctx* k, uint32_t pool_dim, uint32_t cb, uint32_t cb_scaler, uint32_t itile,
                     uint32_t itile_scaler, uint32_t idst, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "reduce_tile", file, line);
  check_compute(k, "reduce_tile", file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Reduce, pool_dim, {cb, cb_scaler, itile, itile_scaler, idst}};
  need_hw(k, what, file, line);
  if (__builtin_expect(s.op != ComputeOp::Reduce, 0))
    missing_init(k, what, "the FPU is not configured for reduce: call reduce_init(cb, cb_scaler, ocb) first", file,
                 line);
  if (__builtin_expect(s.op_arg != pool_dim, 0)) {
    std::string msg = text(what) + ": reduce_init at " + site(s.op_init_file, s.op_init_line) + " configured " +
                      reduce_text(s.op_arg) + "; call reduce_init" + reduce_text(pool_dim) + " first";
    fail(k, std::move(msg), file, line);
  }
  bool fresh = false;
  float* d = math_dst(k, what, idst, file, line, Access::Update, &fresh);
  check_float_operand(k, what, cb, file, line);
  check_float_operand(k, what, cb_scaler, file, line);
  check_unpack_format(k, what, cb, 0, file, line);
  check_unpack_format(k, what, cb_scaler, 1, file, line);
  Scratch& w = scratch();
  unpack_rows(k, "reduce_tile", what, cb, itile, w.a[0], w.t, file, line);
  unpack_rows(k, "reduce_tile", what, cb_scaler, itile_scaler, w.b[0], w.t, file, line);
  // The scaler is element [0][0]; every product goes through the multiplier.
  const float scaler = w.b[0][0];
  for (uint32_t i = 0; i < kTileHW; ++i)
    w.b[0][i] = scaler;
  fidelity_mul(k, w.c, w.a[0], w.b[0], false, false);
  const bool max = (pool_dim >> 4) == TESSEL_POOL_MAX;
  const uint32_t dim = pool_dim & 15u;
  const bool round = !k->fp32_dest_acc_en;
  // Row-major (r, c) -> tile order.
  auto at = [](uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; };
  auto combine = [&](uint32_t r, uint32_t c, float v) {
    float& out = d[at(r, c)];
    // MAX into a tile this acquire has not written starts from v (not from
    // the zero the acquire left), so all-negative inputs reduce correctly.
    const float x = max ? (fresh ? v : std::max(out, v)) : out + v;
    out = round ? round_to_bf16(x) : x;
  };
  const float* p = w.c;
  if (dim == TESSEL_REDUCE_ROW) {
    for (uint32_t r = 0; r < 32; ++r) {
      float v = p[r * 32];
      for (uint32_t c = 1; c < 32; ++c)
        v = max ? std::max(v, p[r * 32 + c]) : v + p[r * 32 + c];
      combine(r, 0, v);
    }
  } else if (dim == TESSEL_REDUCE_COL) {
    for (uint32_t c = 0; c < 32; ++c) {
      float v = p[c];
      for (uint32_t r = 1; r < 32; ++r)
        v = max ? std::max(v, p[r * 32 + c]) : v + p[r * 32 + c];
      combine(0, c, v);
    }
  } else {
    float v = p[0];
    for (uint32_t i = 1; i < kTileHW; ++i)
      v = max ? std::max(v, p[i]) : v + p[i];
    combine(0, 0, v);
  }
}

void api_transpose_wh_tile(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, const char* file,
                           uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "transpose_wh_tile", file, line);
  check_compute(k, "transpose_wh_tile", file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Transpose, 0, {cb, itile, idst}};
  need_hw(k, what, file, line);
  if (__builtin_expect(s.op != ComputeOp::Transpose, 0))
    missing_init(k, what, "the unpacker is not configured for transposes: call transpose_wh_init(cb, ocb) first", file,
                 line);
  float* d = math_dst(k, what, idst, file, line, Access::Overwrite);
  check_unpack_format(k, what, cb, 0, file, line);
  Scratch& w = scratch();
  unpack_rows(k, "transpose_wh_tile", what, cb, itile, w.a[0], w.t, file, line);
  transpose_rows(w.a[0], w.c);
  from_rows(w.c, w.t);
  k->fp32_dest_acc_en ? store<false>(d, w.t) : store<true>(d, w.t);
}

void api_bcast_tiles(tessel_kernel_ctx* k, uint32_t op, uint32_t bcast, uint32_t cb0, uint32_t cb1, uint32_t i0,
                     uint32_t i1, uint32_t idst, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "*_tiles_bcast", file, line);
  const uint32_t op_bcast = (op << 4) | bcast;
  const CallText what{CallText::Bcast, op_bcast, {cb0, cb1, i0, i1, idst}};
  check_compute(k, "*_tiles_bcast", file, line);
  ComputeState& s = state_of(k);
  need_hw(k, what, file, line);
  if (__builtin_expect(s.op != ComputeOp::Bcast || s.op_arg != op_bcast, 0)) {
    std::string msg = text(what) + ": the FPU is not configured for " + bcast_call(op_bcast) + ": call " +
                      bcast_call(op_bcast).substr(0, 3) + "_bcast_" + bcast_name(bcast) +
                      "_init_short(cb0, cb1) (or init_bcast) first" + last_init_note(s);
    fail(k, std::move(msg), file, line);
  }
  float* d = math_dst(k, what, idst, file, line, Access::Overwrite);
  check_unpack_format(k, what, cb0, 0, file, line);
  check_unpack_format(k, what, cb1, 1, file, line);
  const uint8_t* a = front_tile(k, "*_tiles_bcast", what, cb0, i0, file, line);
  Scratch& w = scratch();
  unpack_src(DataFormat(k->cbs[cb0].data_format), a, w.sa);
  unpack_rows(k, "*_tiles_bcast", what, cb1, i1, w.b[0], w.t, file, line);
  float* rows = w.b[0];
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c)
      w.c[r * 32 + c] = bcast == TESSEL_BCAST_ROW ? rows[c] : bcast == TESSEL_BCAST_COL ? rows[r * 32] : rows[0];
  from_rows(w.c, w.sb);
  const bool round = !k->fp32_dest_acc_en;
  switch (op) {
  case TESSEL_BINARY_ADD: binary_dispatch<TESSEL_BINARY_ADD>(d, w.sa, w.sb, false, round); break;
  case TESSEL_BINARY_SUB: binary_dispatch<TESSEL_BINARY_SUB>(d, w.sa, w.sb, false, round); break;
  default: fidelity_mul(k, d, w.sa, w.sb, false, round);
  }
}

void api_sfpu_unary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, uint32_t approx,
                    const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "an SFPU op", file, line);
  const CallText what{CallText::Sfpu, op, {idst}};
  check_compute(k, op < TESSEL_SFPU_OP_COUNT ? sfpu_name(op) : "SFPU op", file, line);
  ComputeState& s = state_of(k);
  if (__builtin_expect(op >= TESSEL_SFPU_OP_COUNT, 0)) {
    std::string msg = "unknown SFPU op " + num(op);
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(!(s.sfpu_mask & (1u << op)), 0)) {
    std::string msg = text(what) + ": the SFPU is not configured for " + sfpu_name(op) + ": call " + sfpu_name(op) +
                      "_init() first" +
                      (s.sfpu_site.call ? std::string(" (the last SFPU init was ") + s.sfpu_site.call + " at " +
                                              site(s.sfpu_site.file, s.sfpu_site.line) + ")"
                                        : std::string(" (no SFPU init was called in this kernel)"));
    fail(k, std::move(msg), file, line);
  }
  float* d = math_dst(k, what, idst, file, line, Access::Update);
  sfpu_unary(op, d, SfpuParams{p0, p1, approx != 0});
  if (!k->fp32_dest_acc_en) round_in_place(d);
}

void api_sfpu_binary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t odst, const char* file,
                     uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "an SFPU binary op", file, line);
  const CallText what{CallText::SfpuBinary, op, {idst0, idst1, odst}};
  check_compute(k, op < TESSEL_SFPU_BINARY_OP_COUNT ? sfpu_binary_name(op) : "SFPU op", file, line);
  ComputeState& s = state_of(k);
  if (__builtin_expect(op >= TESSEL_SFPU_BINARY_OP_COUNT, 0)) {
    std::string msg = "unknown SFPU binary op " + num(op);
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(!(s.sfpu_binary_mask & (1u << op)), 0)) {
    std::string msg = text(what) + ": the SFPU is not configured for " + sfpu_binary_name(op) + ": call " +
                      sfpu_binary_name(op) + "_init() first" +
                      (s.sfpu_site.call ? std::string(" (the last SFPU init was ") + s.sfpu_site.call + " at " +
                                              site(s.sfpu_site.file, s.sfpu_site.line) + ")"
                                        : std::string(" (no SFPU init was called in this kernel)"));
    fail(k, std::move(msg), file, line);
  }
  const float* a = math_dst(k, what, idst0, file, line, Access::Update);
  const float* b = math_dst(k, what, idst1, file, line, Access::Update);
  float* out = math_dst(k, what, odst, file, line, Access::Update);
  sfpu_binary(op, a, b, out);
  if (!k->fp32_dest_acc_en) round_in_place(out);
}

namespace {
// A pack to a page the kernel did not reserve. Silicon packs it (a reservation
// is only a wait for room): into a free page before the CB's end that is a
// likely bug, a warning; over a page the consumer can still read, or past the
// end, an error. (Each message is built in the statement that hands it on: a
// failing fiber's frames are abandoned.)
TESSEL_COLD void pack_beyond_reserve(tessel_kernel_ctx* k, const CallText& what, const tessel_cb_iface& q,
                                     uint32_t page, bool in_order, const char* file, uint32_t line) {
  const uint32_t free = free_pages(q);
  const uint32_t to_end = (q.fifo_size - (q.wr_ptr - q.fifo_addr)) / q.page_size; // pages from wr_ptr to the end
  const auto head = [&] {
    const std::string reserved =
        num(q.reserved_pages) + (q.reserved_pages == 1 ? " page is" : " pages are") + " reserved with cb_reserve_back";
    return in_order ? text(what) + ": this packs page " + num(page) + " (counting from 0) since the last " +
                          "cb_push_back, but only " + reserved
                    : text(what) + ": out-of-order pack to page " + num(page) + ", but only " + reserved;
  };
  if (page >= to_end) {
    std::string msg = head() + ", and it lies past the CB's end (" + num(to_end) +
                      (to_end == 1 ? " page is" : " pages are") + " left before it): push the pages before it first";
    fail(k, std::move(msg), file, line);
  }
  if (page >= free) {
    std::string msg = head() + ", and the CB has " + num(free) + " free of " + num(q.num_pages) +
                      ": this would overwrite a page the consumer can still read; wait for room with "
                      "cb_reserve_back first";
    fail(k, std::move(msg), file, line);
  }
  core_of(k).chip->warn(fiber_of(k),
                        head() + "; the CB has room for it, so silicon packs it, but nothing waited for that room: "
                                 "reserve it with cb_reserve_back first",
                        file, line);
}
} // namespace

void api_pack_tile(tessel_kernel_ctx* k, uint32_t idst, uint32_t cb, int32_t index, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "pack_tile", file, line);
  check_compute(k, "pack_tile", file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Pack, 0, {idst, cb}};
  if (__builtin_expect(!s.hw_started, 0)) {
    std::string msg = text(what) +
                      ": the packer is not configured: call compute_kernel_hw_startup, binary_op_init_common, "
                      "unary_op_init_common or init_sfpu first";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(!s.pack_holds, 0)) {
    std::string msg = text(what) + ": PACK does not hold DST: call tile_regs_wait (after tile_regs_commit) first" +
                      (s.math_holds ? " (MATH still holds it: tile_regs_commit hands it over)" : "");
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(idst >= dst_capacity(k), 0)) dst_index_error(k, what, idst, file, line);
  tessel_cb_iface& q = operand_cb(k, "pack_tile", what, cb, file, line);
  Core& c = core_of(k);
  const uint8_t producer = c.cb_producer[cb];
  if (__builtin_expect(producer != TESSEL_RISC_COMPUTE + 1, 0)) {
    if (producer != 0) {
      std::string msg = text(what) + ": CB " + num(cb) + " is produced on this core by " +
                        Chip::risc_name(producer - 1u) + "; a CB has one producer RISC";
      fail(k, std::move(msg), file, line);
    }
    c.cb_producer[cb] = TESSEL_RISC_COMPUTE + 1; // packing without a reservation makes this RISC the producer
  }
  if (__builtin_expect(s.fmt_pack != DataFormat(q.data_format), 0)) {
    std::string msg = text(what) + ": CB " + num(cb) + " holds " + to_string(DataFormat(q.data_format)) +
                      ", but the packer is configured for " + to_string(s.fmt_pack) + site_note(s.fmt_pack_site) +
                      ": call pack_reconfig_data_format(" + num(cb) + ") first";
    fail(k, std::move(msg), file, line);
  }
  uint32_t& cursor = s.pack_cursor[cb];
  const uint32_t page = index < 0 ? cursor : uint32_t(index);
  if (__builtin_expect(page >= q.reserved_pages, 0)) pack_beyond_reserve(k, what, q, page, index < 0, file, line);
  uint8_t* out = reinterpret_cast<uint8_t*>(uintptr_t(q.wr_ptr) + uintptr_t(page) * q.page_size);
  static const float kZeroTile[kTileHW] = {};
  const uint32_t t = section_base(k, s.releases) + idst;
  const float* src = (s.zero_mask >> t) & 1u ? kZeroTile : s.dst[t];
  if (q.data_format == uint32_t(DataFormat::Float16_b) && !k->fp32_dest_acc_en)
    pack_bf16_exact(src, out); // 16-bit DST holds bfloat16 values already
  else
    pack_tile(DataFormat(q.data_format), src, out);
  if (index < 0) ++cursor;
}

} // namespace tessel::sim
