// build_flags(): how the probe kernel including it was compiled, for the
// probe's build handlers (probe.hpp).
#pragma once
#include <stdint.h>

// How the kernel including this was compiled, from the compiler's predefined
// macros and the compute options' defines: bit 0 __OPTIMIZE__ (-O1 and up),
// bit 1 __OPTIMIZE_SIZE__ (-Os, -Oz), bit 2 __FAST_MATH__ (-Ofast), bit 3
// __NO_INLINE__ (-O0), bit 4 TESSEL_BFP8_PACK_PRECISE, bit 5 TESSEL_TRISC2_RVV.
inline uint32_t build_flags() {
  uint32_t flags = 0;
#ifdef __OPTIMIZE__
  flags |= 1;
#endif
#ifdef __OPTIMIZE_SIZE__
  flags |= 2;
#endif
#ifdef __FAST_MATH__
  flags |= 4;
#endif
#ifdef __NO_INLINE__
  flags |= 8;
#endif
#if TESSEL_BFP8_PACK_PRECISE
  flags |= 16;
#endif
#if TESSEL_TRISC2_RVV
  flags |= 32;
#endif
  return flags;
}
