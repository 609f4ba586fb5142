// What Metalium's firmware includes before every kernel (kernel_prelude.h):
// a data-movement kernel may use the dataflow API and DPRINT, a compute
// kernel DPRINT, without including them.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kBareReader = R"(#include <cstdint>
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  noc_inline_dw_write(get_noc_addr(x, y, at), get_arg_val<uint32_t>(3));
  DPRINT << "wrote " << get_arg_val<uint32_t>(3) << ENDL();
}
)";

constexpr const char* kBareCompute = R"(void kernel_main() {
  DPRINT << "compute " << 7 << ENDL();
}
)";

TEST(ImplicitIncludesTest, KernelsUseTheirFirmwaresApisWithoutIncludingThem) {
  setenv("TESSEL_DPRINT_CORES", "0,0", 1);
  auto device = open_device();
  unsetenv("TESSEL_DPRINT_CORES");
  Recorder rec(device);
  Program p;
  KernelHandle reader = p.add_kernel_from_source(kBareReader, "bare_reader.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.add_kernel_from_source(kBareCompute, "bare_compute.cpp", CoreCoord{0, 0}, ComputeConfig{});
  p.set_runtime_args(reader, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 0xBEEF});
  testing::internal::CaptureStdout();
  device->command_queue().enqueue_program(p);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rec.at(0), 0xBEEFu);
  EXPECT_NE(out.find("0:(x=0,y=0):BR: wrote 48879"), std::string::npos) << out;
  // A plain DPRINT in a compute kernel prints once from each of its three threads.
  for (const char* thread : {"TR0", "TR1", "TR2"})
    EXPECT_NE(out.find(std::string("0:(x=0,y=0):") + thread + ": compute 7"), std::string::npos) << out;
}

} // namespace
} // namespace tessel::test
