// Warnings (src/base/warning.cpp): printed once per key; TESSEL_STRICT=1
// hands them back to the caller as errors.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/warning.hpp"

namespace tessel::base {
namespace {

TEST(WarningTest, EachKeyIsPrintedOnce) {
  unsetenv("TESSEL_STRICT");
  testing::internal::CaptureStderr();
  EXPECT_EQ(warn_once("k1", "first"), Warned::Printed);
  EXPECT_EQ(warn_once("k1", "first again"), Warned::Again);
  EXPECT_EQ(warn_once("k2", "second"), Warned::Printed);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "tessel: warning: first\ntessel: warning: second\n");
}

TEST(WarningTest, StrictMakesEveryWarningTheCallersError) {
  setenv("TESSEL_STRICT", "1", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(warn_once("s", "strict"), Warned::Strict);
  EXPECT_EQ(warn_once("s", "strict"), Warned::Strict); // every time, not once
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  setenv("TESSEL_STRICT", "0", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(warn_once("s", "strict"), Warned::Printed); // the strict calls did not use up the key
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "tessel: warning: strict\n");
  unsetenv("TESSEL_STRICT");
}

} // namespace
} // namespace tessel::base
