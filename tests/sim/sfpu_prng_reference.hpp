// The host reference of the SFPU's PRNG (rand_tile, dropout_tile): per lane,
// the ISA's LFSR step, each lane seeded as docs/deviations.md states.
#pragma once

#include <bit>
#include <cstdint>

namespace tessel::test {

struct SfpuPrng {
  uint32_t lanes[32];
  explicit SfpuPrng(uint32_t seed) {
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t x = seed ^ (0x9e3779b9u * (l + 1));
      x = (x ^ (x >> 16)) * 0x85ebca6bu;
      x = (x ^ (x >> 13)) * 0xc2b2ae35u;
      x ^= x >> 16;
      lanes[l] = x == 0xffffffffu ? 0u : x;
    }
  }
  // Lane l's current state, then one step.
  uint32_t step(uint32_t l) {
    const uint32_t r = lanes[l];
    const uint32_t parity = uint32_t(std::popcount(r & 0x80200003u)) & 1u;
    lanes[l] = ((parity ^ 1u) << 31) | (r >> 1);
    return r;
  }
};

} // namespace tessel::test
