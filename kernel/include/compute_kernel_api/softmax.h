// TT-Metalium spelling: what its softmax kernels include (exp_tile and recip_tile).
#pragma once
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/recip.h"
