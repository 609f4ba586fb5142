// TT-Metalium / tt-llk spelling. In compute kernels: the SFPI language and the
// SFPU LLK face loops (tessel/llk_sfpu.h). In every kernel: load_blocking
// (tessel/ckernel_memory.h), which data-movement kernels include it for.
#pragma once
#include "tessel/ckernel_memory.h"
#if !defined(TESSEL_KERNEL_DATA_MOVEMENT)
#include "tessel/llk_sfpu.h"
#endif
