// TT-Metalium spelling of the compute kernel API. Metalium declares several
// SFPU ops here (sigmoid_tile, log_tile, tanh_tile, abs_tile, sign_tile,
// square_tile, power_tile, exp2_tile, silu_tile), so it includes the SFPU API.
#pragma once
#include "tessel/compute.h"
#include "tessel/sfpu.h"
#include "tessel/sfpu_reduce.h"
#include "tessel/pool_not_modelled.h" // max_reduce_with_indices (refused when called)
