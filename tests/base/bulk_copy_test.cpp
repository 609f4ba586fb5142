// bulk_copy (src/base/bulk_copy.cpp): the same bytes as memcpy for every
// size around the streaming threshold and every destination misalignment,
// with nothing written outside the destination.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "base/bulk_copy.hpp"

namespace tessel::base {
namespace {

TEST(BulkCopyTest, CopiesExactlyTheBytesAtEveryAlignment) {
  const size_t sizes[] = {0,     1,         63, kStreamingCopyBytes - 1, kStreamingCopyBytes, kStreamingCopyBytes + 17,
                          65536, 65536 + 63};
  std::vector<uint8_t> src(70000 + 64), dst(70000 + 128);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = uint8_t(i * 131 + 7);
  for (size_t n : sizes)
    for (size_t d_off = 0; d_off < 32; d_off += 5)
      for (size_t s_off : {size_t(0), size_t(3), size_t(16)}) {
        std::fill(dst.begin(), dst.end(), uint8_t(0xEE));
        bulk_copy(dst.data() + 32 + d_off, src.data() + s_off, n);
        bulk_copy_done();
        for (size_t i = 0; i < dst.size(); ++i) {
          const bool inside = i >= 32 + d_off && i < 32 + d_off + n;
          const uint8_t want = inside ? src[i - 32 - d_off + s_off] : uint8_t(0xEE);
          ASSERT_EQ(dst[i], want) << "size " << n << ", dst offset " << d_off << ", src offset " << s_off << ", byte "
                                  << i;
        }
      }
}

} // namespace
} // namespace tessel::base
