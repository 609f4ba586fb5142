// TT-Metalium's data formats and architecture names: tt::DataFormat is
// tessel's DataFormat (Metalium's numbering; the formats tessel implements),
// tt::tile_size and tt::datum_size give their sizes.
#pragma once

#include <cstdint>

#include "tessel/data_format.hpp"

namespace tt {

using DataFormat = tessel::DataFormat;

enum class ARCH { GRAYSKULL = 1, WORMHOLE_B0 = 3, BLACKHOLE = 4, QUASAR = 5, Invalid = 0xff };

// Bytes of one 32x32 tile (Bfp formats with their exponent section). The
// same function as tessel::tile_size, which argument-dependent lookup on
// DataFormat also finds, so unqualified calls stay unambiguous.
using tessel::tile_size;
// Bytes of one value; throws tessel::ValidationError for the block-float
// formats, whose values have no size of their own.
uint32_t datum_size(DataFormat format);

} // namespace tt
