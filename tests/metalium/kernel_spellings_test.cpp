// Kernel-side spellings of today's TT-Metalium that kernels use without a
// second thought: tt_l1_ptr, hostdevcommon/common_values.hpp (VALID,
// INVALID), hostdevcommon/kernel_structs.h and the older tt::CB names, the
// free get_noc_addr(page, accessor).
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kSpellings = R"(#include "api/dataflow/dataflow_api.h"
#include "hostdevcommon/common_values.hpp"
#include "hostdevcommon/kernel_structs.h"

void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  volatile tt_l1_ptr uint32_t* flag = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0));
  *flag = VALID;
  const uint32_t packed = (uint32_t(tt::CB::c_in0) << 0) | (uint32_t(tt::CB::c_out0) << 8) |
                          (uint32_t(tt::CB::c_intermed7) << 16) | (uint32_t(tt::CBIndex::c_63) << 24);
  noc_inline_dw_write(get_noc_addr(x, y, at), packed);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), *flag + INVALID);
  // The free get_noc_addr of a TensorAccessor and of an address generator.
  constexpr auto args = TensorAccessorArgs<0>();
  const auto accessor = TensorAccessor(args, get_arg_val<uint32_t>(3), 1024);
  const InterleavedAddrGen<true> gen = {get_arg_val<uint32_t>(3), 1024};
  const uint64_t a = get_noc_addr(5, accessor, 16), b = get_noc_addr(5, gen, 16), c = accessor.get_noc_addr(5, 16);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), uint32_t(a == c) + 2 * uint32_t(b == c));
}
)";

TEST(KernelSpellingsTest, MetaliumKernelSpellingsCompileAndMeanWhatTheyMeanThere) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  p.add_semaphore(CoreCoord{0, 0}, 0);
  auto dram = Buffer::create(device, {8 * 1024, 1024, BufferType::DRAM});
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*dram).append_to(cta);
  KernelHandle k =
      p.add_kernel_from_source(kSpellings, "spellings.cpp", CoreCoord{0, 0},
                               DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, cta});
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), dram->address()});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), (0u << 0) | (16u << 8) | (31u << 16) | (63u << 24));
  EXPECT_EQ(rec.at(1), 1u);
  EXPECT_EQ(rec.at(2), 3u) << "the free get_noc_addr forms give the member's address";
}

} // namespace
} // namespace tessel::test
