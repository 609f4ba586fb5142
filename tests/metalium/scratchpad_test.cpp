// Kernels with Metal 2.0 scratchpads: Scratchpad<T>(scratch::<name>) over a
// region of the core's L1 the host set aside (KernelBindings::scratchpads,
// its address a common runtime argument), filled by the core and used as a
// Noc source and destination; what the kernel and add_kernel refuse.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// Fills scratch::pad with i * 3 + the first vararg, copies it to tensor::dst
// page 0 through the NoC, reads page 1 back into its second half, and
// records size(), size_in_bytes() and the data format in page 2.
constexpr const char* kPadKernel = R"(#include "api/dataflow/noc.h"
#include "api/scratchpad.h"
#include "api/tensor/noc_traits.h"
#include "experimental/kernel_args.h"

void kernel_main() {
  Scratchpad<uint32_t> pad(scratch::pad);
  const uint32_t bias = get_common_vararg(0);
  {
    auto lock = pad.scoped_lock(0, pad.size());
    for (uint32_t i = 0; i < pad.size(); ++i)
      pad[i] = i * 3 + bias;
  }
  Noc noc;
  const auto dst = TensorAccessor(tensor::dst);
  noc.async_write(pad, dst, pad.size_in_bytes(), {}, {.page_id = 0});
  noc.async_write_barrier();
  noc.async_read(dst, pad, pad.size_in_bytes() / 2, {.page_id = 1}, {.offset_bytes = pad.size_in_bytes() / 2});
  noc.async_read_barrier();
  uint32_t sum = 0;
  for (uint32_t v : pad)
    sum += v;
  pad[0] = pad.size();
  pad[1] = pad.size_in_bytes();
  pad[2] = uint32_t(pad.get_dataformat());
  pad[3] = sum;
  pad[4] = uint32_t(pad.local_mem().get_address() == pad.get_base_address());
  noc.async_write(pad, dst, 32, {}, {.page_id = 2});
  noc.async_write_barrier();
}
)";

constexpr uint32_t kPadBytes = 256;

TEST(ScratchpadTest, AKernelFillsItsScratchpadAndMovesItOverTheNoc) {
  auto device = open_device();
  auto dst = Buffer::create(device, {3 * kPadBytes, kPadBytes, BufferType::DRAM});
  auto region = Buffer::create(device, {kPadBytes, kPadBytes, BufferType::L1});
  std::vector<uint32_t> page1(kPadBytes / 4 * 3, 0);
  for (uint32_t i = 0; i < kPadBytes / 4; ++i)
    page1[kPadBytes / 4 + i] = 1000 + i;
  dst->write(page1.data(), 3 * kPadBytes);

  const CoreCoord core{0, 0};
  Program p;
  DataMovementConfig c{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default};
  TensorAccessorArgs(*dst).append_to(c.compile_args);
  c.bindings = KernelBindings{.tensors = {{"dst", 0}},
                              .scratchpads = {{.name = "pad", .size_bytes = kPadBytes, .format = DataFormat::UInt32}}};
  const KernelHandle k = p.add_kernel_from_source(kPadKernel, "pad.cpp", core, c);
  p.set_common_runtime_args(k, {dst->address(), region->address(), 7});
  device->command_queue().enqueue_program(p);

  std::vector<uint32_t> got(3 * kPadBytes / 4);
  dst->read(got.data(), 3 * kPadBytes);
  const uint32_t n = kPadBytes / 4;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(got[i], i * 3 + 7) << "page 0 word " << i;
    sum += i < n / 2 ? i * 3 + 7 : 1000 + (i - n / 2);
  }
  EXPECT_EQ(got[2 * n + 0], n) << "size()";
  EXPECT_EQ(got[2 * n + 1], kPadBytes) << "size_in_bytes()";
  EXPECT_EQ(got[2 * n + 2], uint32_t(DataFormat::UInt32)) << "get_dataformat()";
  EXPECT_EQ(got[2 * n + 3], sum) << "range-for over the scratchpad after the NoC read into its second half";
  EXPECT_EQ(got[2 * n + 4], 1u) << "local_mem() is the base address";
}

// A compute kernel fills the scratchpad; a later program's data-movement
// kernel, bound to the same region, copies it out.
constexpr const char* kComputeFill = R"(#include "api/compute/common.h"
#include "api/scratchpad.h"

void kernel_main() {
  Scratchpad<uint32_t> pad(scratch::acc);
  auto lock = pad.scoped_lock(0, pad.size());
  for (uint32_t i = 0; i < pad.size(); ++i)
    pad[i] = i * 2 + 1;
}
)";

constexpr const char* kCopyOut = R"(#include "api/dataflow/noc.h"
#include "api/scratchpad.h"
#include "api/tensor/noc_traits.h"

void kernel_main() {
  Scratchpad<uint32_t> pad(scratch::acc);
  Noc noc;
  noc.async_write(pad, TensorAccessor(tensor::dst), pad.size_in_bytes(), {}, {.page_id = 0});
  noc.async_write_barrier();
}
)";

TEST(ScratchpadTest, AComputeKernelUsesItsScratchpadToo) {
  auto device = open_device();
  auto dst = Buffer::create(device, {kPadBytes, kPadBytes, BufferType::DRAM});
  auto region = Buffer::create(device, {kPadBytes, kPadBytes, BufferType::L1});
  const CoreCoord core{0, 0};
  Program fill;
  ComputeConfig compute;
  compute.bindings = KernelBindings{.scratchpads = {{.name = "acc", .size_bytes = kPadBytes}}};
  const KernelHandle f = fill.add_kernel_from_source(kComputeFill, "fill.cpp", core, compute);
  fill.set_common_runtime_args(f, {region->address()});
  device->command_queue().enqueue_program(fill);

  Program copy;
  DataMovementConfig c{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default};
  TensorAccessorArgs(*dst).append_to(c.compile_args);
  c.bindings = KernelBindings{.tensors = {{"dst", 0}}, .scratchpads = {{.name = "acc", .size_bytes = kPadBytes}}};
  const KernelHandle k = copy.add_kernel_from_source(kCopyOut, "copy_out.cpp", core, c);
  copy.set_common_runtime_args(k, {dst->address(), region->address()});
  device->command_queue().enqueue_program(copy);
  std::vector<uint32_t> got(kPadBytes / 4);
  dst->read(got.data(), kPadBytes);
  for (uint32_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], i * 2 + 1) << "word " << i;
}

std::string run_error(const char* body, uint32_t address, uint32_t size_bytes = kPadBytes) {
  auto device = open_device();
  auto region = Buffer::create(device, {kPadBytes, kPadBytes, BufferType::L1});
  Program p;
  DataMovementConfig c{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default};
  c.bindings = KernelBindings{.scratchpads = {{.name = "pad", .size_bytes = size_bytes}}};
  const std::string source = std::string("#include \"api/scratchpad.h\"\n\nvoid kernel_main() {\n") + body + "}\n";
  const KernelHandle k = p.add_kernel_from_source(source, "bad_pad.cpp", CoreCoord{0, 0}, c);
  p.set_common_runtime_args(k, {address == 0 ? region->address() : address});
  return error_of<KernelError>(device->command_queue(), p);
}

TEST(ScratchpadTest, IndicesAddressesAndSizesOutsideTheRegionAreErrors) {
  std::string m = run_error("  Scratchpad<uint32_t> pad(scratch::pad);\n  pad[pad.size()] = 1;\n", 0);
  EXPECT_NE(m.find("Scratchpad::operator[]: 64 is past the scratchpad's 64 elements: expected below 64"),
            std::string::npos)
      << m;
  m = run_error("  Scratchpad<uint32_t> pad(scratch::pad); // @ctor\n", 0xFFFFFF00u);
  EXPECT_NE(m.find("bad_pad.cpp:4: core (0,0) BRISC: Scratchpad: common runtime argument 0 holds L1 address "
                   "4294967040; the scratchpad's 256 bytes from there end past this core's"),
            std::string::npos)
      << m;
  m = run_error("  Scratchpad<uint64_t> pad(scratch::pad);\n", 0, 20);
  EXPECT_NE(m.find("Scratchpad<T>: the scratchpad's 20 bytes are not a whole number of elements: expected a multiple "
                   "of sizeof(T) = 8"),
            std::string::npos)
      << m;
  m = run_error("  Scratchpad<uint32_t> pad(scratch::pad);\n  auto l = pad.scoped_lock(60, 8);\n", 0);
  EXPECT_NE(m.find("Scratchpad::scoped_lock: 68 is past the scratchpad's 64 elements (offset + count)"),
            std::string::npos)
      << m;
}

} // namespace
} // namespace tessel::test
