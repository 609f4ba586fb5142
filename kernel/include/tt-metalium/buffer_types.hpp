// The kernel-side copy of the host's tt-metalium/buffer_types.hpp, which
// kernels shared with the host include: TensorMemoryLayout,
// ShardOrientation, ShardDistributionStrategy and BufferType with
// Metalium's values, in namespace tt::tt_metal, without the C++ standard
// library.
#pragma once

// A host build that has the kernel headers on its include path before the
// compat layer's (the Python extension's wheel build) gets the host header.
#if !defined(TESSEL_KERNEL_COMPUTE) && !defined(TESSEL_KERNEL_DATA_MOVEMENT)
#include_next <tt-metalium/buffer_types.hpp>
#else

#include <stdint.h>

namespace tt::tt_metal {

enum class TensorMemoryLayout {
  INTERLEAVED = 0,
  HEIGHT_SHARDED = 2,
  WIDTH_SHARDED = 3,
  BLOCK_SHARDED = 4,
  ND_SHARDED = 5
};
enum class ShardOrientation { ROW_MAJOR = 0, COL_MAJOR };
enum class ShardDistributionStrategy { ROUND_ROBIN_1D = 0, GRID_2D = 1, CONTIGUOUS_1D = 2 };
enum class BufferType { DRAM, L1, SYSTEM_MEMORY, L1_SMALL, TRACE };

} // namespace tt::tt_metal

#endif
