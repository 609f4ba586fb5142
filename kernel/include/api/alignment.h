// TT-Metalium's alignment helpers: align(addr, alignment) rounds up to a
// multiple of any alignment, align_power_of_2 to a power of two,
// is_power_of_2(n).
#pragma once

#include <stdint.h>

__attribute__((always_inline)) constexpr uint32_t align(uint32_t addr, uint32_t alignment) {
  return (addr + alignment - 1) / alignment * alignment;
}
__attribute__((always_inline)) constexpr uint32_t align_power_of_2(uint32_t addr, uint32_t alignment) {
  return (addr + alignment - 1) & ~(alignment - 1);
}
__attribute__((always_inline)) constexpr bool is_power_of_2(uint32_t n) { return n != 0 && (n & (n - 1)) == 0; }
