// TT-Metalium's ScratchpadBindingToken: what scratch::<name> is in a kernel
// whose KernelBindings bind a scratchpad (src/runtime/kernel_bindings.cpp).
// It holds the common runtime argument (a word index) carrying the region's
// L1 address, the region's bytes per core and, optionally, its data format.
// Kernels only pass it to Scratchpad<T> (tessel/scratchpad.h).
#ifndef TESSEL_SCRATCHPAD_BINDING_TOKEN_H
#define TESSEL_SCRATCHPAD_BINDING_TOKEN_H

#include <stdint.h>

#include "internal/llk_metadata.h"

template <typename T>
class Scratchpad;

class ScratchpadBindingToken {
public:
  explicit constexpr ScratchpadBindingToken(uint32_t crta_offset, uint32_t size_in_bytes) noexcept
      : crta_offset_(crta_offset), size_in_bytes_(size_in_bytes) {}
  constexpr ScratchpadBindingToken(uint32_t crta_offset, uint32_t size_in_bytes,
                                   binding_details::LLKMetadata llk) noexcept
      : crta_offset_(crta_offset), size_in_bytes_(size_in_bytes), llk_metadata_(llk) {}

private:
  template <typename T>
  friend class Scratchpad;

  uint32_t crta_offset_;
  uint32_t size_in_bytes_;
  binding_details::LLKMetadata llk_metadata_{};
};

#endif // TESSEL_SCRATCHPAD_BINDING_TOKEN_H
