// TensorAccessor calls of TT-Metalium's newest kernels: get_bank_base_address()
// (a constant expression for a constant accessor) and shard_pages(shard,
// start, end) with end 0 meaning the shard's end; shard_pages on an
// interleaved accessor is refused at compile time, as Metalium refuses it.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kShardRanges = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  constexpr auto args = TensorAccessorArgs<0>(); // 4x6 pages, 2x3 shards
  constexpr auto fixed = TensorAccessor(args, 4096u);
  static_assert(fixed.get_bank_base_address() == 4096u);
  const auto a = TensorAccessor(args, get_arg_val<uint32_t>(3));
  uint32_t ids = 0;
  for (const auto& page : a.shard_pages(1, 1, 0))
    ids = ids * 100 + page.page_id();
  noc_inline_dw_write(get_noc_addr(x, y, at), ids);
  ids = 0;
  for (const auto& page : a.shard_pages(1, 0, 2))
    ids = ids * 100 + page.page_id();
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), ids);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), a.get_bank_base_address());
}
)";

TEST(TensorAccessorApiTest, ShardPagesEndZeroIsTheShardsEndAndTheBankBaseAddressIsTheAccessors) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  DataMovementConfig c{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default};
  c.compile_args = {1, 2048, 2, 1, 4, 6, 2, 3, 0};
  KernelHandle k = p.add_kernel_from_source(kShardRanges, "shard_ranges.cpp", CoreCoord{0, 0}, c);
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 8192});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 405091011u) << "shard 1 from its second page to its end: 4, 5, 9, 10, 11";
  EXPECT_EQ(rec.at(1), 304u) << "shard 1's first two pages";
  EXPECT_EQ(rec.at(2), 8192u) << "get_bank_base_address()";
}

TEST(TensorAccessorApiTest, ShardPagesOfAnInterleavedAccessorIsACompileError) {
  auto device = open_device();
  Program p;
  DataMovementConfig c{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default};
  c.compile_args = {2, 2048};
  const std::string message = error_from<Error>([&] {
    p.add_kernel_from_source("#include \"api/dataflow/dataflow_api.h\"\nvoid kernel_main() {\n"
                             "  const auto a = TensorAccessor(TensorAccessorArgs<0>(), 0u);\n"
                             "  for (const auto& page : a.shard_pages(0)) (void)page;\n}\n",
                             "interleaved_shards.cpp", CoreCoord{0, 0}, c);
    device->command_queue().enqueue_program(p);
  });
  EXPECT_NE(message.find("TensorAccessor::shard_pages is not supported by the interleaved tensor accessor: its "
                         "TensorAccessorArgs must be a sharded tensor's"),
            std::string::npos)
      << message;
}

} // namespace
} // namespace tessel::test
