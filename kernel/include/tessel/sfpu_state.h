// SFPU ops that keep state in the SFPU between calls or combine a tile's
// rows, columns or neighbour tile, with TT-Metalium's names and argument
// orders: eltwise_unary/rand.h (the PRNG), ema.h (exponential moving
// average), eltwise_unary/sfpu_int_sum.h (integer sums), cumsum.h (running
// sums down a tile's columns), eltwise_unary/dropout.h (which draws from
// rand's PRNG) and mask.h (which reads the next DST tile). Only those headers include this one. What each op computes:
// src/sim/sfpu_state.hpp.
//
// rand. rand_tile_init(seed) seeds this core's PRNG (an SFPU init); the PRNG
// keeps its state on the core from one program to the next, so rand_tile
// needs no init of its own and continues from wherever the last seed left
// it. rand_tile(idst, from, scale): every element uniform in
// [from, from + scale) (float bits).
//
// ema. ema_init(alpha, beta) (float bits) configures the SFPU for ema_tile;
// ema_clear_previous_output() zeroes the running value of each column;
// ema_tile(idst) runs it down the rows of DST[idst] and writes the averages
// to DST[idst + 1].
//
// Integer sums (Int32 tiles, wrapping at 32 bits), after
// sfpu_sum_int_init(): sfpu_sum_int_col / sfpu_sum_int_row leave partial
// column / row sums in part of the tile, as tt-llk's kernels do;
// sfpu_add_int(idst, dst_offset) adds DST[idst + 1] to DST[idst] (silicon
// ignores dst_offset; a dst_offset other than idst + 1 is warned about).
//
// cumsum. cumsum_tile(idst, first) replaces every column of DST[idst] by its
// running sums down rows 0..31; with first == false each column starts from
// the last row of the previous cumsum_tile (the SFPU keeps it in registers,
// across cumsum_tile_init), so tiles stacked along a column are summed as one.
//
// dropout. dropout_kernel_init(seed) seeds the PRNG as rand_tile_init does;
// dropout_tile(idst, probability, scale) zeroes each element whose 31-bit
// PRNG draw is at most probability (of 2^31) and multiplies the others by
// scale (float bits).
//
// mask. mask_tile(idst, idst2_mask, format) zeroes each element of DST[idst]
// whose element in DST[idst + 1] is zero (tt-llk reads the next tile
// whatever idst2_mask says; another idst2_mask is warned about), comparing
// as floats for Float16_b and Float16, as integers for Int32; silicon does
// nothing for another format (warned about). mask_posinf_tile writes +inf
// instead of 0.
#ifndef TESSEL_SFPU_STATE_H
#define TESSEL_SFPU_STATE_H

#include "tessel/compute.h"

namespace ckernel {

namespace tessel_sfpu {
inline void state(uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sfpu_state(k, op, idst, p0, p1, file, line);
}
} // namespace tessel_sfpu

// ---------------------------------------------------------------------------
// rand (eltwise_unary/rand.h)

ALWI void rand_tile_init(uint32_t seed = 0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_RAND_INIT, 0, seed, 0, TESSEL_SITE);
}
ALWI void rand_tile(uint32_t idst, uint32_t from, uint32_t scale, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_RAND, idst, from, scale, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Exponential moving average (ema.h)

ALWI void ema_init(uint32_t alpha, uint32_t beta, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_EMA_INIT, 0, alpha, beta, TESSEL_SITE);
}
ALWI void ema_clear_previous_output(TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_EMA_CLEAR, 0, 0, 0, TESSEL_SITE);
}
ALWI void ema_tile(uint32_t input_dst_index, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_EMA, input_dst_index, 0, 0, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Integer sums (eltwise_unary/sfpu_int_sum.h)

ALWI void sfpu_sum_int_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_SUM_INT_INIT, 0, 0, 0, TESSEL_SITE);
}
ALWI void sfpu_sum_int_col(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_SUM_INT_COL, idst, 0, 0, TESSEL_SITE);
}
ALWI void sfpu_sum_int_row(uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_SUM_INT_ROW, idst, 0, 0, TESSEL_SITE);
}
// iterations: Metalium's signature takes it and runs 8 whatever it says.
ALWI void sfpu_add_int(uint32_t idst, uint32_t dst_offset = 2, int32_t iterations = 8, TESSEL_SITE_PARAMS) {
  (void)iterations;
  tessel_sfpu::state(TESSEL_SFPU_STATE_ADD_INT, idst, dst_offset, 0, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Running sums (cumsum.h)

ALWI void cumsum_tile_init(TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_CUMSUM_INIT, 0, 0, 0, TESSEL_SITE);
}
ALWI void cumsum_tile(uint32_t idst, bool first = true, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_CUMSUM, idst, first ? 1u : 0u, 0, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Dropout (eltwise_unary/dropout.h)

ALWI void dropout_kernel_init(uint32_t seed = 0, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_DROPOUT_INIT, 0, seed, 0, TESSEL_SITE);
}
ALWI void dropout_tile(uint32_t idst, uint32_t probability, uint32_t scale_factor, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_DROPOUT, idst, probability, scale_factor, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Masks (mask.h)

ALWI void mask_tile_init(TESSEL_SITE_PARAMS) { tessel_sfpu::state(TESSEL_SFPU_STATE_MASK_INIT, 0, 0, 0, TESSEL_SITE); }
ALWI void mask_tile(uint32_t idst_data, uint32_t idst2_mask, DataFormat data_format = DataFormat::Float16_b,
                    TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_MASK, idst_data, idst2_mask, uint32_t(data_format), TESSEL_SITE);
}
ALWI void mask_posinf_tile(uint32_t idst_data, uint32_t idst2_mask, TESSEL_SITE_PARAMS) {
  tessel_sfpu::state(TESSEL_SFPU_STATE_MASK_POSINF, idst_data, idst2_mask, 0, TESSEL_SITE);
}

} // namespace ckernel

using namespace ckernel;

#endif // TESSEL_SFPU_STATE_H
