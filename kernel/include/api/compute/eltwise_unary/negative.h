// TT-Metalium spelling of the compute kernel API.
#pragma once
#include "tessel/sfpu.h"

// DST holds Int32 tiles as the integer SFPU ops do (exact up to 2^24), where
// negation is negative_tile's.
ALWI void negative_tile_int32(uint32_t idst, TESSEL_SITE_PARAMS) { negative_tile(idst, TESSEL_SITE); }
