// TT-Metalium's CircularBufferConfig: tessel's (one L1 region shared by one
// or more CB indices, each with its data format and page size):
//   CircularBufferConfig(total_bytes, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}})
//       .set_page_size(tt::CBIndex::c_0, page_bytes)
// Metalium's other forms (the index(i).set_...() builder, dynamic CBs backed
// by an L1 Buffer, tile dims) are not provided.
#pragma once

#include <cstdint>

#include "hostdevcommon/kernel_structs.h"
#include "tessel/program.hpp"
#include "tt-metalium/tt_backend_api_types.hpp"

namespace tt::tt_metal {

using CircularBufferConfig = tessel::CircularBufferConfig;
using CBHandle = uintptr_t;

} // namespace tt::tt_metal
