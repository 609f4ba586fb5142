// A compute-kernel external function for tessel.ttl's tests: writes `value`
// at `offset_bytes` into this core's part of an L1-interleaved tensor whose
// address (ttl.raw_addr) is `l1_address` (pages.hpp describes the layout).
// A buffer address is an L1 offset; in tessel the kernel's pointer to it is
// the core's L1 base (kernel ABI) plus that offset.
#pragma once

#include "api/compute/common.h"

inline void write_word(uint32_t l1_address, uint32_t offset_bytes, uint32_t value) {
  *reinterpret_cast<volatile uint32_t*>(tessel_ctx()->l1_base + l1_address + offset_bytes) = value;
}
