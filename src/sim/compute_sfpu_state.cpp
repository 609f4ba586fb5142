// SFPU ops with state or a tile-wide layout (tessel_sim_api::sfpu_state; the
// math is in sfpu_state.cpp). The inits (rand_tile_init, ema_init,
// sfpu_sum_int_init) are SFPU inits like any other: each replaces what the
// previous SFPU init configured, and an op other than rand_tile needs the
// most recent one to be its own. rand_tile needs none: silicon's rand LLK
// sets up its own registers and reads whatever state the PRNG was left in
// (seeded by an earlier program, or not at all).
//
// Ops reaching two DST tiles (ema_tile: input idst, output idst + 1;
// sfpu_add_int: idst and idst + 1, as tt-llk's kernels address them) need
// both in the section MATH holds.
#include <bit>
#include <initializer_list>
#include <limits>
#include <string>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"
#include "sim/sfpu_state.hpp"

namespace tessel::sim {

using namespace detail;

namespace {

// An init: replaces the SFPU configuration with the ops it configures.
void configure(ComputeState& s, std::initializer_list<uint32_t> ops, uint32_t init_op, const char* file,
               uint32_t line) {
  s.sfpu_ops.reset();
  s.sfpu_binary_ops.reset();
  s.sfpu_ternary_ops.reset();
  s.sfpu_state_ops.reset();
  for (uint32_t op : ops)
    s.sfpu_state_ops.set(op);
  s.sfpu_site = {sfpu_state_name(init_op), file, line};
}

const char* init_of(uint32_t op) {
  switch (op) {
  case TESSEL_SFPU_STATE_EMA: return "ema_init(alpha, beta)";
  case TESSEL_SFPU_STATE_CUMSUM: return "cumsum_tile_init()";
  case TESSEL_SFPU_STATE_DROPOUT: return "dropout_kernel_init(seed)";
  case TESSEL_SFPU_STATE_MASK:
  case TESSEL_SFPU_STATE_MASK_POSINF: return "mask_tile_init()";
  default: return "sfpu_sum_int_init()";
  }
}

void need_configured(tessel_kernel_ctx* k, const CallText& what, uint32_t op, const char* file, uint32_t line) {
  const ComputeState& s = state_of(k);
  if (__builtin_expect(s.sfpu_state_ops.test(op), 1)) return;
  std::string msg = text(what) + ": the SFPU is not configured for " + sfpu_state_name(op) + ": call " + init_of(op) +
                    " first" +
                    (s.sfpu_site.call ? std::string(" (the last SFPU init was ") + s.sfpu_site.call + " at " +
                                            site(s.sfpu_site.file, s.sfpu_site.line) + ")"
                                      : std::string(" (no SFPU init was called in this kernel)"));
  fail(k, std::move(msg), file, line);
}

// The second tile of a two-tile op: idst + 1 must be in the held section.
void need_next_tile(tessel_kernel_ctx* k, const CallText& what, uint32_t idst, const char* role, const char* file,
                    uint32_t line) {
  const uint32_t cap = dst_capacity(k);
  if (__builtin_expect(idst + 1 < cap, 1)) return;
  std::string msg = text(what) + ": " + role + " DST tile idst + 1 = " + num(idst + 1) +
                    ", beyond the tiles one acquire holds in " + dst_mode(k) + " mode (indices 0.." + num(cap - 1) +
                    "): pass idst <= " + num(cap - 2);
  fail(k, std::move(msg), file, line);
}

void store_all(float* d, bool dst_32bit) {
  if (dst_32bit) return;
  for (uint32_t i = 0; i < kTileHW; ++i)
    d[i] = sfpu_store(d[i], false);
}

} // namespace

void api_sfpu_state(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, const char* file,
                    uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "an SFPU op", file, line);
  check_compute(k, op < TESSEL_SFPU_STATE_OP_COUNT ? sfpu_state_name(op) : "SFPU op", file, line);
  if (__builtin_expect(op >= TESSEL_SFPU_STATE_OP_COUNT, 0)) {
    std::string msg = "unknown SFPU state op " + num(op);
    fail(k, std::move(msg), file, line);
  }
  ComputeState& s = state_of(k);
  const CallText what{CallText::SfpuState, op, {idst}};
  const bool dst_32bit = k->fp32_dest_acc_en != 0;
  switch (op) {
  case TESSEL_SFPU_STATE_RAND_INIT:
    configure(s, {TESSEL_SFPU_STATE_RAND}, op, file, line);
    s.prng.seed(p0);
    return;
  case TESSEL_SFPU_STATE_EMA_INIT:
    configure(s, {TESSEL_SFPU_STATE_EMA}, op, file, line);
    s.ema.alpha = std::bit_cast<float>(p0);
    s.ema.beta = std::bit_cast<float>(p1);
    return;
  case TESSEL_SFPU_STATE_SUM_INT_INIT:
    configure(s, {TESSEL_SFPU_STATE_SUM_INT_COL, TESSEL_SFPU_STATE_SUM_INT_ROW, TESSEL_SFPU_STATE_ADD_INT}, op, file,
              line);
    return;
  case TESSEL_SFPU_STATE_CUMSUM_INIT: configure(s, {TESSEL_SFPU_STATE_CUMSUM}, op, file, line); return;
  case TESSEL_SFPU_STATE_DROPOUT_INIT:
    configure(s, {TESSEL_SFPU_STATE_DROPOUT}, op, file, line);
    s.prng.seed(p0);
    return;
  case TESSEL_SFPU_STATE_CUMSUM: {
    need_configured(k, what, op, file, line);
    // The carry lives in SFPU registers nothing initialises: continuing it
    // before any cumsum_tile of this kernel reads whatever they hold.
    if (p0 == 0 && !s.cumsum.set)
      core_of(k).chip->warn(fiber_of(k),
                            text(what) +
                                ": first is false, but no cumsum_tile ran before it in this kernel: the carry "
                                "registers hold whatever the SFPU left there (tessel starts from 0); pass first = "
                                "true for a column's first tile",
                            file, line);
    float* d = math_dst(k, what, idst, file, line, Access::Update);
    sfpu_cumsum(s.cumsum, d, p0 != 0, dst_32bit);
    return;
  }
  case TESSEL_SFPU_STATE_DROPOUT: {
    need_configured(k, what, op, file, line);
    float* d = math_dst(k, what, idst, file, line, Access::Update);
    sfpu_dropout(s.prng, d, p0, p1, dst_32bit);
    return;
  }
  case TESSEL_SFPU_STATE_MASK_INIT:
    configure(s, {TESSEL_SFPU_STATE_MASK, TESSEL_SFPU_STATE_MASK_POSINF}, op, file, line);
    return;
  case TESSEL_SFPU_STATE_MASK:
  case TESSEL_SFPU_STATE_MASK_POSINF: {
    need_configured(k, what, op, file, line);
    need_next_tile(k, what, idst, "reads its mask from", file, line);
    // tt-llk reads the mask from the next tile, whatever idst2_mask says.
    if (p0 != idst + 1)
      core_of(k).chip->warn(fiber_of(k),
                            text(what) + ": idst2_mask is " + num(p0) + ", but silicon reads the mask from DST tile " +
                                "idst + 1 = " + num(idst + 1) + " whatever idst2_mask says; pass idst2_mask = " +
                                num(idst + 1) + " (or put the mask there)",
                            file, line);
    const DataFormat f = DataFormat(p1);
    const bool float_mask = f == DataFormat::Float16_b || f == DataFormat::Float16;
    if (op == TESSEL_SFPU_STATE_MASK && !float_mask && f != DataFormat::Int32) {
      core_of(k).chip->warn(fiber_of(k),
                            text(what) + ": data_format " + to_string(f) +
                                " leaves the tile unchanged on silicon (mask_tile masks Float16_b, Float16 and Int32 "
                                "tiles only)",
                            file, line);
      return;
    }
    float* d = math_dst(k, what, idst, file, line, Access::Update);
    const float* m = math_dst(k, what, idst + 1, file, line, Access::Update);
    sfpu_mask(d, m, op == TESSEL_SFPU_STATE_MASK && f == DataFormat::Int32,
              op == TESSEL_SFPU_STATE_MASK ? 0.0f : std::numeric_limits<float>::infinity());
    return;
  }
  case TESSEL_SFPU_STATE_EMA_CLEAR:
    for (float& v : s.ema.prev)
      v = 0.0f;
    return;
  case TESSEL_SFPU_STATE_RAND: {
    float* d = math_dst(k, what, idst, file, line, Access::Overwrite);
    sfpu_rand(s.prng, d, p0, p1);
    store_all(d, dst_32bit);
    return;
  }
  case TESSEL_SFPU_STATE_EMA: {
    need_configured(k, what, op, file, line);
    need_next_tile(k, what, idst, "writes its output to", file, line);
    const float* in = math_dst(k, what, idst, file, line, Access::Update);
    float* out = math_dst(k, what, idst + 1, file, line, Access::Overwrite);
    sfpu_ema(s.ema, in, out, dst_32bit);
    return;
  }
  case TESSEL_SFPU_STATE_SUM_INT_COL:
  case TESSEL_SFPU_STATE_SUM_INT_ROW: {
    need_configured(k, what, op, file, line);
    float* d = math_dst(k, what, idst, file, line, Access::Update);
    if (op == TESSEL_SFPU_STATE_SUM_INT_COL)
      sfpu_sum_int_col(d);
    else
      sfpu_sum_int_row(d);
    if (!dst_32bit) round_in_place(d);
    return;
  }
  default: { // TESSEL_SFPU_STATE_ADD_INT
    need_configured(k, what, op, file, line);
    need_next_tile(k, what, idst, "adds", file, line);
    // tt-llk's add_int takes dst_offset but always adds the next tile.
    if (p0 != idst + 1)
      core_of(k).chip->warn(
          fiber_of(k),
          text(what) + ": dst_offset is " + num(p0) + ", but silicon adds DST tile idst + 1 = " + num(idst + 1) +
              " whatever dst_offset says; pass dst_offset = " + num(idst + 1) + " (or put the second operand there)",
          file, line);
    float* a = math_dst(k, what, idst, file, line, Access::Update);
    const float* b = math_dst(k, what, idst + 1, file, line, Access::Update);
    sfpu_add_int(a, b);
    if (!dst_32bit) round_in_place(a);
    return;
  }
  }
}

} // namespace tessel::sim
