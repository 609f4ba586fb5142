// TT-Metalium spelling of the compute kernel API (ALWI, the ComputeConfig
// constants, MATH/UNPACK/PACK).
#pragma once
#include "tessel/compute.h"
