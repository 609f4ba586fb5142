// SFPU ops of TT-Metalium's kernel API that tessel does not compute:
// rdiv_tile (a scalar divided by x under a rounding mode, rdiv.h). Its
// header is included by kernels that can run any op of a chain the host
// picks (ttnn's eltwise_sfpu.cpp), so including it builds; calling one of
// its functions fails to compile, naming it.
#pragma once
#include "tessel/sfpu.h"

namespace ckernel {

// rdiv_tile's template argument (TT-Metalium's ckernel::RoundingMode).
enum class RoundingMode : uint8_t { None = 0, Trunc = 1, Floor = 2 };

#define TESSEL_SFPU_NOT_MODELLED(name, what)                                                                           \
  template <auto... params, typename... Args>                                                                          \
  void name(Args...) {                                                                                                 \
    static_assert(sizeof...(Args) + sizeof...(params) > 1000,                                                          \
                  #name " is not supported by tessel: " what " is not modelled by its SFPU");                          \
  }
TESSEL_SFPU_NOT_MODELLED(rdiv_tile_init, "rdiv (a scalar divided by each element)")
TESSEL_SFPU_NOT_MODELLED(rdiv_tile, "rdiv (a scalar divided by each element)")
#undef TESSEL_SFPU_NOT_MODELLED

} // namespace ckernel
