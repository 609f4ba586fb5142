// TT-Metalium spelling of the compute kernel API: rpow_tile_init and
// rpow_tile, which tessel does not model (tessel/sfpu_not_modelled.h).
#pragma once
#include "tessel/sfpu_not_modelled.h"
