// DPRINT: enabled per core by TESSEL_DPRINT_CORES, each line prefixed with
// device, core and RISC; formatting manipulators behave as in TT-Metalium.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kPrinter = R"(#include "api/dataflow/dataflow_api.h"
#include "api/debug/dprint.h"
void kernel_main() {
  const uint32_t v = get_arg_val<uint32_t>(0);
  DPRINT << "v=" << v << " hex=" << HEX() << v << DEC() << " f=" << SETPRECISION(3) << FIXED() << 1.5f
         << " bf16=" << BF16(0x3fc0) << ENDL();
  DPRINT_DATA1(DPRINT << "only on NCRISC" << ENDL());
  if (v == 27) DPRINT << int(-1) << " " << HEX() << int(-1) << " " << short(-2) << ENDL();
}
)";

std::string run_with(const char* cores_env) {
  if (cores_env)
    setenv("TESSEL_DPRINT_CORES", cores_env, 1);
  else
    unsetenv("TESSEL_DPRINT_CORES");
  auto device = open_device();
  unsetenv("TESSEL_DPRINT_CORES");
  const CoreRange all({0, 0}, {1, 1});
  Program p;
  KernelHandle k = p.add_kernel_from_source(kPrinter, "printer.cpp", all, DataMovementConfig{});
  for (CoreCoord c : all.cores())
    p.set_runtime_args(k, c, {c.y * 2 + c.x + 26});
  testing::internal::CaptureStdout();
  device->command_queue().enqueue_program(p);
  return testing::internal::GetCapturedStdout();
}

TEST(DprintTest, PrintsOnlyTheSelectedCoresWithAPrefix) {
  EXPECT_EQ(run_with("1,0"), "0:(x=1,y=0):BR: v=27 hex=1b f=1.500 bf16=1.500\n0:(x=1,y=0):BR: -1 ffffffff fffe\n");
}

TEST(DprintTest, RangesAndAll) {
  const std::string all = run_with("all");
  for (const char* line :
       {"0:(x=0,y=0):BR: v=26 ", "0:(x=1,y=0):BR: v=27 ", "0:(x=0,y=1):BR: v=28 ", "0:(x=1,y=1):BR: v=29 "})
    EXPECT_NE(all.find(line), std::string::npos) << line << " missing from:\n" << all;
  EXPECT_EQ(all.find("only on NCRISC"), std::string::npos) << all;
  const std::string range = run_with("(0,1)-(1,1)");
  EXPECT_EQ(range.find("y=0"), std::string::npos) << range;
  EXPECT_NE(range.find("0:(x=1,y=1):BR: v=29 "), std::string::npos) << range;
}

TEST(DprintTest, DisabledByDefault) { EXPECT_EQ(run_with(nullptr), ""); }

TEST(DprintTest, AMalformedCoreListIsAnErrorNamingTheVariable) {
  for (const char* bad : {"1,2junk", "(0,0)-(1)", "-1,0", "x", "0,0;;"}) {
    setenv("TESSEL_DPRINT_CORES", bad, 1);
    const std::string message = error_from<ValidationError>([] { open_device(); });
    EXPECT_EQ(message.rfind(std::string("TESSEL_DPRINT_CORES='") + bad + "' is not valid: '", 0), 0u) << message;
    EXPECT_NE(message.find("' is not a core; expected all, x,y or (x1,y1)-(x2,y2), several separated by ';'"),
              std::string::npos)
        << message;
  }
  // Spaces are fine, and cores beyond this grid are left out.
  setenv("TESSEL_DPRINT_CORES", " ( 0 , 0 ) - ( 1 , 0 ) ; 9,9", 1);
  EXPECT_NO_THROW(open_device());
  unsetenv("TESSEL_DPRINT_CORES");
}

} // namespace
} // namespace tessel::test
