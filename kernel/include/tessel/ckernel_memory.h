// ckernel::load_blocking: a load that completes before the next instruction
// (on silicon it drains the core's earlier stores to the same memory first).
// Each simulated RISC's loads and stores complete in program order, so it is
// a plain volatile load. Reaches data-movement and compute kernels alike.
#ifndef TESSEL_CKERNEL_MEMORY_H
#define TESSEL_CKERNEL_MEMORY_H

#include <stdint.h>

namespace ckernel {
template <typename T>
inline T load_blocking(volatile T* ptr) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "load_blocking: operand must be 16-bit or 32-bit");
  return *ptr;
}
} // namespace ckernel

#endif // TESSEL_CKERNEL_MEMORY_H
