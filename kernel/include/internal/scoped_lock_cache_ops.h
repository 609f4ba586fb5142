// TT-Metalium's cache operations behind the scoped_lock calls (CoreLocalMem,
// Scratchpad, DataflowBuffer): scoped_lock_acquire_cache_ops(addr, bytes)
// and scoped_lock_release_cache_ops(addr, bytes). On Wormhole and Blackhole
// the data-movement cores read and write L1 with no cache between, so both
// do nothing there, as in tessel (which models those two architectures).
#pragma once

#include <stdint.h>

inline void scoped_lock_acquire_cache_ops(uintptr_t addr, uint32_t num_bytes) {
  (void)addr;
  (void)num_bytes;
}

inline void scoped_lock_release_cache_ops(uintptr_t addr, uint32_t num_bytes) {
  (void)addr;
  (void)num_bytes;
}
