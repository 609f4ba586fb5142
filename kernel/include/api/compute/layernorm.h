// TT-Metalium spelling of the compute kernel API: the header layer-norm
// kernels include for the compute API with the SFPU square root,
// reciprocal and reciprocal square root (rsqrt_tile and its init).
#pragma once
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/rsqrt.h"
