// TT-Metalium spelling of the compute kernel API. Metalium declares several
// SFPU ops here (sigmoid_tile, log_tile, tanh_tile, abs_tile, sign_tile,
// square_tile, power_tile, exp2_tile, silu_tile), so it includes the SFPU API.
#pragma once
#include "tessel/compute.h"
#include "tessel/sfpu.h"
#include "tessel/sfpu_reduce.h"
#include "tessel/pool_not_modelled.h" // max_reduce_with_indices (refused when called)

// topk_tile_init, topk_local_sort, topk_merge and topk_rebuild (topk.h) are
// declared here in Metalium too; tessel does not model them (api/compute/topk.h
// says why), and a kernel that calls one fails to compile saying so.
namespace ckernel {
#define TESSEL_TOPK_NOT_MODELLED(name)                                                                                 \
  template <bool... flags, typename... Args>                                                                           \
  void name(Args...) {                                                                                                 \
    static_assert(sizeof...(Args) + sizeof...(flags) > 1000,                                                           \
                  #name " is not supported by tessel: the top-k LLK's "                                                \
                        "result layout is not documented, so it is not modelled");                                     \
  }
TESSEL_TOPK_NOT_MODELLED(topk_tile_init)
TESSEL_TOPK_NOT_MODELLED(topk_local_sort)
TESSEL_TOPK_NOT_MODELLED(topk_merge)
TESSEL_TOPK_NOT_MODELLED(topk_rebuild)
#undef TESSEL_TOPK_NOT_MODELLED
} // namespace ckernel
