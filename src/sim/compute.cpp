// The compute engine: DST protocol, unpack -> FPU op -> DST, pack.
// Invariants and the DST layout are in compute.hpp; the inits are in
// compute_init.cpp, matmul in compute_matmul.cpp, SFPU ops in
// compute_sfpu.cpp, the shared checks and messages in compute_support.hpp.
//
// Numerics (docs/numerics.md): unpack converts the CB tile to float exactly
// (formats.cpp); an op computes in float; the value written to DST is
// rounded to bfloat16 precision unless fp32_dest_acc_en; pack converts to the
// output CB's format. Every loop over a tile here is a plain float loop the
// compiler vectorises.
#include "sim/compute.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "sim/chip.hpp"
#include "sim/compute_support.hpp"
#include "sim/formats.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/sfpu.hpp"
#include "sim/simd.hpp"
#include "sim/tile_math.hpp"
#include "tessel/tile.hpp"

namespace tessel::sim {

using namespace detail;

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
  sfpu_ops.reset();
  sfpu_binary_ops.reset();
  sfpu_ternary_ops.reset();
  sfpu_state_ops.reset();
  ema = {};
  cumsum = {};
  l1_acc = false;
  pack_edits = {};
  layout = {};
  math_holds = pack_holds = legacy = false;
  committed = acquires = releases = 0;
  acquire_file = nullptr;
  acquire_line = 0;
  std::memset(pack_cursor, 0, sizeof pack_cursor);
  matmul_stride = {};
  welford.reset();
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

// Per-thread scratch for the ops that unpack their operands (matmul has its
// own, compute_matmul.cpp). Ops never yield mid-call, so one per host thread
// is enough.
struct Scratch {
  alignas(64) float sa[kTileHW]; // unpacked operands (SrcA / SrcB)
  alignas(64) float sb[kTileHW];
  alignas(64) float a[kTileHW];
  alignas(64) float b[kTileHW];
  alignas(64) float a2[kTileHW];
  alignas(64) float b2[kTileHW];
  alignas(64) float c[kTileHW];
  alignas(64) float t[kTileHW];
};
Scratch& scratch() {
  thread_local std::unique_ptr<Scratch> s = std::make_unique<Scratch>();
  return *s;
}

// Unpacks tile `itile` of cb (checked) into `rows`, row-major, as a source register holds it.
inline void unpack_rows(tessel_kernel_ctx* k, const char* call, const CallText& what, uint32_t cb, uint32_t itile,
                        float* rows, float* tmp, const char* file, uint32_t line) {
  const uint8_t* tile = front_tile(k, call, what, cb, itile, file, line);
  unpack_src(DataFormat(k->cbs[cb].data_format), tile, tmp);
  to_rows(tmp, rows);
}

// Whether cb's Float32 tiles go straight to a 32-bit DST with all their bits
// (ComputeConfig::unpack_to_dest_mode UnpackToDestFp32 and fp32_dest_acc_en).
inline bool unpacks_to_dest(const tessel_kernel_ctx* k, uint32_t cb) {
  return DataFormat(k->cbs[cb].data_format) == DataFormat::Float32 && k->fp32_dest_acc_en &&
         ((k->unpack_to_dest_fp32 >> cb) & 1u);
}

// ---- Tile loops (vectorised) ----

template <bool kRound>
TESSEL_TILE_LOOP void store(float* __restrict d, const float* __restrict v) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    d[i] = kRound ? round_to_bf16(v[i]) : v[i];
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
      // release_dst is MATH's section-done and PACK's: after tile_regs_commit
      // it ends MATH's section a second time, so MATH and PACK lose step on
      // DST (silicon: MATH posts the MATH-PACK semaphore again and, in
      // half-sync, flips to the other half while PACK stays).
      std::string msg = std::string(call) + ": DST was not acquired with acquire_dst" +
                        std::string(s.math_holds || s.pack_holds || s.committed
                                        ? " (it is held through tile_regs_*: use tile_regs_commit/wait/release)"
                                        : "") +
                        std::string(!s.math_holds && s.committed
                                        ? "; after tile_regs_commit, release_dst would end MATH's DST section a "
                                          "second time: MATH and PACK would lose step (in half-sync MATH moves to "
                                          "the other half of DST while PACK stays, and PACK can read a section "
                                          "before MATH has written it)"
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
  if (unpacks_to_dest(k, cb))
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

// d (+)= a x b elementwise at the kernel's fidelity: a on SrcA, b on SrcB.
void fidelity_mul(tessel_kernel_ctx* k, float* d, float* a, float* b, bool acc, bool round) {
  const uint32_t fid = k->math_fidelity;
  Scratch& w = scratch();
  prepare_srca(fid, a, w.a2);
  prepare_srcb(fid, b, w.b2);
  const bool two = fidelity_passes(fid) == 2;
  for (uint32_t i = 0; i < kTileHW; ++i) {
    float r = a[i] * b[i];
    if (two) r += w.a2[i] * w.b2[i];
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
  if (cb < k->num_cb_indices && k->cbs[cb].configured) {
    const tessel_cb_iface& q = k->cbs[cb];
    for (uint32_t i = 0; i < n && itile + i < q.waited_pages; ++i)
      prefetch(front_page(q, itile + i), q.tile_size);
  }
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
  unpack_rows(k, "reduce_tile", what, cb, itile, w.a, w.t, file, line);
  unpack_rows(k, "reduce_tile", what, cb_scaler, itile_scaler, w.b, w.t, file, line);
  // The scaler is element [0][0]; every product goes through the multiplier.
  const float scaler = w.b[0];
  for (uint32_t i = 0; i < kTileHW; ++i)
    w.b[i] = scaler;
  fidelity_mul(k, w.c, w.a, w.b, false, false);
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
  if (DataFormat(k->cbs[cb].data_format) == DataFormat::Float32 && k->fp32_dest_acc_en) {
    // Metalium unpacks a 32-bit tile straight to a 32-bit DST and transposes it there
    // (transpose_dest): all its bits are kept, whatever the CB's unpack_to_dest_mode.
    unpack_tile(DataFormat::Float32, front_tile(k, "transpose_wh_tile", what, cb, itile, file, line), w.t);
    to_rows(w.t, w.a);
  } else {
    unpack_rows(k, "transpose_wh_tile", what, cb, itile, w.a, w.t, file, line);
  }
  transpose_rows(w.a, w.c);
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
  unpack_rows(k, "*_tiles_bcast", what, cb1, i1, w.b, w.t, file, line);
  float* rows = w.b;
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

// binary_dest_reuse_tiles: DST[idst] moves into one source register (19
// bits, as a CB's Float32 tile does) and cb[itile] into the other; the op's
// result replaces DST[idst]. unary_bcast: DST[idst] = cb[itile]'s row 0,
// column 0 or element [0][0] broadcast over the tile.
void api_dest_tiles(tessel_kernel_ctx* k, uint32_t kind, uint32_t arg, uint32_t cb, uint32_t itile, uint32_t idst,
                    const char* file, uint32_t line) {
  const bool bcast = kind == TESSEL_UNARY_BCAST;
  const char* name = bcast ? "unary_bcast" : "binary_dest_reuse_tiles";
  core_of(k).chip->check_progress(fiber_of(k), name, file, line);
  check_compute(k, name, file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::DestTiles, (kind << 8) | arg, {cb, itile, idst}};
  need_hw(k, what, file, line);
  const ComputeOp op = bcast ? ComputeOp::UnaryBcast : ComputeOp::DestReuse;
  if (__builtin_expect(s.op != op || s.op_arg != arg, 0)) {
    std::string msg = text(what) + ": the unpacker is not configured for it: call " +
                      (bcast ? "unary_bcast_init<the same BroadcastType>(icb, ocb)"
                             : "binary_dest_reuse_tiles_init<the same op and reuse>(icb)") +
                      " first" + last_init_note(s);
    fail(k, std::move(msg), file, line);
  }
  check_unpack_format(k, what, cb, bcast ? 1 : 0, file, line);
  Scratch& w = scratch();
  const bool round = !k->fp32_dest_acc_en;
  if (bcast) {
    float* d = math_dst(k, what, idst, file, line, Access::Overwrite);
    unpack_rows(k, name, what, cb, itile, w.b, w.t, file, line);
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = 0; c < 32; ++c)
        w.c[r * 32 + c] = arg == TESSEL_BCAST_ROW ? w.b[c] : arg == TESSEL_BCAST_COL ? w.b[r * 32] : w.b[0];
    from_rows(w.c, w.t);
    round ? store<true>(d, w.t) : store<false>(d, w.t);
    return;
  }
  float* d = math_dst(k, what, idst, file, line, Access::Update);
  unpack_src(DataFormat(k->cbs[cb].data_format), front_tile(k, name, what, cb, itile, file, line), w.sa);
  std::copy(d, d + kTileHW, w.sb);
  keep_mantissa_bits(w.sb, kSrcBits);
  // DEST_TO_SRCA: DST is the first operand; DEST_TO_SRCB: the second.
  float* a = (arg & 15u) == TESSEL_REUSE_DEST_TO_SRCA ? w.sb : w.sa;
  float* b = a == w.sb ? w.sa : w.sb;
  switch (arg >> 4) {
  case TESSEL_BINARY_ADD: binary_dispatch<TESSEL_BINARY_ADD>(d, a, b, false, round); break;
  case TESSEL_BINARY_SUB: binary_dispatch<TESSEL_BINARY_SUB>(d, a, b, false, round); break;
  default: fidelity_mul(k, d, a, b, false, round);
  }
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
  if (__builtin_expect(s.layout.pack_untilize, 0)) warn_pack_in_untilize_mode(k, idst, cb, file, line);
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
    c.cb_producer_site[cb] = {file, line};
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
  alignas(64) float edited[kTileHW];
  if (__builtin_expect(s.pack_edits.active(), 0)) {
    if (s.l1_acc && s.pack_edits.relu != TESSEL_PACK_RELU_NONE) {
      std::string msg = text(what) + ": the packer's ReLU (set by " + s.pack_edits.relu_site.call + " at " +
                        site(s.pack_edits.relu_site.file, s.pack_edits.relu_site.line) +
                        ") with L1 accumulation (pack_reconfig_l1_acc(1)) is not supported by tessel: whether the "
                        "ReLU applies before or after the accumulation is not modelled";
      fail(k, std::move(msg), file, line);
    }
    src = apply_pack_edits(s, src, edited);
  }
  if (__builtin_expect(s.l1_acc, 0)) {
    // L1 accumulation: the page's values plus the tile, rounded into the CB's format.
    alignas(64) float sum[kTileHW];
    unpack_tile(DataFormat(q.data_format), out, sum);
    for (uint32_t i = 0; i < kTileHW; ++i)
      sum[i] += src[i];
    pack_tile(DataFormat(q.data_format), sum, out);
  } else if (q.data_format == uint32_t(DataFormat::Float16_b) && !k->fp32_dest_acc_en)
    pack_bf16_exact(src, out); // 16-bit DST holds bfloat16 values already
  else
    pack_tile(DataFormat(q.data_format), src, out);
  if (index < 0) ++cursor;
}

TESSEL_TILE_LOOP void detail::round_in_place(float* d) {
  for (uint32_t i = 0; i < kTileHW; ++i)
    d[i] = round_to_bf16(d[i]);
}

} // namespace tessel::sim
