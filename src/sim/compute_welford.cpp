// Welford's online mean and M2 on the SFPU (tessel/welford.h), as tt-llk's
// Welford kernels compute them, on the compute core's running state
// (welford.hpp: one mean and one M2 per tile column).
//
// One update step of a lane, for the sample x of its column in a tile row
// and the reciprocal w = 1 / (n + 1) of the sample's count n + 1, is the
// LLK's chain of SFPMADs, each with one rounding (flushed denormals):
//     d = x - mean;  mean' = d * w + mean;  m2' = (x - mean) * (x - mean') + m2
// Finalizing multiplies M2 by the reciprocal scale_idx selects (1 / (scale_idx
// + 1)): scale_idx = N - 1 gives the population variance of N samples.
//
// Checks: an update before any welford_init in the kernel (the recurrence is
// not recorded) is an error, as is a reciprocal read beyond the table
// (start_idx and scale_idx index it), a row range beyond the tile, and a DST
// tile beyond the acquired section. A finalize with no sample since the
// state was cleared, and an update, save or finalize of a state a finalize
// consumed, are warnings: silicon runs them, the results are zeros or the
// leftovers of the finalize.
#include <cstring>
#include <string>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"
#include "sim/welford.hpp"

namespace tessel::sim {

using namespace detail;

namespace {

constexpr uint32_t kTileRows = 32;
constexpr uint32_t kDstRowsPerTile = 64; // DST rows of 16 datums

uint32_t bits_of(float x) { return __builtin_bit_cast(uint32_t, x); }
float float_of(uint32_t b) { return __builtin_bit_cast(float, b); }
// SFPMAD's operand and result rule: a zero exponent reads and writes as +0.
float flush(float x) { return (bits_of(x) & 0x7f800000u) ? x : 0.0f; }
float mad(float a, float b, float c) { return flush(__builtin_fmaf(flush(a), flush(b), flush(c))); }

// SFPSTORE into DST: all 32 bits with fp32_dest_acc_en; into 16-bit DST,
// bfloat16 truncated toward zero, denormals flushed to signed zero.
float dst_value(const tessel_kernel_ctx* k, float v) {
  if (k->fp32_dest_acc_en) return v;
  const uint32_t b = bits_of(v);
  return float_of((b & 0x7f800000u) ? b & 0xffff0000u : b & 0x80000000u);
}

// Index in a DST tile (faces of 16 x 16, face f at DST rows 16f..) of tile
// row `row`, column `col`.
uint32_t tile_index(uint32_t row, uint32_t col) {
  const uint32_t face = (row >> 4) * 2 + (col >> 4);
  return (face * 16 + (row & 15u)) * 16 + (col & 15u);
}

} // namespace

const char* welford_op_name(uint32_t op) {
  switch (op) {
  case TESSEL_WELFORD_INIT: return "welford_init";
  case TESSEL_WELFORD_CLEAR: return "welford_clear";
  case TESSEL_WELFORD_UPDATE: return "welford_update";
  case TESSEL_WELFORD_UPDATE_ROWS: return "welford_update_rows";
  case TESSEL_WELFORD_SAVE:
  case TESSEL_WELFORD_SAVE_GROUP: return "welford_save_state";
  case TESSEL_WELFORD_RESTORE:
  case TESSEL_WELFORD_RESTORE_GROUP: return "welford_restore_state";
  case TESSEL_WELFORD_TO_ROW: return "welford_finalize_to_row";
  case TESSEL_WELFORD_TO_FACE:
  case TESSEL_WELFORD_TO_FACE_GROUP: return "welford_finalize_to_face";
  default: return "welford op";
  }
}

namespace {

// The reciprocal of table entry `idx` (its float bits), or 1 / (idx + 1)
// without a table. Reading beyond the table is an error.
float reciprocal(tessel_kernel_ctx* k, const CallText& what, const char* index_name, uint32_t idx, const uint32_t* lut,
                 uint32_t lut_size, const char* file, uint32_t line) {
  if (lut_size == 0) return 1.0f / float(idx + 1u);
  if (__builtin_expect(idx >= lut_size, 0)) {
    std::string msg = text(what) + ": reads reciprocal_lut[" + num(idx) + "], beyond the table's " + num(lut_size) +
                      " entries (" + index_name + " must stay below " + num(lut_size) +
                      "); silicon would read whatever memory follows the table";
    fail(k, std::move(msg), file, line);
  }
  return float_of(lut[idx]);
}

// The DST tile holding absolute DST row `row` of the section (tile idst
// starts at row 64 idst), checked against the section.
float* dst_tile_at_row(tessel_kernel_ctx* k, const CallText& what, uint32_t row, const char* role, const char* file,
                       uint32_t line) {
  const uint32_t t = row / kDstRowsPerTile;
  if (__builtin_expect(t >= dst_capacity(k), 0)) {
    const uint32_t cap = dst_capacity(k);
    std::string msg = text(what) + ": writes or reads the " + role + " in DST tile " + num(t) +
                      ", out of range: one acquire holds " + num(cap) + " tiles in " + dst_mode(k) +
                      " mode (indices 0.." + num(cap - 1) + "; the M2 or variance tile follows the mean's)";
    fail(k, std::move(msg), file, line);
  }
  return math_dst(k, what, t, file, line, Access::Update);
}

// The raw layout: lane l at row (row & ~3) + l / 8 of the tile that holds
// DST row `row`, column 2 (l % 8).
void store_raw(tessel_kernel_ctx* k, float* tile, uint32_t row, const float* lanes) {
  const uint32_t first = (row % kDstRowsPerTile) & ~3u;
  for (uint32_t l = 0; l < kWelfordLanes; ++l)
    tile[(first + (l >> 3)) * 16 + 2 * (l & 7u)] = dst_value(k, lanes[l]);
}
void load_raw(const float* tile, uint32_t row, float* lanes) {
  const uint32_t first = (row % kDstRowsPerTile) & ~3u;
  for (uint32_t l = 0; l < kWelfordLanes; ++l)
    lanes[l] = tile[(first + (l >> 3)) * 16 + 2 * (l & 7u)];
}

// A state a finalize consumed, used again without a clear, init or restore:
// a warning.
void warn_if_consumed(tessel_kernel_ctx* k, const CallText& what, const WelfordState& w, const char* file,
                      uint32_t line) {
  if (w.stats != WelfordState::Stats::Finalized) return;
  std::string msg =
      text(what) + ": the running mean and M2 were consumed by " + w.finalized.call + " at " +
      site(w.finalized.file, w.finalized.line) +
      " (it leaves the variance, or for finalize_to_row transposed leftovers, in the SFPU registers); silicon "
      "continues from those values: call welford_clear(), welford_init() or welford_restore_state() first";
  core_of(k).chip->warn(fiber_of(k), std::move(msg), file, line);
}

void update(tessel_kernel_ctx* k, const CallText& what, WelfordState& w, uint32_t idst, uint32_t start_idx,
            uint32_t start_row, uint32_t num_rows, const uint32_t* lut, uint32_t lut_size, const char* file,
            uint32_t line) {
  if (__builtin_expect(!w.programmed, 0)) {
    std::string msg = text(what) +
                      ": the SFPU's replay buffer holds no Welford recurrence in this kernel: call welford_init() "
                      "(it records the recurrence and clears the running mean and M2) before the first update";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(start_row + num_rows > kTileRows || start_row + num_rows < start_row, 0)) {
    std::string msg = text(what) + ": rows " + num(start_row) + ".." + num(start_row + num_rows - 1) +
                      " reach beyond the tile's 32 rows (start_row + num_rows must be at most 32)";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(lut_size != 0 && start_idx >= lut_size, 0))
    reciprocal(k, what, "start_idx", start_idx, lut, lut_size, file, line);
  const float* x = math_dst(k, what, idst, file, line, Access::Update);
  if (num_rows == 0) return;
  if (lut_size != 0 && start_idx + num_rows > lut_size)
    reciprocal(k, what, what.op == TESSEL_WELFORD_UPDATE ? "start_idx + 31" : "start_idx + num_rows - 1",
               start_idx + num_rows - 1, lut, lut_size, file, line);
  warn_if_consumed(k, what, w, file, line);
  for (uint32_t i = 0; i < num_rows; ++i) {
    const uint32_t row = start_row + i;
    const float r = reciprocal(k, what, "start_idx", start_idx + i, lut, lut_size, file, line);
    for (uint32_t l = 0; l < kWelfordLanes; ++l) {
      const float v = x[tile_index(row, welford_lane_column(l))];
      const float mean = w.mean[l];
      const float mean_next = mad(mad(-1.0f, mean, v), r, mean);
      w.m2[l] = mad(mad(-1.0f, mean, v), mad(-1.0f, mean_next, v), w.m2[l]);
      w.mean[l] = mean_next;
    }
  }
  w.stats = WelfordState::Stats::Running;
}

// The variance of each lane, M2 times the reciprocal scale_idx selects.
void variance(tessel_kernel_ctx* k, const CallText& what, const WelfordState& w, uint32_t scale_idx,
              const uint32_t* lut, uint32_t lut_size, float* out, const char* file, uint32_t line) {
  const float r = reciprocal(k, what, "scale_idx", scale_idx, lut, lut_size, file, line);
  for (uint32_t l = 0; l < kWelfordLanes; ++l)
    out[l] = mad(r, w.m2[l], 0.0f);
}

void warn_if_empty(tessel_kernel_ctx* k, const CallText& what, const WelfordState& w, const char* file, uint32_t line) {
  if (w.stats != WelfordState::Stats::Empty) return;
  std::string msg = text(what) + ": no sample reached the running mean and M2 since " +
                    (w.cleared.call ? std::string(w.cleared.call) + " at " + site(w.cleared.file, w.cleared.line)
                                    : std::string("the kernel started")) +
                    ", so the mean and variance written are zeros: call welford_update (or welford_restore_state) "
                    "first";
  core_of(k).chip->warn(fiber_of(k), std::move(msg), file, line);
}

// finalize_to_row: row 0 of the mean tile and of the next tile hold the mean
// and the variance of each column; rows 1..3 of faces 0 and 1 are zeroed.
// The SFPU registers are left transposed: the mean lanes of row 0 hold the
// variance of lanes 0..7, the M2 lanes of row 0 that of lanes 8..15, the
// rest zeros.
void finalize_to_row(tessel_kernel_ctx* k, const CallText& what, WelfordState& w, uint32_t idst, uint32_t scale_idx,
                     const uint32_t* lut, uint32_t lut_size, const char* file, uint32_t line) {
  warn_if_empty(k, what, w, file, line);
  warn_if_consumed(k, what, w, file, line);
  float var[kWelfordLanes];
  variance(k, what, w, scale_idx, lut, lut_size, var, file, line);
  float* mean_tile = dst_tile_at_row(k, what, idst * kDstRowsPerTile, "mean", file, line);
  float* var_tile = dst_tile_at_row(k, what, (idst + 1) * kDstRowsPerTile, "variance", file, line);
  for (uint32_t row = 0; row < 4; ++row)
    for (uint32_t col = 0; col < kTileRows; ++col) {
      const uint32_t l = welford_column_lane(col);
      mean_tile[tile_index(row, col)] = row == 0 ? dst_value(k, w.mean[l]) : 0.0f;
      var_tile[tile_index(row, col)] = row == 0 ? dst_value(k, var[l]) : 0.0f;
    }
  for (uint32_t l = 0; l < kWelfordLanes; ++l) {
    w.mean[l] = l < 8 ? var[l] : 0.0f;
    w.m2[l] = l < 8 ? var[8 + l] : 0.0f;
  }
}

} // namespace

TESSEL_COLD std::string detail::welford_text(uint32_t op, const uint32_t* v) {
  // v: idst, a, b, c, lut_size
  const std::string n = "<" + num(v[4]) + ">";
  const std::string dst = "mean_dst_idx=" + num(v[0]);
  switch (op) {
  case TESSEL_WELFORD_INIT: return v[1] ? "welford_init<ClearStats>" : "welford_init<PreserveStats>";
  case TESSEL_WELFORD_CLEAR: return "welford_clear";
  case TESSEL_WELFORD_UPDATE:
    return "welford_update" + n + "(input_dst_idx=" + num(v[0]) + ", start_idx=" + num(v[1]) + ")";
  case TESSEL_WELFORD_UPDATE_ROWS:
    return "welford_update_rows" + n + "(input_dst_idx=" + num(v[0]) + ", start_idx=" + num(v[1]) +
           ", start_row=" + num(v[2]) + ", num_rows=" + num(v[3]) + ")";
  case TESSEL_WELFORD_SAVE: return "welford_save_state(" + dst + ")";
  case TESSEL_WELFORD_SAVE_GROUP: return "welford_save_state(" + dst + ", group_id=" + num(v[1]) + ")";
  case TESSEL_WELFORD_RESTORE: return "welford_restore_state(" + dst + ")";
  case TESSEL_WELFORD_RESTORE_GROUP: return "welford_restore_state(" + dst + ", group_id=" + num(v[1]) + ")";
  case TESSEL_WELFORD_TO_ROW: return "welford_finalize_to_row" + n + "(" + dst + ", scale_idx=" + num(v[2]) + ")";
  case TESSEL_WELFORD_TO_FACE: return "welford_finalize_to_face" + n + "(" + dst + ", scale_idx=" + num(v[2]) + ")";
  case TESSEL_WELFORD_TO_FACE_GROUP:
    return "welford_finalize_to_face" + n + "(" + dst + ", group_id=" + num(v[1]) + ", scale_idx=" + num(v[2]) + ")";
  default: return "welford op " + num(op);
  }
}

void api_welford(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t a, uint32_t b, uint32_t c,
                 const uint32_t* lut, uint32_t lut_size, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "a Welford op", file, line);
  check_compute(k, welford_op_name(op), file, line);
  if (__builtin_expect(op >= TESSEL_WELFORD_OP_COUNT, 0)) {
    std::string msg = "unknown Welford op " + num(op);
    fail(k, std::move(msg), file, line);
  }
  const CallText what{CallText::Welford, op, {idst, a, b, c, lut_size}};
  WelfordState& w = state_of(k).welford;
  const bool group =
      op == TESSEL_WELFORD_SAVE_GROUP || op == TESSEL_WELFORD_RESTORE_GROUP || op == TESSEL_WELFORD_TO_FACE_GROUP;
  // The raw layout's first DST row (mean; M2 or variance 64 rows on).
  const uint32_t raw_row = idst * kDstRowsPerTile + (group ? a << 2 : 0u);
  switch (op) {
  case TESSEL_WELFORD_INIT:
    w.programmed = true;
    if (!a) return;
    [[fallthrough]];
  case TESSEL_WELFORD_CLEAR:
    std::memset(w.mean, 0, sizeof w.mean);
    std::memset(w.m2, 0, sizeof w.m2);
    w.stats = WelfordState::Stats::Empty;
    w.cleared = {op == TESSEL_WELFORD_INIT ? "welford_init" : "welford_clear", file, line};
    return;
  case TESSEL_WELFORD_UPDATE: update(k, what, w, idst, a, 0, kTileRows, lut, lut_size, file, line); return;
  case TESSEL_WELFORD_UPDATE_ROWS: update(k, what, w, idst, a, b, c, lut, lut_size, file, line); return;
  case TESSEL_WELFORD_SAVE:
  case TESSEL_WELFORD_SAVE_GROUP: {
    warn_if_consumed(k, what, w, file, line);
    float* mean_tile = dst_tile_at_row(k, what, raw_row, "mean", file, line);
    float* m2_tile = dst_tile_at_row(k, what, raw_row + kDstRowsPerTile, "M2", file, line);
    store_raw(k, mean_tile, raw_row, w.mean);
    store_raw(k, m2_tile, raw_row + kDstRowsPerTile, w.m2);
    return;
  }
  case TESSEL_WELFORD_RESTORE:
  case TESSEL_WELFORD_RESTORE_GROUP: {
    const float* mean_tile = dst_tile_at_row(k, what, raw_row, "mean", file, line);
    const float* m2_tile = dst_tile_at_row(k, what, raw_row + kDstRowsPerTile, "M2", file, line);
    load_raw(mean_tile, raw_row, w.mean);
    load_raw(m2_tile, raw_row + kDstRowsPerTile, w.m2);
    w.stats = WelfordState::Stats::Running;
    return;
  }
  case TESSEL_WELFORD_TO_ROW:
    finalize_to_row(k, what, w, idst, b, lut, lut_size, file, line);
    w.stats = WelfordState::Stats::Finalized;
    w.finalized = {"welford_finalize_to_row", file, line};
    return;
  default: { // finalize_to_face: the variance replaces M2 in the registers
    warn_if_empty(k, what, w, file, line);
    warn_if_consumed(k, what, w, file, line);
    float var[kWelfordLanes];
    variance(k, what, w, b, lut, lut_size, var, file, line);
    float* mean_tile = dst_tile_at_row(k, what, raw_row, "mean", file, line);
    float* var_tile = dst_tile_at_row(k, what, raw_row + kDstRowsPerTile, "variance", file, line);
    std::memcpy(w.m2, var, sizeof var);
    store_raw(k, mean_tile, raw_row, w.mean);
    store_raw(k, var_tile, raw_row + kDstRowsPerTile, w.m2);
    w.stats = WelfordState::Stats::Finalized;
    w.finalized = {"welford_finalize_to_face", file, line};
    return;
  }
  }
}

} // namespace tessel::sim
