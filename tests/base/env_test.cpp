// tessel's environment variables (src/base/env.cpp): each is parsed strictly,
// and a TESSEL_* name tessel does not read gets a warning.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/env.hpp"
#include "tessel/error.hpp"

namespace tessel::base {
namespace {

constexpr const char* kName = "TESSEL_WATCHDOG_S";

std::string seconds_error(const char* value) {
  setenv(kName, value, 1);
  try {
    env_seconds(kName, 1.0);
  } catch (const ValidationError& e) {
    unsetenv(kName);
    return e.what();
  }
  unsetenv(kName);
  return "no error";
}

TEST(EnvTest, SecondsTakeDecimalNumbers) {
  unsetenv(kName);
  EXPECT_EQ(env_seconds(kName, 7.5), 7.5);
  setenv(kName, "", 1);
  EXPECT_EQ(env_seconds(kName, 7.5), 7.5); // empty is unset
  for (auto [text, value] : {std::pair{"10", 10.0}, {"0.25", 0.25}, {"0", 0.0}, {"3.", 3.0}, {".5", 0.5}}) {
    setenv(kName, text, 1);
    EXPECT_EQ(env_seconds(kName, 1.0), value) << text;
  }
  unsetenv(kName);
}

TEST(EnvTest, MalformedSecondsNameTheVariable) {
  for (const char* bad : {"abc", "-1", "+1", "1e3", "0x10", "inf", "nan", "1.2.3", " 1", "1s", "."})
    EXPECT_EQ(seconds_error(bad), std::string(kName) + "='" + bad +
                                      "' is not valid: expected a number of seconds, 0 or more (e.g. 10 or 0.5; 0 "
                                      "turns it off)");
}

TEST(EnvTest, FlagsTakeTheUsualSpellings) {
  constexpr const char* flag = "TESSEL_CHECK_MEMORY";
  unsetenv(flag);
  EXPECT_TRUE(env_flag(flag, true));
  EXPECT_FALSE(env_flag(flag, false));
  for (const char* on : {"1", "true", "ON", "Yes"}) {
    setenv(flag, on, 1);
    EXPECT_TRUE(env_flag(flag, false)) << on;
  }
  for (const char* off : {"0", "false", "off", "NO"}) {
    setenv(flag, off, 1);
    EXPECT_FALSE(env_flag(flag, true)) << off;
  }
  setenv(flag, "2", 1);
  try {
    env_flag(flag, true);
    ADD_FAILURE() << "no error";
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "TESSEL_CHECK_MEMORY='2' is not valid: expected 1 or 0 (also true/false, on/off, yes/no)");
  }
  unsetenv(flag);
}

TEST(EnvTest, AnUnknownTesselVariableIsWarnedAboutOnce) {
  setenv("TESSEL_WATCHDOG", "5", 1);
  setenv("TESSEL_TT_METAL_HOME", "/nonexistent", 1); // read by the build's configuration: known, not warned about
  setenv("TESSEL_AIE_ARCH", "aie2p", 1);             // read by tessel.iron's kernel lookup: known
  testing::internal::CaptureStderr();
  check_variable_names();
  check_variable_names();
  const std::string err = testing::internal::GetCapturedStderr();
  unsetenv("TESSEL_WATCHDOG");
  unsetenv("TESSEL_TT_METAL_HOME");
  unsetenv("TESSEL_AIE_ARCH");
  EXPECT_EQ(err.find("TESSEL_TT_METAL_HOME is not"), std::string::npos) << err;
  EXPECT_EQ(err.find("TESSEL_AIE_ARCH is not"), std::string::npos) << err;
  EXPECT_EQ(err.rfind("tessel: warning: TESSEL_WATCHDOG is not a variable tessel reads (it reads TESSEL_ARCH, ", 0), 0u)
      << err;
  EXPECT_NE(err.find("TESSEL_WATCHDOG_S"), std::string::npos) << err;
  EXPECT_EQ(err.find("tessel: warning"), err.rfind("tessel: warning")) << "warned more than once: " << err;
}

} // namespace
} // namespace tessel::base
