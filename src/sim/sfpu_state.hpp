// SFPU ops that keep state in the SFPU between calls, or that combine a
// tile's rows, columns or neighbour tile (enum tessel_sfpu_state_op in
// kernel_abi.h): the PRNG behind rand_tile, the exponential moving average
// of ema_tile, and the integer sums of sfpu_int_sum.h. The compute engine
// (compute_sfpu_state.cpp) checks the call and hands these the tiles; the
// functions here only compute.
//
// Lanes. The SFPU works on 32 lanes; its k-th load of a face (dst_reg[k])
// covers DST rows (A & ~3) .. +3, columns 2 * (l % 8) + ((A >> 1) & 1) for
// A = 16 * face + 2 * k (tessel/sfpi.h states the mapping). A tile is
// kTileHW floats in DST order: row r of DST (64 rows of 16) is floats
// 16r .. 16r + 15, face f its rows 16f .. 16f + 15.
#pragma once

#include <cstdint>

namespace tessel::sim {

// The SFPU's PRNG: one 32-bit LFSR per lane, stepped once per lane by every
// read (SFPMOV from the PRNG). The step is the ISA's: the result is the old
// state; the new state shifts right by one and takes as bit 31 the inverse of
// the parity of bits 31, 21, 1 and 0. How silicon turns a seed into the 32
// lane states is not published: seed() is tessel's own mapping
// (docs/deviations.md).
struct SfpuPrng {
  static constexpr uint32_t kLanes = 32;
  uint32_t lanes[kLanes];

  SfpuPrng() { seed(0); }
  void seed(uint32_t value);
  // One step of lane l: returns the state before it.
  uint32_t step(uint32_t l);
};

// rand_tile: every element of `tile` = from + scale * u, u in [0, 1) made of
// 23 PRNG bits (the mantissa of a float in [1, 2), minus 1), in the order the
// SFPU visits the lanes (faces 0..3, 8 loads each), computed with the SFPU's
// multiply-add. from, scale: float bits. The result is full FP32; the caller
// stores it into DST (see sfpu_store).
void sfpu_rand(SfpuPrng& prng, float* tile, uint32_t from, uint32_t scale);

// The exponential moving average's registers: alpha, beta and the running
// value of each of the tile's 32 columns.
struct SfpuEma {
  float alpha = 0, beta = 0;
  float prev[32] = {};
};
// ema_tile: down the tile's rows 0..31, prev[c] = alpha * prev[c] + beta *
// in[r][c] (two SFPU multiply-adds), out[r][c] = prev[c].
void sfpu_ema(SfpuEma& ema, const float* in, float* out, bool dst_32bit);

// The integer sums (sfpu_int_sum.h) on the integers DST holds: two's
// complement, wrapping at 32 bits.
// sfpu_sum_int_col: tile rows q = 0..3 become, per column, the sum of rows
// q, q + 4, .., q + 28 (the other rows are left).
void sfpu_sum_int_col(float* tile);
// sfpu_sum_int_row: in every row, column 2m (m = 0..7) becomes the sum of
// columns 2m, 2m + 1, 16 + 2m and 17 + 2m (the odd and right-half columns
// are left).
void sfpu_sum_int_row(float* tile);
// sfpu_add_int: a[i] = a[i] + b[i].
void sfpu_add_int(float* a, const float* b);

// cumsum_tile's carry: the running sum of each of the tile's 32 columns,
// kept in SFPU registers between calls (full FP32). `set`: a cumsum_tile ran
// in this kernel, so the registers hold a carry.
struct SfpuCumsum {
  float carry[32] = {};
  bool set = false;
};
// cumsum_tile: down rows 0..31 of every column, carry[c] = carry[c] + x[r][c]
// (one SFPU add each, in FP32), x[r][c] = the stored carry[c]; `first`
// clears the carry first. As tt-llk's kernel does it: four rows at a time
// through SFPTRANSP, each SFPADD adding the previous row's register.
void sfpu_cumsum(SfpuCumsum& cumsum, float* tile, bool first, bool dst_32bit);

// dropout_tile: lane by lane in rand_tile's order, x * scale (an SFPU
// multiply), replaced by 0 where the lane's PRNG draw with its sign bit
// cleared is at most `probability` (a signed integer subtraction's sign).
void sfpu_dropout(SfpuPrng& prng, float* tile, uint32_t probability, uint32_t scale, bool dst_32bit);

// mask_tile / mask_posinf_tile: data[i] = value where mask[i] is zero (as a
// float, or as the integer DST holds when `integer`), value 0 or +inf.
void sfpu_mask(float* data, const float* mask, bool integer, float value);

// What an SFPU store of an FP32 value leaves in DST: all 32 bits, or into a
// 16-bit DST the bfloat16 of it with the mantissa truncated and denormals
// flushed to signed zero (tessel/sfpi.h).
float sfpu_store(float x, bool dst_32bit);

// The Metalium call name of an op, for messages ("rand_tile").
const char* sfpu_state_name(uint32_t op);

} // namespace tessel::sim
