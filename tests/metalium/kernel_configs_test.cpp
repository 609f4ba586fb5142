// Metalium's kernel configs through CreateKernel: every KernelBuildOptLevel
// builds the kernel with its own compiler flag, and ComputeConfig's
// bfp8_pack_precise reaches the compute kernel.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "tt-metalium/host_api.hpp"

using namespace tt::tt_metal;

namespace {

// Builds only at the level LEVEL names: the compiler's predefined macros
// (__OPTIMIZE__ from -O1 up, __OPTIMIZE_SIZE__ for -Os and -Oz, __FAST_MATH__
// for -Ofast, __NO_INLINE__ at -O0) must be what that level's flag defines.
constexpr const char* kLevelSource = R"KERNEL(#ifdef __OPTIMIZE__
#define SEEN_OPT 1
#else
#define SEEN_OPT 0
#endif
#ifdef __OPTIMIZE_SIZE__
#define SEEN_SIZE 1
#else
#define SEEN_SIZE 0
#endif
#ifdef __FAST_MATH__
#define SEEN_FAST 1
#else
#define SEEN_FAST 0
#endif
#if SEEN_OPT != WANT_OPT || SEEN_SIZE != WANT_SIZE || SEEN_FAST != WANT_FAST
#error the kernel was not built at the level its config asks for
#endif
#if WANT_PRECISE != TESSEL_BFP8_PACK_PRECISE + 0
#error bfp8_pack_precise did not reach the kernel
#endif
void kernel_main() {}
)KERNEL";

struct Level {
  KernelBuildOptLevel level;
  const char* name;
  int optimize, size, fast;
};

void PrintTo(const Level& level, std::ostream* os) { *os << level.name; }

class KernelConfigsTest : public testing::TestWithParam<Level> {};

TEST_P(KernelConfigsTest, EveryOptLevelBuildsWithItsFlag) {
  const Level& l = GetParam();
  IDevice* device = CreateDevice(0);
  const std::map<std::string, std::string> defines = {{"WANT_OPT", std::to_string(l.optimize)},
                                                      {"WANT_SIZE", std::to_string(l.size)},
                                                      {"WANT_FAST", std::to_string(l.fast)},
                                                      {"WANT_PRECISE", "1"}};
  Program program = CreateProgram();
  CreateKernelFromString(program, kLevelSource, CoreCoord{0, 0},
                         DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                            .noc = NOC::RISCV_0_default,
                                            .defines = {{"WANT_OPT", std::to_string(l.optimize)},
                                                        {"WANT_SIZE", std::to_string(l.size)},
                                                        {"WANT_FAST", std::to_string(l.fast)},
                                                        {"WANT_PRECISE", "0"}},
                                            .opt_level = l.level});
  CreateKernelFromString(program, kLevelSource, CoreCoord{0, 0},
                         ComputeConfig{.bfp8_pack_precise = true, .defines = defines, .opt_level = l.level});
  EXPECT_NO_THROW(EnqueueProgram(device->command_queue(), program, true)) << l.name;
  CloseDevice(device);
}

INSTANTIATE_TEST_SUITE_P(
    Levels, KernelConfigsTest,
    testing::Values(Level{KernelBuildOptLevel::O0, "O0", 0, 0, 0}, Level{KernelBuildOptLevel::O1, "O1", 1, 0, 0},
                    Level{KernelBuildOptLevel::O2, "O2", 1, 0, 0}, Level{KernelBuildOptLevel::O3, "O3", 1, 0, 0},
                    Level{KernelBuildOptLevel::Os, "Os", 1, 1, 0}, Level{KernelBuildOptLevel::Ofast, "Ofast", 1, 0, 1},
                    Level{KernelBuildOptLevel::Oz, "Oz", 1, 1, 0}),
    [](const testing::TestParamInfo<Level>& info) { return std::string(info.param.name); });

} // namespace
