// Compute kernel API: inits, the DST register protocol, FPU tile ops and
// pack_tile, with TT-Metalium's names and argument orders. Included through
// compute_kernel_api.h, compute_kernel_api/*.h and api/compute/*.h.
//
// One compute context plays the three TRISCs in program order, so
// UNPACK((...)), MATH((...)) and PACK((...)) just run their argument. The
// names are declared in namespace ckernel and made global, so kernels work
// with or without `using namespace ckernel;`. Every call passes its call
// site; the simulator checks the protocol and the inits (sim/compute.hpp).
#ifndef TESSEL_COMPUTE_H
#define TESSEL_COMPUTE_H

#include "tessel/kernel_common.h"

#define UNPACK(x) x
#define MATH(x) x
#define PACK(x) x
#ifndef ALWI
#define ALWI inline __attribute__((always_inline))
#endif

namespace ckernel {

namespace tessel_compute {
inline void init(uint32_t which, const char* call, uint32_t a, uint32_t b, uint32_t c, const char* file,
                 uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->compute_init(k, which, call, a, b, c, file, line);
}
inline void dst(uint32_t step, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->dst_step(k, step, file, line);
}
inline void binary(uint32_t op, uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst, const char* file,
                   uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->binary_tiles(k, op, icb0, icb1, i0, i1, idst, file, line);
}
} // namespace tessel_compute

// ---------------------------------------------------------------------------
// Hardware and op inits

ALWI void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_HW_STARTUP, "compute_kernel_hw_startup", icb0, icb1, ocb, TESSEL_SITE);
}
ALWI void compute_kernel_hw_startup(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_HW_STARTUP, "compute_kernel_hw_startup", icb, icb, ocb, TESSEL_SITE);
}
ALWI void binary_op_init_common(uint32_t icb0, uint32_t icb1, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_BINARY_COMMON, "binary_op_init_common", icb0, icb1, ocb, TESSEL_SITE);
}
ALWI void unary_op_init_common(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_UNARY_COMMON, "unary_op_init_common", icb, 0, ocb, TESSEL_SITE);
}
ALWI void init_sfpu(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_UNARY_COMMON, "init_sfpu", icb, 0, ocb, TESSEL_SITE);
}
ALWI void add_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_ADD, "add_tiles_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void sub_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_SUB, "sub_tiles_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void mul_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_MUL, "mul_tiles_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void copy_tile_init(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_COPY, "copy_tile_init", icb, 0, 0, TESSEL_SITE);
}
ALWI void copy_init(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_COPY, "copy_init", icb, 0, 0, TESSEL_SITE);
}
ALWI void copy_tile_to_dst_init_short(uint32_t icb, uint32_t transpose = 0, TESSEL_SITE_PARAMS) {
  (void)transpose;
  tessel_compute::init(TESSEL_INIT_COPY, "copy_tile_to_dst_init_short", icb, 0, 0, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// DST register protocol

ALWI void tile_regs_acquire(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_ACQUIRE, TESSEL_SITE); }
ALWI void tile_regs_commit(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_COMMIT, TESSEL_SITE); }
ALWI void tile_regs_wait(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_WAIT, TESSEL_SITE); }
ALWI void tile_regs_release(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_RELEASE, TESSEL_SITE); }
ALWI void acquire_dst(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_ACQUIRE_LEGACY, TESSEL_SITE); }
ALWI void release_dst(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_RELEASE_LEGACY, TESSEL_SITE); }

// ---------------------------------------------------------------------------
// Tile ops

ALWI void copy_tile(uint32_t icb, uint32_t itile, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->copy_tile(k, icb, itile, idst, TESSEL_SITE);
}
ALWI void add_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::binary(TESSEL_BINARY_ADD, icb0, icb1, itile0, itile1, idst, TESSEL_SITE);
}
ALWI void sub_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::binary(TESSEL_BINARY_SUB, icb0, icb1, itile0, itile1, idst, TESSEL_SITE);
}
ALWI void mul_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::binary(TESSEL_BINARY_MUL, icb0, icb1, itile0, itile1, idst, TESSEL_SITE);
}
ALWI void pack_tile(uint32_t idst, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->pack_tile(k, idst, ocb, TESSEL_SITE);
}

} // namespace ckernel

using namespace ckernel;

#endif // TESSEL_COMPUTE_H
