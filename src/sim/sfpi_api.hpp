// The SFPI entries of the kernel function table: opening an SFPU LLK call's
// window onto DST and making the tiles dst_reg reaches ready (sfpi_api.cpp).
// The vector language itself is header-inline kernel code
// (kernel/include/tessel/sfpi.h); docs/numerics.md ("SFPI") has the model.
#pragma once

#include <cstdint>

#include "tessel/kernel_abi.h"

namespace tessel::sim {

void api_sfpi_open(tessel_kernel_ctx*, const char* call, uint32_t tile_mask, const char* file, uint32_t line);
void api_sfpi_reach(tessel_kernel_ctx*, int32_t row, uintptr_t caller_pc);

} // namespace tessel::sim
