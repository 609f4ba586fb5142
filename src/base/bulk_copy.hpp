// Copies between host memory and simulated device memory, page by page.
//
// A plain memcpy of a page whose destination sits just above its source
// modulo 4 KiB (a numpy array's data starts 16 bytes into a page; device
// pages start on one) makes every load wait on a store to the same 4 KiB
// offset (4K aliasing): reads of 64 KiB pages ran at a third of memcpy speed.
// Large copies bypass the cache on the store side instead, which has no such
// dependence and leaves the cache to the data the copy reads.
#pragma once

#include <cstddef>

namespace tessel::base {

// memcpy for copies of any size; copies of at least kStreamingCopyBytes use
// streaming (non-temporal) stores. Call bulk_copy_done() after the last copy
// of a transfer so its stores are ordered before what follows.
inline constexpr size_t kStreamingCopyBytes = 16 * 1024;
void bulk_copy(void* dst, const void* src, size_t bytes);
void bulk_copy_done();

} // namespace tessel::base
