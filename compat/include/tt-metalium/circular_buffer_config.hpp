// TT-Metalium's CircularBufferConfig: tessel's (one L1 region shared by one
// or more CB indices, each with its data format and page size):
//   CircularBufferConfig(total_bytes, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}})
//       .set_page_size(tt::CBIndex::c_0, page_bytes)
//       .set_globally_allocated_address(*l1_buffer)   (optional)
// A globally allocated CB uses the L1 buffer's range on each of its cores
// (a sharded buffer's shard on that core); the buffer must outlive the
// program's runs. Metalium's other forms (the index(i).set_...() builder,
// tile dims) are not provided.
#pragma once

#include <cstdint>

#include "hostdevcommon/kernel_structs.h"
#include "tessel/program.hpp"
#include "tt-metalium/tt_backend_api_types.hpp"

namespace tt::tt_metal {

class Buffer;

class CircularBufferConfig : public tessel::CircularBufferConfig {
public:
  using tessel::CircularBufferConfig::CircularBufferConfig;
  CircularBufferConfig& set_page_size(uint8_t index, uint32_t page_size_bytes) {
    tessel::CircularBufferConfig::set_page_size(index, page_size_bytes);
    return *this;
  }
  // Throws tessel::ValidationError for a DRAM or deallocated buffer.
  CircularBufferConfig& set_globally_allocated_address(const Buffer& buffer);
};
using CBHandle = uintptr_t;

} // namespace tt::tt_metal
