// The broadcast program's handlers, buffers and argument indices, shared by
// its kernels and drivers.
#pragma once
#include <stdint.h>

#include "tessel/persistent_abi.h"

constexpr uint32_t kHandlerBroadcast = 1;
constexpr uint32_t kCbRegion = 0;  // the broadcast's ring: window x pages pages
constexpr uint32_t kCbScratch = 1; // one 64-byte page: a core's checksum
// Command args: the KM_BROADCAST_ARGS words of layout.broadcast_args, then these.
constexpr uint32_t kArgInput = KM_BROADCAST_ARGS + 0;  // input tensor (DRAM, one page a CB page)
constexpr uint32_t kArgOutput = KM_BROADCAST_ARGS + 1; // output tensor: a 64-byte page per job and core
constexpr uint32_t kArgJob = KM_BROADCAST_ARGS + 2;
constexpr uint32_t kArgBlocks = KM_BROADCAST_ARGS + 3;
constexpr uint32_t kArgShape = KM_BROADCAST_ARGS + 4; // pages per block | blocks in flight (window) << 16
constexpr uint32_t kArgCheck = KM_BROADCAST_ARGS + 5; // 1: every core checksums the blocks; 0: move them only
