// The matmul block kernel (src/sim/matmul_kernel.cpp): the register-blocked
// kernel the host runs gives the same bits as the portable loop, itself
// checked here against the element-by-element definition (k-order fused
// multiply-adds from C's value, the second pass continuing the same sum, one
// bfloat16 rounding), for every block shape, one and two passes, with and
// without rounding, on values that reach every case of the rounding: ties,
// NaN, infinities, denormal sums, signed zeros. (compute_matmul_test.cpp
// covers the path through the engine.)
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/formats.hpp"
#include "sim/matmul_kernel.hpp"
#include "tessel/data_format.hpp"

namespace tessel::sim {
namespace {

size_t at(uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; }

struct Rng {
  uint64_t state;
  uint32_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 32);
  }
};

// Values of one of several kinds, chosen per element: ordinary, bf16-exact,
// tiny (products and sums below 2^-126), zero, or (when `specials`) a NaN or
// an infinity, rarely.
float value(Rng& rng, bool specials) {
  const uint32_t kind = rng.next() % 64;
  const float m = 1.0f + float(rng.next() >> 8) / float(1u << 24);
  const float sign = (rng.next() & 1) ? -1.0f : 1.0f;
  if (specials && kind == 0) return std::numeric_limits<float>::quiet_NaN();
  if (specials && kind == 1) return sign * std::numeric_limits<float>::infinity();
  if (kind < 6) return 0.0f;
  if (kind < 16) return sign * std::ldexp(m, -66 - int(rng.next() % 8)); // tiny
  if (kind < 32) return sign * bf16_to_float(float_to_bf16(std::ldexp(m, int(rng.next() % 9) - 4)));
  return sign * std::ldexp(m, int(rng.next() % 9) - 4);
}

struct Block {
  uint32_t rt, ct;
  std::vector<std::vector<float>> a, b, a2, b2, c;
};

Block random_block(uint32_t rt, uint32_t ct, uint64_t seed, bool specials) {
  Rng rng{seed};
  auto tiles = [&](uint32_t n) {
    std::vector<std::vector<float>> t(n, std::vector<float>(kTileHW));
    for (auto& tile : t)
      for (float& x : tile)
        x = value(rng, specials);
    return t;
  };
  Block blk{rt, ct, tiles(rt), tiles(ct), tiles(rt), tiles(ct), tiles(rt * ct)};
  return blk;
}

MatmulBlock view(Block& blk, bool two_pass, bool round) {
  MatmulBlock m;
  m.rt = blk.rt;
  m.ct = blk.ct;
  m.two_pass = two_pass;
  m.round = round;
  for (uint32_t r = 0; r < blk.rt; ++r)
    m.a[r] = blk.a[r].data(), m.a2[r] = blk.a2[r].data();
  for (uint32_t j = 0; j < blk.ct; ++j)
    m.b[j] = blk.b[j].data(), m.b2[j] = blk.b2[j].data();
  for (uint32_t t = 0; t < blk.rt * blk.ct; ++t)
    m.c[t] = blk.c[t].data();
  // The next call's pages: here, this call's operands (any readable memory will do).
  m.prefetch_count = 0;
  for (uint32_t r = 0; r < blk.rt; ++r)
    m.prefetch[m.prefetch_count] = reinterpret_cast<const char*>(blk.a[r].data()),
    m.prefetch_lines[m.prefetch_count++] = 64;
  return m;
}

// The definition, one element at a time.
std::vector<std::vector<float>> defined(const Block& blk, bool two_pass, bool round) {
  std::vector<std::vector<float>> c = blk.c;
  for (uint32_t r = 0; r < blk.rt; ++r)
    for (uint32_t j = 0; j < blk.ct; ++j)
      for (uint32_t i = 0; i < 32; ++i)
        for (uint32_t col = 0; col < 32; ++col) {
          float acc = c[r * blk.ct + j][at(i, col)];
          for (uint32_t k = 0; k < 32; ++k)
            acc = std::fma(blk.a[r][at(i, k)], blk.b[j][at(k, col)], acc);
          if (two_pass)
            for (uint32_t k = 0; k < 32; ++k)
              acc = std::fma(blk.a2[r][at(i, k)], blk.b2[j][at(k, col)], acc);
          c[r * blk.ct + j][at(i, col)] = round ? round_to_bf16(acc) : acc;
        }
  return c;
}

// Bit equality, except that any NaN matches any NaN (which NaN operand an FMA
// passes on is the hardware's choice).
void expect_same(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want,
                 const std::string& label) {
  for (size_t t = 0; t < want.size(); ++t)
    for (uint32_t i = 0; i < kTileHW; ++i) {
      const float x = got[t][i], y = want[t][i];
      if (std::isnan(x) && std::isnan(y)) continue;
      ASSERT_EQ(std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(y))
          << label << ": tile " << t << " element " << i << ": " << x << " vs " << y;
    }
}

// The register-blocked kernels this host can run, by name.
std::vector<std::pair<MatmulKernel, const char*>> host_kernels() {
  std::vector<std::pair<MatmulKernel, const char*>> kernels;
  for (MatmulKernel kernel : {MatmulKernel::Avx2, MatmulKernel::Avx512, MatmulKernel::Avx512Bf16})
    if (matmul_kernel_available(kernel)) kernels.emplace_back(kernel, matmul_kernel_name(kernel));
  return kernels;
}

TEST(MatmulKernelTest, EveryKernelMatchesThePortableLoopAndTheDefinition) {
  uint64_t seed = 1;
  uint32_t shapes = 0;
  for (uint32_t rt = 1; rt <= 16; ++rt)
    for (uint32_t ct = 1; rt * ct <= 16; ++ct, ++shapes)
      for (bool two_pass : {false, true})
        for (bool round : {false, true}) {
          const std::string label = std::to_string(rt) + " x " + std::to_string(ct) +
                                    (two_pass ? ", two passes" : ", one pass") + (round ? ", rounded" : "");
          ++seed;
          const Block input = random_block(rt, ct, seed, seed % 4 == 0);
          const auto want = defined(input, two_pass, round);
          Block portable = input, host = input;
          matmul_block_acc(MatmulKernel::Portable, view(portable, two_pass, round));
          expect_same(portable.c, want, label + " (portable)");
          matmul_block_acc(view(host, two_pass, round));
          expect_same(host.c, want, label + " (host)");
          for (auto [kernel, name] : host_kernels()) {
            Block blk = input;
            matmul_block_acc(kernel, view(blk, two_pass, round));
            expect_same(blk.c, want, label + " (" + name + ")");
          }
          if (HasFatalFailure()) return;
        }
  EXPECT_EQ(shapes, 50u);
}

// The host runs the last of the kernels it has (each needs what the ones
// before it need).
TEST(MatmulKernelTest, TheHostRunsTheBestKernelItHas) {
  MatmulKernel best = MatmulKernel::Portable;
  for (auto [kernel, name] : host_kernels())
    best = kernel;
  EXPECT_EQ(int(matmul_host_kernel()), int(best));
  EXPECT_TRUE(matmul_kernel_available(MatmulKernel::Portable));
}

// The rounding's edge cases on their own: with A = B = 0 each result is
// C + 0, so C's values are the sums rounded.
TEST(MatmulKernelTest, RoundingOfEveryKindOfSum) {
  const uint32_t cases[] = {
      0x3f808000, // tie, even: stays 1.0
      0x3f818000, // tie, odd: rounds up
      0x3f80c000, // above the tie
      0x00000001, // denormal: +0
      0x007fffff, // largest denormal: +0
      0x807fffff, // negative denormal: -0
      0x00800000, // smallest normal
      0x7f7fffff, // largest float: rounds to infinity
      0x7f800000, // infinity
      0xff800000, // -infinity
      0x7fc12345, // NaN: payload's top bits kept
      0x7fc18000, // NaN: truncated, not rounded (rounding would change the payload)
      0x7fffffff, // NaN: rounding would carry into the sign
      0xffffffff, // negative NaN, the same
      0xffa00001, // signalling NaN: quieted (by the multiply-add already)
  };
  // Each case alone among ordinary values (so strips without any other
  // special lane see it), then all of them together.
  for (uint32_t which = 0; which <= std::size(cases); ++which) {
    const bool all = which == std::size(cases);
    Block blk = random_block(1, 1, 7, false);
    for (uint32_t i = 0; i < kTileHW; ++i) {
      blk.a[0][i] = blk.b[0][i] = 0.0f;
      const uint32_t bits = all ? cases[i % std::size(cases)] : i % 97 == 5 ? cases[which] : 0x3fc01234u;
      blk.c[0][i] = std::bit_cast<float>(bits);
    }
    const auto want = defined(blk, false, true);
    for (uint32_t i = 0; i < kTileHW; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(want[0][i]), std::bit_cast<uint32_t>(round_to_bf16(blk.c[0][i] + 0.0f)))
          << std::hex << std::bit_cast<uint32_t>(blk.c[0][i]);
    std::vector<std::pair<MatmulKernel, const char*>> kernels = host_kernels();
    kernels.emplace_back(MatmulKernel::Portable, matmul_kernel_name(MatmulKernel::Portable));
    for (auto [kernel, name] : kernels) {
      Block out = blk;
      matmul_block_acc(kernel, view(out, false, true));
      // Every NaN comes from C, so NaNs must match as bits too.
      for (uint32_t i = 0; i < kTileHW; ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(out.c[0][i]), std::bit_cast<uint32_t>(want[0][i]))
            << name << ", case " << which << ", element " << i;
    }
  }
}

} // namespace
} // namespace tessel::sim
