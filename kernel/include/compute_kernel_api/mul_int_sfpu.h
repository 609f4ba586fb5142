// TT-Metalium spelling: mul_int_tile_init<DataFormat>, mul_int_tile<DataFormat>.
#pragma once
#include "tessel/compute.h"
#include "tessel/sfpu.h"
