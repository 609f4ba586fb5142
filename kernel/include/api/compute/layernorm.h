// TT-Metalium spelling: what its layernorm kernels include (the compute API and rsqrt_tile).
#pragma once
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/rsqrt.h"
