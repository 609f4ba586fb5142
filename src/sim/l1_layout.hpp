// The reserved base of every core's L1 (design §1.2), bottom up:
//
//   0x0000 +-------------------------------+
//          | mailbox (unused, kept zero)   |
//   0x0100 +-------------------------------+
//          | unique runtime args, BRISC    |  341 words each, 1536 B apart
//          | unique runtime args, NCRISC   |
//          | unique runtime args, compute  |
//   0x1300 +-------------------------------+
//          | common runtime args x 3 RISCs |
//   0x2500 +-------------------------------+
//          | semaphores: 16 x 16 B         |
//   0x2600 +-------------------------------+
//          | zeros: 512 B, read-only       |  MEM_ZEROS_BASE (kernel_abi.h)
//   0x2800 +-------------------------------+
//          | (free)                        |
//   0x4000 +-------------------------------+  kL1UnreservedBase
//          | program circular buffers      |  same address on every core
//          |   ... grows up                |
//          |   ... L1 buffers grow down    |
//   l1_size+-------------------------------+
#pragma once

#include <cstdint>

#include "tessel/kernel_abi.h"

namespace tessel::sim {

inline constexpr uint32_t kL1ArgsStride = 0x600;
inline constexpr uint32_t kL1UniqueArgsBase = 0x100;
inline constexpr uint32_t kL1CommonArgsBase = kL1UniqueArgsBase + 3 * kL1ArgsStride;
inline constexpr uint32_t kL1SemaphoreBase = kL1CommonArgsBase + 3 * kL1ArgsStride;
inline constexpr uint32_t kL1SemaphoreStride = TESSEL_SEMAPHORE_STRIDE_BYTES;
inline constexpr uint32_t kL1ZerosBase = TESSEL_L1_ZEROS_OFFSET;
inline constexpr uint32_t kL1ZerosEnd = TESSEL_L1_ZEROS_OFFSET + TESSEL_L1_ZEROS_BYTES;
inline constexpr uint32_t kL1UnreservedBase = 0x4000;

static_assert(TESSEL_MAX_RUNTIME_ARGS * 4 <= kL1ArgsStride);
static_assert(kL1SemaphoreBase + TESSEL_MAX_SEMAPHORES * kL1SemaphoreStride == kL1ZerosBase);
static_assert(kL1ZerosEnd <= kL1UnreservedBase);

inline constexpr uint32_t unique_args_offset(uint32_t risc) { return kL1UniqueArgsBase + risc * kL1ArgsStride; }
inline constexpr uint32_t common_args_offset(uint32_t risc) { return kL1CommonArgsBase + risc * kL1ArgsStride; }
inline constexpr uint32_t semaphore_offset(uint32_t id) { return kL1SemaphoreBase + id * kL1SemaphoreStride; }

} // namespace tessel::sim
