// TT-Metalium (tt-llk) spelling: ckernel::PoolType, ReduceDim, DstSync,
// MathFidelity, EltwiseBinaryReuseDestType, ... with the compute API.
#pragma once
#include "tessel/compute.h"
