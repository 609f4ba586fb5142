// TT-Metalium's buffer kinds and layouts. tessel allocates interleaved DRAM
// and L1 buffers; the other values exist so code naming them compiles, and
// the calls that would allocate them throw tessel::ValidationError.
#pragma once

#include <cstdint>

namespace tt::tt_metal {

using DeviceAddr = uint64_t;

enum class BufferType { DRAM, L1, SYSTEM_MEMORY, L1_SMALL, TRACE };

enum class TensorMemoryLayout { INTERLEAVED = 0, HEIGHT_SHARDED = 2, WIDTH_SHARDED = 3, BLOCK_SHARDED = 4 };

enum class ShardOrientation { ROW_MAJOR, COL_MAJOR };

} // namespace tt::tt_metal
