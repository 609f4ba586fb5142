// Missing barriers: transfers complete when issued, but a kernel that pushes
// CB pages before its read barrier, pops pages before its write barrier (or
// flush), or ends with transfers in flight is reported at the call.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// Mode 0: correct. 1: push before the read barrier. 2: pop before the write
// barrier. 3: flush instead of the write barrier (correct). 4: end with a read
// in flight. 5: end with a write in flight.
constexpr const char* kKernel = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t mode = get_arg_val<uint32_t>(0);
  const uint64_t here = get_noc_addr(get_semaphore(0));
  cb_reserve_back(0, 1);
  noc_async_read(here, get_write_ptr(0), 16);
  if (mode != 1) noc_async_read_barrier();
  cb_push_back(0, 1);
  cb_wait_front(0, 1);
  noc_async_write(get_read_ptr(0), here, 16);
  if (mode == 3) noc_async_writes_flushed();
  else if (mode != 2) noc_async_write_barrier();
  cb_pop_front(0, 1);
  if (mode == 4) noc_async_read(here, get_write_ptr(0), 16);
  if (mode == 5) noc_async_write(get_write_ptr(0), here, 16);
}
)";

std::string run(const std::shared_ptr<Device>& device, uint32_t mode) {
  Program p;
  CircularBufferConfig cb(2 * 16, {{0, DataFormat::UInt32}});
  cb.set_page_size(0, 16);
  p.add_circular_buffer(CoreCoord{0, 0}, cb);
  p.add_semaphore(CoreCoord{0, 0}, 0);
  KernelHandle k = p.add_kernel_from_source(kKernel, "barriers.cpp", CoreCoord{0, 0}, DataMovementConfig{});
  p.set_runtime_args(k, CoreCoord{0, 0}, {mode});
  try {
    device->command_queue().enqueue_program(p);
  } catch (const KernelError& e) {
    return e.what();
  }
  return "";
}

TEST(MissingBarrierTest, EachMissingBarrierIsReportedAtItsCall) {
  auto device = open_device();
  EXPECT_EQ(run(device, 0), "");
  EXPECT_EQ(run(device, 1), "barriers.cpp:8: core (0,0) BRISC: cb_push_back(cb=0, pages=1): these pages are still "
                            "being filled by a noc_async_read issued at barriers.cpp:6; call noc_async_read_barrier() "
                            "before cb_push_back");
  EXPECT_EQ(run(device, 2), "barriers.cpp:13: core (0,0) BRISC: cb_pop_front(cb=0, pages=1): these pages are still "
                            "being read by a noc_async_write issued at barriers.cpp:10; call noc_async_write_barrier() "
                            "(or noc_async_writes_flushed()) before cb_pop_front");
  EXPECT_EQ(run(device, 3), "");
  EXPECT_EQ(run(device, 4), "barriers.cpp:14: core (0,0) BRISC: kernel ended with 1 NoC read in flight (the first "
                            "issued here): wait for them with noc_async_read_barrier before returning");
  EXPECT_EQ(run(device, 5), "barriers.cpp:15: core (0,0) BRISC: kernel ended with 1 NoC write in flight (the first "
                            "issued here): wait for them with noc_async_write_barrier before returning");
  EXPECT_EQ(run(device, 0), "") << "the device works after the errors";
}

} // namespace
} // namespace tessel::test
