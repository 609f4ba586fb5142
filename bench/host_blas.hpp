// The host BLAS the matmul figures are measured against: OpenBLAS, loaded
// the first time a figure calls it. Linked in, OpenBLAS starts its worker
// threads when the program starts, and they spin (about 0.1 s of a host
// core) before they sleep: every tessel command would pay that, and a
// parallel run would lose a core to it. Loaded here, only the benchmarks
// that use BLAS start them.
#pragma once

#include <cstdint>

namespace tessel::bench::host_blas {

// Row-major single-precision C = A B of n x n matrices (cblas_sgemm).
void sgemm(uint32_t n, const float* a, const float* b, float* c);

// BLAS's thread count for the calls after (0: its default, every host core).
void set_threads(int threads);

} // namespace tessel::bench::host_blas
