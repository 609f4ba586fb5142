// TT-Metalium spelling of the compute kernel API.
#pragma once
#include "tessel/tilize.h"
#include "tessel/pool_not_modelled.h" // the tilizeA_B calls (refused when called)
