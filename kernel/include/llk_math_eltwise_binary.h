// tt-llk spelling: the math engine's eltwise binary layer. Kernels that
// include it beside the compute API use the compute API's eltwise binary
// calls (tessel/compute.h); tessel has no separate LLK layer under them.
#pragma once
#include "tessel/compute.h"
