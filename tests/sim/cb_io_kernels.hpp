// The reader and writer kernels of the compute tests (compute_harness.hpp,
// op_table_test.cpp): one text each, so the kernel cache builds them once.
#pragma once

namespace tessel::test {

// Reader: args (cb, dram address, tiles) x 2; pushes each CB's tiles at once.
inline constexpr const char* kReaderSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  for (uint32_t i = 0; i < 2; ++i) {
    const uint32_t cb = get_arg_val<uint32_t>(3 * i), addr = get_arg_val<uint32_t>(3 * i + 1);
    const uint32_t tiles = get_arg_val<uint32_t>(3 * i + 2);
    if (tiles == 0) continue;
    const InterleavedAddrGenFast<true> src = {addr, get_tile_size(cb), get_dataformat(cb)};
    cb_reserve_back(cb, tiles);
    for (uint32_t t = 0; t < tiles; ++t) noc_async_read_tile(t, src, get_write_ptr(cb) + t * get_tile_size(cb));
    noc_async_read_barrier();
    cb_push_back(cb, tiles);
  }
}
)KERNEL";

// Writer: args (cb, dram address, tiles); waits for all tiles, writes them.
inline constexpr const char* kWriterSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t cb = get_arg_val<uint32_t>(0), addr = get_arg_val<uint32_t>(1), tiles = get_arg_val<uint32_t>(2);
  if (tiles == 0) return;
  const InterleavedAddrGenFast<true> dst = {addr, get_tile_size(cb), get_dataformat(cb)};
  cb_wait_front(cb, tiles);
  for (uint32_t t = 0; t < tiles; ++t) noc_async_write_tile(t, dst, get_read_ptr(cb) + t * get_tile_size(cb));
  noc_async_write_barrier();
  cb_pop_front(cb, tiles);
}
)KERNEL";

} // namespace tessel::test
