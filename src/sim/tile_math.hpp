// Tile math for the compute engine's FPU ops that care where an element sits
// in the tile (matmul, reduce, transpose, broadcasts), and the multiplier
// model behind MathFidelity. (The matmul kernel itself: matmul_kernel.hpp.)
//
// Layouts. DST tiles and unpacked CB tiles are in tile order (four 16x16
// faces, each row-major: face f holds rows 16*(f/2).., columns 16*(f%2)..).
// transpose_tile and the matmul kernel work on that order directly; the
// other functions here work on row-major 32x32 copies ("rows"), and
// to_rows / from_rows convert.
#pragma once

#include <bit>
#include <cstdint>

#include "tessel/data_format.hpp"

namespace tessel::sim {

void to_rows(const float* tile, float* rows);
void from_rows(const float* rows, float* tile);
// Row-major transpose (out != in).
void transpose_rows(const float* in, float* out);

// out = the transpose of `in`, both in tile order (out != in).
void transpose_tile(const float* in, float* out);

// The Tensix multiplier takes 5 significant bits of its SrcA operand and 7 of
// its SrcB operand per pass (19-bit source registers: 11 significant bits in
// all). Fidelity phases: LoFi = hi(A) x hi(B); HiFi2 adds lo(A) x hi(B);
// HiFi3 adds hi(A) x lo(B); HiFi4 adds lo(A) x lo(B) (the full product).
// Truncation keeps the leading bits (no rounding).
inline constexpr uint32_t kSrcAHiBits = 4; // explicit mantissa bits in hi(A)
inline constexpr uint32_t kSrcBHiBits = 6; // explicit mantissa bits in hi(B)
inline constexpr uint32_t kSrcBits = 10;   // explicit mantissa bits of a source register (tf32)

// x with only its leading `bits` explicit mantissa bits (sign, exponent kept).
inline float keep_mantissa_bits(float x, uint32_t bits) {
  const uint32_t mask = ~((1u << (23 - bits)) - 1u);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & mask);
}
// Truncates every value of a tile to `bits` explicit mantissa bits in place.
void keep_mantissa_bits(float* tile, uint32_t bits);

// Operands as the multiplier sees them at `fidelity` (MathFidelity code 0,
// 2, 3, 4): the product is A x B, plus A2 x B2 when fidelity_passes() == 2
// (HiFi3). Each operand is prepared on its own, in place (tile-sized arrays;
// the second arrays are written only for HiFi3). The operands are source
// register values already (Float32 cut to kSrcBits).
inline uint32_t fidelity_passes(uint32_t fidelity) { return fidelity == 3 ? 2u : 1u; }
void prepare_srca(uint32_t fidelity, float* a, float* a2);
void prepare_srcb(uint32_t fidelity, float* b, float* b2);
// Whether prepare_* would change anything (HiFi4: no).
inline bool fidelity_needs_prep(uint32_t fidelity) { return fidelity < 4; }

} // namespace tessel::sim
