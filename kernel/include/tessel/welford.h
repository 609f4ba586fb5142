// Welford's online mean and variance on the SFPU (api/compute/welford.h), with
// TT-Metalium's names, template parameters and argument orders:
//   welford_init<mode>()          programs the recurrence; ClearStats also zeroes the running state
//   welford_reinit(cb)            the unpacker and MATH set up as copy_tile_to_dst_init_short(cb) does
//   welford_clear()               zeroes the running mean and M2
//   welford_update<N>(idst, start_idx, lut)                            rows 0..31 of DST[idst]
//   welford_update_rows<N>(idst, start_idx, start_row, num_rows, lut)  rows start_row.. of DST[idst]
//   welford_save_state(idst[, group_id]) / welford_restore_state(idst[, group_id])
//   welford_finalize_to_row<N>(idst, scale_idx, lut)
//   welford_finalize_to_face<N>(idst[, group_id], scale_idx, lut)
// The running state is one mean and one M2 per tile column, kept by the
// compute core between calls (the SFPU's LREG4 and LREG5), not in DST. Row i
// of an update is sample start_idx + i of its column and uses the
// reciprocal 1 / (start_idx + i + 1): lut[start_idx + i] (float bits) when
// N > 0, else computed. The layouts in DST are described in
// docs/numerics.md ("Welford"); the simulator side is
// src/sim/compute_welford.cpp.
#ifndef TESSEL_WELFORD_H
#define TESSEL_WELFORD_H

#include <array>

#include "tessel/compute.h"

namespace ckernel {

// Whether welford_init clears the running mean and M2 (ClearStats) or keeps
// them (PreserveStats: re-arming the recurrence mid-pass after another op).
enum class WelfordInitMode : uint8_t {
  ClearStats,
  PreserveStats,
};

namespace tessel_welford {
inline void call(uint32_t op, uint32_t idst, uint32_t a, uint32_t b, uint32_t c, const uint32_t* lut, uint32_t lut_size,
                 const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->welford(k, op, idst, a, b, c, lut, lut_size, file, line);
}
// The call site's file name. A class, so that a literal 0 passed as
// group_id picks the group_id overload (0 converts to const char* as well).
struct File {
  const char* name;
  File(const char* n) : name(n) {} // NOLINT: implicit from __builtin_FILE()
};
} // namespace tessel_welford

// The call site, for the overloads that differ by a group_id.
#define TESSEL_WELFORD_SITE_PARAMS                                                                                     \
  tessel_welford::File tessel_file = __builtin_FILE(), uint32_t tessel_line = __builtin_LINE()
#define TESSEL_WELFORD_SITE tessel_file.name, tessel_line

template <WelfordInitMode mode = WelfordInitMode::ClearStats>
ALWI void welford_init(TESSEL_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_INIT, 0, mode == WelfordInitMode::ClearStats ? 1u : 0u, 0, 0, nullptr, 0,
                       TESSEL_SITE);
}

// call_line is Metalium's own call-site parameter (for its sentinel).
ALWI void welford_reinit(uint32_t cbid, uint32_t call_line = __builtin_LINE(),
                         const char* tessel_file = __builtin_FILE()) {
  tessel_compute::init(TESSEL_INIT_COPY, "welford_reinit", cbid, 0, 0, tessel_file, call_line);
}

ALWI void welford_clear(TESSEL_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_CLEAR, 0, 0, 0, 0, nullptr, 0, TESSEL_SITE);
}

template <uint32_t reciprocal_size>
ALWI void welford_update(uint32_t input_dst_idx, uint32_t start_idx,
                         const std::array<uint32_t, reciprocal_size>& reciprocal_lut, TESSEL_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_UPDATE, input_dst_idx, start_idx, 0, 32, reciprocal_lut.data(), reciprocal_size,
                       TESSEL_SITE);
}

template <uint32_t reciprocal_size>
ALWI void welford_update_rows(uint32_t input_dst_idx, uint32_t start_idx, uint32_t start_row, uint32_t num_rows,
                              const std::array<uint32_t, reciprocal_size>& reciprocal_lut, TESSEL_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_UPDATE_ROWS, input_dst_idx, start_idx, start_row, num_rows, reciprocal_lut.data(),
                       reciprocal_size, TESSEL_SITE);
}

ALWI void welford_save_state(uint32_t mean_dst_idx, TESSEL_WELFORD_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_SAVE, mean_dst_idx, 0, 0, 0, nullptr, 0, TESSEL_WELFORD_SITE);
}
ALWI void welford_save_state(uint32_t mean_dst_idx, uint32_t group_id, TESSEL_WELFORD_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_SAVE_GROUP, mean_dst_idx, group_id, 0, 0, nullptr, 0, TESSEL_WELFORD_SITE);
}

ALWI void welford_restore_state(uint32_t mean_dst_idx, TESSEL_WELFORD_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_RESTORE, mean_dst_idx, 0, 0, 0, nullptr, 0, TESSEL_WELFORD_SITE);
}
ALWI void welford_restore_state(uint32_t mean_dst_idx, uint32_t group_id, TESSEL_WELFORD_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_RESTORE_GROUP, mean_dst_idx, group_id, 0, 0, nullptr, 0, TESSEL_WELFORD_SITE);
}

template <std::size_t reciprocal_size>
ALWI void welford_finalize_to_row(uint32_t mean_dst_idx, uint32_t scale_idx,
                                  const std::array<uint32_t, reciprocal_size>& reciprocal_lut, TESSEL_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_TO_ROW, mean_dst_idx, 0, scale_idx, 0, reciprocal_lut.data(),
                       uint32_t(reciprocal_size), TESSEL_SITE);
}

template <std::size_t reciprocal_size>
ALWI void welford_finalize_to_face(uint32_t mean_dst_idx, uint32_t scale_idx,
                                   const std::array<uint32_t, reciprocal_size>& reciprocal_lut,
                                   TESSEL_WELFORD_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_TO_FACE, mean_dst_idx, 0, scale_idx, 0, reciprocal_lut.data(),
                       uint32_t(reciprocal_size), TESSEL_WELFORD_SITE);
}
template <std::size_t reciprocal_size>
ALWI void welford_finalize_to_face(uint32_t mean_dst_idx, uint32_t group_id, uint32_t scale_idx,
                                   const std::array<uint32_t, reciprocal_size>& reciprocal_lut,
                                   TESSEL_WELFORD_SITE_PARAMS) {
  tessel_welford::call(TESSEL_WELFORD_TO_FACE_GROUP, mean_dst_idx, group_id, scale_idx, 0, reciprocal_lut.data(),
                       uint32_t(reciprocal_size), TESSEL_WELFORD_SITE);
}

} // namespace ckernel

#endif // TESSEL_WELFORD_H
