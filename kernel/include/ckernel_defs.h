// tt-llk spelling: ckernel::ThreadId and the packer's PackMode, as
// Metalium's matmul readers include them (tessel/ckernel_memory.h).
#pragma once
#include "tessel/ckernel_memory.h"
#ifndef TESSEL_PACK_MODE_DEFINED
#define TESSEL_PACK_MODE_DEFINED
enum class PackMode : uint8_t { Default = 0, Untilize = 1, Tilize = 2 };
#endif
