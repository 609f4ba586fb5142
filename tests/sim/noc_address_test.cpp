// L1 addresses in NoC calls: an offset or a pointer into a core's L1 slot;
// anything else (e.g. a DRAM address with a core's coordinates) is an error,
// not silently folded into L1.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kWriter = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t remote = get_arg_val<uint32_t>(0);
  noc_async_write(get_semaphore(0), get_noc_addr(my_x[0], my_y[0], remote), 16);
  noc_async_write_barrier();
}
)";

void run(const std::shared_ptr<Device>& device, uint32_t remote, std::string* error) {
  Program p;
  p.add_semaphore(CoreCoord{0, 0}, 7);
  KernelHandle k = p.add_kernel_from_source(kWriter, "writer.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.set_runtime_args(k, CoreCoord{0, 0}, {remote});
  try {
    device->command_queue().enqueue_program(p);
  } catch (const KernelError& e) {
    *error = e.what();
  }
}

TEST(NocAddressTest, OffsetsAndPointersAreAcceptedOthersRejected) {
  auto device = open_device();
  auto target = Buffer::create(device, {4 * 16, 16, BufferType::L1}); // 16 bytes on each of the 2x2 cores
  std::string error;
  run(device, target->address(), &error);
  EXPECT_EQ(error, "");
  run(device, 0x250000, &error); // beyond L1, below 4 GiB, not an L1 slot
  EXPECT_NE(error.find("writer.cpp:4: core (0,0) BRISC: noc_async_write: L1 address 0x250000 is neither an L1 offset"),
            std::string::npos)
      << error;
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
