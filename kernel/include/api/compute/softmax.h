// TT-Metalium spelling of the compute kernel API: the header softmax kernels
// include for the SFPU exponential and reciprocal (exp_tile, recip_tile and
// their inits).
#pragma once
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/recip.h"
