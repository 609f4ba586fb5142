// Names a host program uses with no include of its own: assert (Metalium's
// host headers bring <cassert> in) and the semaphore values VALID / INVALID
// in a runtime-args initializer. The functions below sit before any other
// include, so they compile only if the host API provided the names.
#include "tt-metalium/host_api.hpp"

namespace {
int checked_page_count(int pages) {
  assert(pages > 0 && "a buffer has pages");
  return pages;
}
void set_flags(tt::tt_metal::Program& program, tt::tt_metal::KernelHandle kernel) {
  tt::tt_metal::SetRuntimeArgs(program, kernel, CoreCoord{0, 0}, {7u, INVALID, VALID});
}
} // namespace

#include <gtest/gtest.h>

TEST(HostAssertTest, TheHostApiBringsInTheAssertMacro) { EXPECT_EQ(checked_page_count(4), 4); }

TEST(HostAssertTest, TheHostApiBringsInTheSemaphoreValues) {
  tt::tt_metal::Program program = tt::tt_metal::CreateProgram();
  const tt::tt_metal::KernelHandle kernel = tt::tt_metal::CreateKernelFromString(
      program, "void kernel_main() {}\n", CoreCoord{0, 0}, tt::tt_metal::DataMovementConfig{});
  set_flags(program, kernel);
  const auto& args = tt::tt_metal::GetRuntimeArgs(program, kernel, CoreCoord{0, 0});
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[1], 0u);
  EXPECT_EQ(args[2], 1u);
}
