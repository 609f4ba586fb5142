// mv.cc (tessel's kernel library): c += A * b, A DIM_M x DIM_K (defaults 32),
// int16 inputs, int32 results.
//   matvec_vectorized_i16_i32(a, b, c): A stored column pair by column pair
//     (transposed at 32-bit granularity): A[row][col] is at
//     (col / 2) * 2 * DIM_M + 2 * row + col % 2. DIM_M a multiple of 16,
//     DIM_K of 8; a, b and c 32-byte aligned.
//   matvec_scalar_i16_i32(a, b, c): A row-major.
//   zero_vectorized_i32(c), zero_scalar_i32(c): clear DIM_M results.
// Products and sums are exact in acc32 lanes while they fit 32 bits and wrap
// beyond, as the AIE's acc32 does.
#include "zero.cc"

#include "../aie_kernel_utils.h"
#include <aie_api/aie.hpp>

#ifndef DIM_M
#define DIM_M 32
#endif
#ifndef DIM_K
#define DIM_K 32
#endif

template <unsigned m, unsigned k>
static void matvec_column_pairs(const int16* __restrict a, const int16* __restrict b, int32* __restrict c) {
  constexpr unsigned rows = 16;
  static_assert(m % rows == 0 && k % 8 == 0, "mv.cc: DIM_M must be a multiple of 16 and DIM_K of 8");
  event0();
  for (unsigned col = 0; col < k; col += 8) {
    const aie::vector<int16, 8> b_part = aie::load_v<8>(b + col);
    AIE_LOOP_MIN_ITERATION_COUNT(m / rows)
    for (unsigned row = 0; row < m; row += rows) {
      aie::accum<acc32, rows> acc;
      acc.from_vector(aie::load_v<rows>(c + row));
      for (unsigned pair = 0; pair < 4; ++pair) {
        // Columns col + 2 * pair and col + 2 * pair + 1 of rows row..row+15.
        const aie::vector<int16, 2 * rows> both = aie::load_v<2 * rows>(a + (col / 2 + pair) * 2 * m + 2 * row);
        acc = aie::accumulate<rows>(acc, b_part, 2 * pair, aie::filter_even(both), aie::filter_odd(both));
      }
      aie::store_v(c + row, acc.template to_vector<int32>());
    }
  }
  event1();
}

extern "C" {

void matvec_vectorized_i16_i32(int16* a_in, int16* b_in, int32* c_out) {
  matvec_column_pairs<DIM_M, DIM_K>(a_in, b_in, c_out);
}

void matvec_scalar_i16_i32(int16* a_in, int16* b_in, int32* c_out) {
  event0();
  for (unsigned row = 0; row < DIM_M; ++row) {
    uint32_t sum = 0;
    for (unsigned i = 0; i < DIM_K; ++i)
      sum += static_cast<uint32_t>(int32_t(a_in[row * DIM_K + i]) * b_in[i]);
    c_out[row] = static_cast<int32_t>(static_cast<uint32_t>(c_out[row]) + sum);
  }
  event1();
}

void zero_vectorized_i32(int32* c_out) { zero_vectorized<int32, DIM_M, 1>(c_out); }
void zero_scalar_i32(int32* c_out) { zero_scalar<int32, DIM_M, 1>(c_out); }

} // extern "C"
