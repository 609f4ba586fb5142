// Small kernel-side headers and names of TT-Metalium's newest kernels: the
// bfloat16 field masks, api/dataflow/dfb_access.h, CoreLocalMem::scoped_lock
// with internal/scoped_lock_cache_ops.h, and the DataflowBuffer pointer
// setters tessel refuses at compile time.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kHeaders = R"(#include "api/core_local_mem.h"
#include "api/dataflow/dataflow_api.h"
#include "api/dataflow/dataflow_buffer.h"
#include "api/dataflow/dfb_access.h"
#include "api/numeric/bfloat16.h"
#include "internal/scoped_lock_cache_ops.h"

DFB_TEMPLATE_DECL
uint32_t entry_of(DFB_CLASS& dfb) { return dfb.get_entry_size(); }

void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  // A NaN (0x7FC1) and +inf (0x7F80), told apart by the masks as argmax does.
  const uint16_t nan = 0x7FC1, inf = POS_INF_BFLOAT16;
  const uint32_t is_nan = ((nan & BFLOAT16_EXPONENT_MASK) == BFLOAT16_EXPONENT_MASK && (nan & BFLOAT16_MANTISSA_MASK) != 0);
  const uint32_t inf_nan = ((inf & BFLOAT16_EXPONENT_MASK) == BFLOAT16_EXPONENT_MASK && (inf & BFLOAT16_MANTISSA_MASK) != 0);
  noc_inline_dw_write(get_noc_addr(x, y, at), is_nan * 10 + inf_nan);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), uint32_t(0xBF80 & BFLOAT16_MAGNITUDE_MASK));
  static_assert(is_dataflow_buffer_v<DataflowBufferAnyPattern> && !is_dataflow_buffer_v<uint32_t>);
  DataflowBuffer dfb(0);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), entry_of(dfb) * 10 + uint32_t(dfb::AccessPattern::BLOCKED));
  CoreLocalMem<uint32_t> mem(dfb.get_write_ptr());
  {
    auto lock = (mem + 2).scoped_lock(4);
    scoped_lock_acquire_cache_ops(mem.get_address(), 16);
    mem[2] = 1234;
    scoped_lock_release_cache_ops(mem.get_address(), 16);
  }
  noc_inline_dw_write(get_noc_addr(x, y, at + 12), mem[2]);
}
)";

TEST(NewerKernelHeadersTest, MasksDfbAccessAndScopedLocksCompileAndMeanWhatTheyMeanThere) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, one_cb_config(2 * 64, 64));
  KernelHandle k = p.add_kernel_from_source(kHeaders, "headers.cpp", CoreCoord{0, 0},
                                            DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default});
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address()});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 10u) << "0x7FC1 is a NaN, +inf is not";
  EXPECT_EQ(rec.at(1), 0x3F80u) << "the magnitude of -1 is 1";
  EXPECT_EQ(rec.at(2), 64u * 10 + 2) << "the entry size through DFB_CLASS; BLOCKED is 2";
  EXPECT_EQ(rec.at(3), 1234u) << "a store under scoped_lock lands in L1";
}

TEST(NewerKernelHeadersTest, SettingADataflowBuffersPointerByHandIsACompileErrorNamingIt) {
  auto device = open_device();
  Program p;
  const std::string message = error_from<Error>([&] {
    p.add_kernel_from_source("#include \"api/dataflow/dataflow_buffer.h\"\nvoid kernel_main() {\n"
                             "  DataflowBuffer dfb(0);\n  dfb.evil_set_read_ptr(dfb.get_read_ptr());\n}\n",
                             "evil.cpp", CoreCoord{0, 0}, DataMovementConfig{});
    device->command_queue().enqueue_program(p);
  });
  EXPECT_NE(message.find("DataflowBuffer::evil_set_read_ptr is not supported by tessel: setting a FIFO pointer by "
                         "hand is not modelled (docs/deviations.md)"),
            std::string::npos)
      << message;
}

} // namespace
} // namespace tessel::test
