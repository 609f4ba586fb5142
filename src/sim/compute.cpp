// The compute engine: DST protocol, inits, unpack -> FPU op -> DST, pack.
// Invariants and the DST layout are in compute.hpp.
//
// Numerics (docs/numerics.md): unpack converts the CB tile to float exactly
// (formats.cpp); an op computes in float; the value written to DST is
// rounded to bfloat16 precision unless fp32_dest_acc_en; pack converts to the
// output CB's format. Every loop over a tile is a plain float loop the
// compiler vectorises.
#include "sim/compute.hpp"

#include <cstring>
#include <string>

#include "sim/chip.hpp"
#include "sim/formats.hpp"
#include "tessel/tile.hpp"

namespace tessel::sim {

void ComputeState::reset() {
  written_mask = ~0u; // zeroed lazily by the first acquire of each section
  hw_started = false;
  op = ComputeOp::None;
  acc_to_dest = false;
  op_init_call = op_init_file = nullptr;
  op_init_line = 0;
  math_holds = pack_holds = legacy = false;
  committed = acquires = releases = 0;
  acquire_file = nullptr;
  acquire_line = 0;
  std::memset(pack_cursor, 0, sizeof pack_cursor);
}

void reset_compute(Core& core) {
  if (!core.compute) core.compute = std::make_unique<ComputeState>();
  core.compute->reset();
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

#define TESSEL_COLD __attribute__((cold, noinline))

inline Core& core_of(tessel_kernel_ctx* k) { return *static_cast<Core*>(k->sim_core); }
inline ComputeState& state_of(tessel_kernel_ctx* k) { return *core_of(k).compute; }

[[noreturn]] TESSEL_COLD void fail(tessel_kernel_ctx* k, std::string msg, const char* file, uint32_t line) {
  core_of(k).chip->fail(static_cast<Fiber*>(k->sim_fiber), std::move(msg), file, line);
}

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
  enum Kind : uint8_t { Copy, Binary, Pack } kind;
  uint32_t op; // tessel_binary_op for Binary
  uint32_t v[5];
};

TESSEL_COLD std::string text(const CallText& c) {
  switch (c.kind) {
  case CallText::Copy: return "copy_tile(cb=" + num(c.v[0]) + ", itile=" + num(c.v[1]) + ", idst=" + num(c.v[2]) + ")";
  case CallText::Binary:
    return std::string(binary_name(c.op)) + "(cb0=" + num(c.v[0]) + ", cb1=" + num(c.v[1]) + ", itile0=" + num(c.v[2]) +
           ", itile1=" + num(c.v[3]) + ", idst=" + num(c.v[4]) + ")";
  default: return "pack_tile(idst=" + num(c.v[0]) + ", cb=" + num(c.v[1]) + ")";
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

inline uint32_t dst_capacity(const tessel_kernel_ctx* k) {
  return (k->dst_full_sync_en ? 16u : 8u) >> (k->fp32_dest_acc_en ? 1 : 0);
}
inline uint32_t dst_sections(const tessel_kernel_ctx* k) { return k->dst_full_sync_en ? 1u : 2u; }
inline uint32_t section_base(const tessel_kernel_ctx* k, uint32_t section) {
  return (section % dst_sections(k)) * (kDstTiles / dst_sections(k));
}

std::string dst_mode(const tessel_kernel_ctx* k) {
  return std::string(k->dst_full_sync_en ? "full-sync" : "half-sync") +
         (k->fp32_dest_acc_en ? " with fp32_dest_acc_en" : " with 16-bit DST");
}

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
inline float* math_dst(tessel_kernel_ctx* k, const CallText& what, uint32_t idst, const char* file, uint32_t line) {
  ComputeState& s = state_of(k);
  if (__builtin_expect(!s.math_holds, 0)) math_not_holding(k, what, file, line);
  if (__builtin_expect(idst >= dst_capacity(k), 0)) dst_index_error(k, what, idst, file, line);
  const uint32_t t = section_base(k, s.acquires - 1) + idst;
  s.written_mask |= 1u << t;
  return s.dst[t];
}

// ---- Tile loops (vectorised) ----

template <bool kRound>
void store(float* __restrict d, const float* __restrict v) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    d[i] = kRound ? round_to_bf16(v[i]) : v[i];
}

template <uint32_t kOp, bool kAcc, bool kRound>
void binary_loop(float* __restrict d, const float* __restrict a, const float* __restrict b) {
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

void api_compute_init(tessel_kernel_ctx* k, uint32_t init, const char* call, uint32_t, uint32_t, uint32_t c,
                      const char* file, uint32_t line) {
  core_of(k).chip->note_progress();
  check_compute(k, call, file, line);
  ComputeState& s = state_of(k);
  auto set_op = [&](ComputeOp op, bool acc) {
    s.op = op;
    s.acc_to_dest = acc;
    s.op_init_call = call;
    s.op_init_file = file;
    s.op_init_line = line;
  };
  switch (init) {
  case TESSEL_INIT_HW_STARTUP:
  case TESSEL_INIT_BINARY_COMMON: s.hw_started = true; break;
  case TESSEL_INIT_UNARY_COMMON:
    s.hw_started = true;
    set_op(ComputeOp::Copy, false);
    break;
  case TESSEL_INIT_COPY: set_op(ComputeOp::Copy, false); break;
  case TESSEL_INIT_ADD: set_op(ComputeOp::Add, c != 0); break;
  case TESSEL_INIT_SUB: set_op(ComputeOp::Sub, c != 0); break;
  case TESSEL_INIT_MUL: set_op(ComputeOp::Mul, c != 0); break;
  default: {
    std::string msg = std::string(call) + ": unknown init " + num(init);
    fail(k, std::move(msg), file, line);
  }
  }
}

void api_dst_step(tessel_kernel_ctx* k, uint32_t step, const char* file, uint32_t line) {
  core_of(k).chip->note_progress();
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
    for (uint32_t t = base; t < base + span; ++t)
      if (s.written_mask & (1u << t)) std::memset(s.dst[t], 0, sizeof s.dst[t]);
    s.written_mask &= ~(((1u << span) - 1u) << base);
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

void api_copy_tile(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, const char* file, uint32_t line) {
  core_of(k).chip->note_progress();
  check_compute(k, "copy_tile", file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Copy, 0, {cb, itile, idst, 0, 0}};
  if (__builtin_expect(s.op != ComputeOp::Copy, 0))
    missing_init(k, what,
                 "the unpacker is not configured for copy_tile: call copy_tile_init(cb) (or unary_op_init_common / "
                 "init_sfpu) first",
                 file, line);
  float* d = math_dst(k, what, idst, file, line);
  const uint8_t* tile = front_tile(k, "copy_tile", what, cb, itile, file, line);
  unpack_tile(DataFormat(k->cbs[cb].data_format), tile, s.src_a);
  k->fp32_dest_acc_en ? store<false>(d, s.src_a) : store<true>(d, s.src_a);
}

void api_binary_tiles(tessel_kernel_ctx* k, uint32_t op, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1,
                      uint32_t idst, const char* file, uint32_t line) {
  core_of(k).chip->note_progress();
  const char* name = binary_name(op);
  check_compute(k, name, file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Binary, op, {cb0, cb1, i0, i1, idst}};
  if (__builtin_expect(!s.hw_started, 0))
    missing_init(k, what, "binary ops need binary_op_init_common (or compute_kernel_hw_startup) first", file, line);
  if (__builtin_expect(s.op != binary_compute_op(op), 0)) missing_op_init(k, what, name, file, line);
  float* d = math_dst(k, what, idst, file, line);
  const uint8_t* a = front_tile(k, name, what, cb0, i0, file, line);
  const uint8_t* b = front_tile(k, name, what, cb1, i1, file, line);
  unpack_tile(DataFormat(k->cbs[cb0].data_format), a, s.src_a);
  unpack_tile(DataFormat(k->cbs[cb1].data_format), b, s.src_b);
  const bool round = !k->fp32_dest_acc_en;
  switch (op) {
  case TESSEL_BINARY_ADD: binary_dispatch<TESSEL_BINARY_ADD>(d, s.src_a, s.src_b, s.acc_to_dest, round); break;
  case TESSEL_BINARY_SUB: binary_dispatch<TESSEL_BINARY_SUB>(d, s.src_a, s.src_b, s.acc_to_dest, round); break;
  default: binary_dispatch<TESSEL_BINARY_MUL>(d, s.src_a, s.src_b, s.acc_to_dest, round); break;
  }
}

void api_pack_tile(tessel_kernel_ctx* k, uint32_t idst, uint32_t cb, const char* file, uint32_t line) {
  core_of(k).chip->note_progress();
  check_compute(k, "pack_tile", file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Pack, 0, {idst, cb, 0, 0, 0}};
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
    {
      std::string msg =
          text(what) + ": no pages of CB " + num(cb) + " are reserved: call cb_reserve_back(" + num(cb) + ", n) first";
      fail(k, std::move(msg), file, line);
    }
  }
  uint32_t& cursor = s.pack_cursor[cb];
  if (__builtin_expect(cursor >= q.reserved_pages, 0)) {
    std::string msg = text(what) + ": this would pack page " + num(cursor) +
                      " (counting from 0) since the last cb_push_back, but only " + num(q.reserved_pages) +
                      (q.reserved_pages == 1 ? " page is" : " pages are") +
                      " reserved: reserve more with cb_reserve_back, or push first";
    fail(k, std::move(msg), file, line);
  }
  uint8_t* out = reinterpret_cast<uint8_t*>(uintptr_t(q.wr_ptr) + uintptr_t(cursor) * q.page_size);
  pack_tile(DataFormat(q.data_format), s.dst[section_base(k, s.releases) + idst], out);
  ++cursor;
}

} // namespace tessel::sim
