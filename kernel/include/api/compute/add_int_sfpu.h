// TT-Metalium spelling: add_int_tile_init, add_int_tile<DataFormat>.
#pragma once
#include "tessel/compute.h"
#include "tessel/sfpu.h"
