// TT-Metalium / tt-llk spelling: the SFPI language and the SFPU LLK face loops
// (tessel/llk_sfpu.h). Compute kernels only.
#pragma once
#include "tessel/llk_sfpu.h"
