// TT-Metalium's stateful one-packet transfers (*_set_state / *_with_state)
// and transaction ids (*_set_trid, *_with_trid), as ttnn's readers and
// writers use them: they move the same data as the plain calls, and a
// *_with_state call with no state set is reported at the kernel's line.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// Copies `pages` pages from the input tensor to the output tensor through
// CB 0: even pages with the one-packet state calls, odd ones with the
// transaction-id calls. Mode 1: the first write uses a state never set.
constexpr const char* kCopy = R"(#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src = get_arg_val<uint32_t>(0), dst = get_arg_val<uint32_t>(1);
  const uint32_t pages = get_arg_val<uint32_t>(2), mode = get_arg_val<uint32_t>(3);
  constexpr uint32_t page_bytes = 1024;
  const auto in = TensorAccessor(TensorAccessorArgs<0>(), src, page_bytes);
  const auto out = TensorAccessor(TensorAccessorArgs<2>(), dst, page_bytes);
  const uint32_t l1 = get_write_ptr(0);
  if (mode == 1) noc_async_write_one_packet_with_state(l1, 0); // @no_state
  for (uint32_t p = 0; p < pages; ++p) {
    const uint64_t from = in.get_noc_addr(p), to = out.get_noc_addr(p);
    if (p % 2 == 0) {
      noc_async_read_one_packet_set_state(from, page_bytes);
      noc_async_read_one_packet_with_state(uint32_t(from), l1);
      noc_async_read_barrier();
      noc_async_write_one_packet_set_state(to, page_bytes);
      noc_async_write_one_packet_with_state(l1, uint32_t(to));
      noc_async_write_barrier();
    } else {
      noc_async_read_set_trid(p);
      noc_async_read_one_packet_set_state(from, page_bytes);
      noc_async_read_one_packet_with_state_with_trid(uint32_t(from) - 64, 64, l1, p);
      noc_async_read_barrier_with_trid(p);
      noc_async_write_set_trid(p);
      noc_async_write_one_packet_with_trid(l1, to, page_bytes, p);
      noc_async_write_flushed_with_trid(p);
      noc_async_write_barrier_with_trid(p);
    }
  }
}
)";

TEST(StatefulTransfersTest, StateAndTransactionIdCallsCopyPages) {
  auto device = open_device();
  constexpr uint32_t kPages = 6, kBytes = 1024;
  auto input = Buffer::create(device, {kPages * kBytes, kBytes, BufferType::DRAM});
  auto output = Buffer::create(device, {kPages * kBytes, kBytes, BufferType::DRAM});
  std::vector<uint32_t> words(kPages * kBytes / 4);
  for (uint32_t i = 0; i < words.size(); ++i)
    words[i] = i * 2654435761u;
  input->write(words.data(), kPages * kBytes);
  auto program = [&](uint32_t mode) {
    Program p;
    p.add_circular_buffer(CoreCoord{0, 0}, one_cb_config(kBytes, kBytes));
    std::vector<uint32_t> cta;
    TensorAccessorArgs(*input).append_to(cta);
    TensorAccessorArgs(*output).append_to(cta);
    const KernelHandle k =
        p.add_kernel_from_source(kCopy, "stateful.cpp", CoreCoord{0, 0},
                                 DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, cta});
    p.set_runtime_args(k, CoreCoord{0, 0}, {input->address(), output->address(), kPages, mode});
    return p;
  };
  Program copy = program(0);
  device->command_queue().enqueue_program(copy);
  std::vector<uint32_t> got(words.size());
  output->read(got.data(), kPages * kBytes);
  EXPECT_EQ(got, words);

  Program no_state = program(1);
  EXPECT_EQ(error_of<KernelError>(device->command_queue(), no_state),
            "stateful.cpp:" + std::to_string(marker_line(kCopy, "no_state")) +
                ": core (0,0) NCRISC: noc_async_write_one_packet_with_state: no write state on NoC 1: call "
                "noc_async_write_one_packet_set_state first (it sets the far end's coordinates and the size)");
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
