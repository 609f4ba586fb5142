// TT-Metalium spelling of the tile-printing DPRINT header: SliceRange,
// TileSlice and TSLICE come with DPRINT itself (tessel/dprint.h).
#pragma once
#include "tessel/dprint.h"
#include "tessel/kernel_common.h"
