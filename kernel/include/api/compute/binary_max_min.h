// TT-Metalium spelling of the compute kernel API, with the integer forms of
// binary max and min: DST holds Int32 and UInt32 tiles as the integer SFPU
// ops do (exact up to 2^24, docs/deviations.md), so they order the values
// as binary_max_tile / binary_min_tile do.
#pragma once
#include "tessel/sfpu.h"

ALWI void binary_max_int32_tile_init(TESSEL_SITE_PARAMS) { binary_max_tile_init(TESSEL_SITE); }
ALWI void binary_max_uint32_tile_init(TESSEL_SITE_PARAMS) { binary_max_tile_init(TESSEL_SITE); }
ALWI void binary_min_int32_tile_init(TESSEL_SITE_PARAMS) { binary_min_tile_init(TESSEL_SITE); }
ALWI void binary_min_uint32_tile_init(TESSEL_SITE_PARAMS) { binary_min_tile_init(TESSEL_SITE); }
ALWI void binary_max_int32_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  binary_max_tile(idst0, idst1, odst, VectorMode::RC, TESSEL_SITE);
}
ALWI void binary_max_uint32_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  binary_max_tile(idst0, idst1, odst, VectorMode::RC, TESSEL_SITE);
}
ALWI void binary_min_int32_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  binary_min_tile(idst0, idst1, odst, VectorMode::RC, TESSEL_SITE);
}
ALWI void binary_min_uint32_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TESSEL_SITE_PARAMS) {
  binary_min_tile(idst0, idst1, odst, VectorMode::RC, TESSEL_SITE);
}
