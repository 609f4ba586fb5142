// sfpu_reduce_init / sfpu_reduce (compute_kernel_api.h): the SFPU's
// reduction within a DST tile, which ttnn's reduce helpers use for Int32 and
// UInt32 data. Declared with Metalium's checks so kernels that name it
// compile; a kernel that reaches it stops with an error: the SFPU reduction
// is not modelled (the FPU's reduce_tile is).
#ifndef TESSEL_SFPU_REDUCE_H
#define TESSEL_SFPU_REDUCE_H

#include "tessel/compute.h"

namespace tessel_detail {
[[noreturn]] __attribute__((noinline, cold)) inline void sfpu_reduce_unsupported(const char* call, const char* file,
                                                                                 uint32_t line) {
  char message[200];
  __builtin_snprintf(message, sizeof message,
                     "%s: the SFPU's reduction within a DST tile is not modelled by tessel (reduce_tile, the "
                     "FPU's, is)",
                     call);
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, file, line);
  __builtin_unreachable();
}
} // namespace tessel_detail

template <PoolType pool_type, DataFormat format>
ALWI void sfpu_reduce_init(TESSEL_SITE_PARAMS) {
  tessel_detail::sfpu_reduce_unsupported("sfpu_reduce_init", TESSEL_SITE);
}
template <PoolType pool_type, DataFormat format, ReduceDim reduce_dim = ReduceDim::REDUCE_COL>
ALWI void sfpu_reduce(uint32_t idst, uint32_t ct_dim = 1, uint32_t rt_dim = 1, TESSEL_SITE_PARAMS) {
  static_assert(reduce_dim == ReduceDim::REDUCE_COL ||
                    (reduce_dim == ReduceDim::REDUCE_ROW && (pool_type == PoolType::SUM || pool_type == PoolType::MAX)),
                "sfpu_reduce: column reduction for every pool type, row reduction for SUM and MAX only");
  (void)idst, (void)ct_dim, (void)rt_dim;
  tessel_detail::sfpu_reduce_unsupported("sfpu_reduce", TESSEL_SITE);
}

#endif // TESSEL_SFPU_REDUCE_H
