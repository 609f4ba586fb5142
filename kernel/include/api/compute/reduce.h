// TT-Metalium spelling of the compute kernel API.
#pragma once
#include "tessel/compute.h"
#include "tessel/llk_reduce.h" // the LLK calls ttnn's reduce helpers make
#include "tessel/pool_not_modelled.h" // reduce_tile_math (refused when called)
