// A host program that calls assert() with no include of its own: Metalium's
// host headers bring <cassert> in. The function below sits before any other
// include, so it compiles only if the host API provided assert.
#include "tt-metalium/host_api.hpp"

namespace {
int checked_page_count(int pages) {
  assert(pages > 0 && "a buffer has pages");
  return pages;
}
} // namespace

#include <gtest/gtest.h>

TEST(HostAssertTest, TheHostApiBringsInTheAssertMacro) { EXPECT_EQ(checked_page_count(4), 4); }
