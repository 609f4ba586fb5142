// The running state of Welford's algorithm on one compute core
// (tessel/welford.h; compute_welford.cpp), as the SFPU keeps it in LREG4
// (mean) and LREG5 (M2) between calls: 32 lanes, one per tile column.
//
// Lane layout. Lane l sits at row r = l / 8, column c = l % 8 of the SFPU's
// 4 x 8 grid. An update loads four tile rows at a time and transposes them
// so that one register holds one tile row; lane l then holds column
//
//     col(l) = 16 * (r / 2) + 2 * c + (r % 2)
//
// (r 0: even columns of face 0, 1: odd columns of face 0, 2 and 3: the same
// for face 1). Each lane accumulates its column's samples; the state lives
// across DST acquires and tiles, and only welford_init (ClearStats),
// welford_clear and welford_restore_state replace it.
//
// welford_save_state and welford_finalize_to_face store the two registers
// as they are ("raw"): lane l at DST row 4 * group_id + r, column 2 * c of
// the tile (the mean's; M2 or the variance one tile later).
#pragma once

#include <cstdint>

namespace tessel::sim {

inline constexpr uint32_t kWelfordLanes = 32;

// The tile column lane l accumulates, and the lane of tile column `col`.
constexpr uint32_t welford_lane_column(uint32_t l) { return 16u * ((l >> 3) >> 1) + 2u * (l & 7u) + ((l >> 3) & 1u); }
constexpr uint32_t welford_column_lane(uint32_t col) {
  return 8u * (((col >> 4) << 1) | (col & 1u)) + ((col & 15u) >> 1);
}

struct WelfordState {
  // A call that set or consumed the state, for messages.
  struct Site {
    const char* call = nullptr;
    const char* file = nullptr;
    uint32_t line = 0;
  };
  // What the registers hold: zeros since an init or clear (Empty), running
  // statistics (Running), or what a finalize left there (Finalized:
  // finalize_to_face turns M2 into the variance, finalize_to_row overwrites
  // both).
  enum class Stats : uint8_t { Empty, Running, Finalized };

  float mean[kWelfordLanes] = {};
  float m2[kWelfordLanes] = {};
  bool programmed = false; // welford_init recorded the recurrence since the launch
  Stats stats = Stats::Empty;
  Site cleared;   // the init or clear that emptied the state
  Site finalized; // the finalize that consumed it

  void reset() { *this = WelfordState{}; }
};

} // namespace tessel::sim
