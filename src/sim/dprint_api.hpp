// The kernel ABI's DPRINT calls (dprint_api.cpp), for the function table in
// kernel_api.cpp. Signatures as in tessel_sim_api (kernel_abi.h).
#pragma once

#include <cstdint>

#include "tessel/kernel_abi.h"

namespace tessel::sim {

void api_dprint(tessel_kernel_ctx*, const char* text, uint32_t length);
void api_dprint_tile_slice(tessel_kernel_ctx*, uint32_t cb, int32_t tile_index, const uint16_t* range, uint32_t flags,
                           uint32_t precision, const char* file, uint32_t line);

} // namespace tessel::sim
