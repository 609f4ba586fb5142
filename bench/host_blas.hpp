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

// Prints the note beside the figures measured against BLAS (the matmul
// benchmark's first line; the parallel one's last, as loading BLAS starts
// its threads, which spin for a while beside the runs after): the
// library's build ("OpenBLAS 0.3.21 ... DYNAMIC_ARCH ..."), the kernel it
// picked for this host ("Cooperlake", "Haswell", ...; OPENBLAS_CORETYPE
// overrides it), and the simulator's matmul kernel. Which kernels ran
// matters as much as the libraries: the ratio of an AVX2 sgemm to an
// AVX-512 one is about 2 on hosts with full-width AVX-512.
void note_reference();

} // namespace tessel::bench::host_blas
