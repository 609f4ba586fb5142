// The float kernel behind matmul_tiles / matmul_block: one call's whole
// output block, C[r][j] += A[r] x B[j] over 32 x 32 tiles in tile (face)
// order, with the operands already as the multiplier sees them
// (compute_matmul.cpp unpacks and prepares them).
//
// Numerics, the same on every host: each element of C sums its products in
// k order with fused multiply-adds (one rounding each), starting from its
// value in C; with a second pass (HiFi3) the same sum continues over
// A2[r] x B2[j]; then the element is rounded to bfloat16 precision when
// `round` (round_to_bf16), once. The order in which elements are computed is
// free: no element depends on another.
#pragma once

#include <cstdint>

#include "sim/compute.hpp"

namespace tessel::sim {

// Only the first rt (ct, rt * ct) entries of the arrays are read, and only
// those are set (the struct is filled on every call: no zeroing).
struct MatmulBlock {
  uint32_t rt = 1, ct = 1;    // rows and columns of tiles; rt * ct <= kDstTiles
  const float* a[kDstTiles];  // A[r]: in0 tiles, the left operand (SrcB)
  const float* b[kDstTiles];  // B[j]: in1 tiles, the right operand (SrcA), transposed already if asked
  const float* a2[kDstTiles]; // second pass (two_pass): A2[r], B2[j]
  const float* b2[kDstTiles];
  float* c[kDstTiles]; // C[r][j] at c[r * ct + j]; distinct from every operand tile
  bool two_pass = false;
  bool round = false;
  // Memory to bring into L2 while the block computes (the next call's
  // operand pages): `prefetch_count` regions, region i at prefetch[i],
  // prefetch_lines[i] cache lines of 64 bytes. The kernel spreads the
  // requests over its run, a few per strip, so they never queue up in front
  // of its own loads.
  static constexpr uint32_t kMaxPrefetch = 2 * kDstTiles;
  const char* prefetch[kMaxPrefetch];
  uint32_t prefetch_lines[kMaxPrefetch];
  uint32_t prefetch_count = 0;
};

// The kernels, all giving the same bits: a portable loop of std::fma, and
// register-blocked ones for x86-64 hosts with AVX2 and FMA, or AVX-512F, or
// AVX-512F and AVX512_BF16 (whose conversion does the bfloat16 rounding).
// Each later one needs what the earlier ones need.
enum class MatmulKernel : uint8_t { Portable, Avx2, Avx512, Avx512Bf16 };

// Runs the block with the best kernel the host has (checked once).
void matmul_block_acc(const MatmulBlock& m);
// The host's kernel; whether it can run `kernel`; the block run by `kernel`
// (which must be available), for tests and benchmarks.
MatmulKernel matmul_host_kernel();
bool matmul_kernel_available(MatmulKernel kernel);
void matmul_block_acc(MatmulKernel kernel, const MatmulBlock& m);
// "portable", "avx2", "avx512" or "avx512bf16".
const char* matmul_kernel_name(MatmulKernel kernel);

} // namespace tessel::sim
