// TT-Metalium's device-API objects in data-movement kernels (Noc,
// CircularBuffer, CoreLocalMem, Semaphore, the endpoints and the
// TensorAccessor traits, in both the api/ and the experimental/ spellings):
// they move the same data as the free calls, and the simulator's checks fire
// through them at the kernel's own line.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// Reads `pages` tensor pages into CB 0, in the experimental:: spelling.
// Mode 0: correct. 1: push before the read barrier. 2: a read into the page
// after the two-page CB's end. 3: a read of a page past the tensor's end.
constexpr const char* kReader = R"(#include <cstdint>
#include "api/dataflow/dataflow_api.h"
#include "experimental/circular_buffer.h"

void kernel_main() {
  const uint32_t src = get_arg_val<uint32_t>(0), pages = get_arg_val<uint32_t>(1), mode = get_arg_val<uint32_t>(2);
  constexpr auto src_args = TensorAccessorArgs<0>();
  experimental::CircularBuffer cb(0);
  experimental::Noc noc(noc_index);
  const uint32_t page_bytes = cb.get_tile_size();
  const auto tensor = TensorAccessor(src_args, src, page_bytes);
  for (uint32_t p = 0; p < pages; ++p) {
    cb.reserve_back(1);
    if (mode == 2)
      noc.async_read(tensor, cb, page_bytes, {.page_id = p}, {.offset_bytes = page_bytes + page_bytes / 2}); // @read_past_cb
    else
      noc.async_read(tensor, cb, page_bytes, {.page_id = mode == 3 ? p + 64 : p}, {}); // @read
    if (mode != 1) noc.async_read_barrier();
    cb.push_back(1); // @push
  }
}
)";

// Writes the pages of CB 0 to the tensor in the api/ spelling, adding 1000
// to each page's first word through a CoreLocalMem; odd pages go through the
// set_async_write_state / async_write_with_state pair. Mode 1: a stateful
// write on a Noc object that has no state.
constexpr const char* kWriter = R"(#include "api/dataflow/noc.h"
#include "api/dataflow/circular_buffer.h"
#include "api/core_local_mem.h"
#include "api/tensor/noc_traits.h"

void kernel_main() {
  const uint32_t dst = get_arg_val<uint32_t>(0), pages = get_arg_val<uint32_t>(1), mode = get_arg_val<uint32_t>(2);
  constexpr auto dst_args = TensorAccessorArgs<0>();
  Noc noc;
  CircularBuffer cb(0);
  const uint32_t page_bytes = cb.get_tile_size();
  const auto tensor = TensorAccessor(dst_args, dst, page_bytes);
  for (uint32_t p = 0; p < pages; ++p) {
    cb.wait_front(1);
    CoreLocalMem<uint32_t> words(cb.get_read_ptr());
    words[0] += 1000;
    if (mode == 1) {
      const Noc fresh;
      fresh.async_write_with_state(cb, tensor, page_bytes, {}, {.page_id = p}); // @stateless
    } else if (p % 2) {
      noc.set_async_write_state(tensor, page_bytes, {.page_id = p});
      noc.async_write_with_state(words, tensor, page_bytes, {}, {.page_id = p});
    } else {
      noc.async_write(cb, tensor, page_bytes, {}, {.page_id = p});
    }
    noc.async_write_barrier();
    cb.pop_front(1);
  }
}
)";

// The writer in the experimental/ spelling, with the TensorAccessor traits
// from experimental/tensor.h, as Metalium's test kernels include them.
constexpr const char* kExperimentalWriter = R"(#include "api/dataflow/dataflow_api.h"
#include "experimental/noc.h"
#include "experimental/circular_buffer.h"
#include "experimental/tensor.h"

void kernel_main() {
  const uint32_t dst = get_arg_val<uint32_t>(0), pages = get_arg_val<uint32_t>(1);
  constexpr auto dst_args = TensorAccessorArgs<0>();
  experimental::CircularBuffer cb(0);
  experimental::Noc noc;
  const uint32_t page_bytes = cb.get_tile_size();
  const auto tensor = TensorAccessor(dst_args, dst, page_bytes);
  for (uint32_t p = 0; p < pages; ++p) {
    cb.wait_front(1);
    noc.async_write(cb, tensor, page_bytes, {}, {.page_id = p});
    noc.async_write_barrier();
    cb.pop_front(1);
  }
}
)";

// The writer with a NoC address made beforehand (PrecomposedUnicastEndpoint),
// as ttnn's data-movement helpers write it.
constexpr const char* kPrecomposedWriter = R"(#include "api/dataflow/dataflow_api.h"
#include "api/dataflow/noc.h"
#include "api/dataflow/endpoints.h"
#include "api/core_local_mem.h"

void kernel_main() {
  const uint32_t dst = get_arg_val<uint32_t>(0), pages = get_arg_val<uint32_t>(1);
  constexpr auto dst_args = TensorAccessorArgs<0>();
  Noc noc;
  const uint32_t page_bytes = get_tile_size(0);
  const auto tensor = TensorAccessor(dst_args, dst, page_bytes);
  for (uint32_t p = 0; p < pages; ++p) {
    cb_wait_front(0, 1);
    noc.async_write(CoreLocalMem<uint32_t>(get_read_ptr(0)), PrecomposedUnicastEndpoint{}, page_bytes, {},
                    {.noc_addr = tensor.get_noc_addr(p)});
    noc.async_write_barrier();
    cb_pop_front(0, 1);
  }
}
)";

// On a 2x2 grid: the sender (logical (0,0)) fills CB 0 through a
// CoreLocalMem, waits (down) until the three receivers have each raised its
// `ready` semaphore over the NoC, multicasts the page into their CB 0 and
// sets their `go` semaphore by multicast. Each receiver waits for `go` and
// writes the page it received to page `index` of the output tensor.
// Args: sender NoC x, y, the grid's NoC rectangle corners, output address, index.
constexpr const char* kMulticast = R"(#include "api/dataflow/noc.h"
#include "api/dataflow/circular_buffer.h"
#include "api/dataflow/noc_semaphore.h"
#include "api/dataflow/endpoints.h"
#include "api/core_local_mem.h"
#include "api/tensor/noc_traits.h"

void kernel_main() {
  const uint32_t sender_x = get_arg_val<uint32_t>(0), sender_y = get_arg_val<uint32_t>(1);
  const uint32_t x0 = get_arg_val<uint32_t>(2), y0 = get_arg_val<uint32_t>(3);
  const uint32_t x1 = get_arg_val<uint32_t>(4), y1 = get_arg_val<uint32_t>(5);
  const uint32_t out = get_arg_val<uint32_t>(6), index = get_arg_val<uint32_t>(7);
  constexpr uint32_t kReceivers = 3, kWords = 256;
  Noc noc;
  CircularBuffer cb(0);
  Semaphore<> ready(0), go(1);
  cb.reserve_back(1);
  if (my_x[0] == sender_x && my_y[0] == sender_y) {
    CoreLocalMem<uint32_t> page(cb.get_write_ptr());
    for (uint32_t i = 0; i < kWords; ++i) page[i] = 0xA000 + i;
    ready.down(kReceivers);
    noc.async_write_multicast(cb, cb, kWords * 4, kReceivers, {},
                              {.noc_x_start = x0, .noc_y_start = y0, .noc_x_end = x1, .noc_y_end = y1});
    go.set(1);
    go.set_multicast(noc, x0, y0, x1, y1, kReceivers);
    noc.async_write_barrier();
  } else {
    ready.up(noc, sender_x, sender_y, 1);
    go.wait(1);
    constexpr auto out_args = TensorAccessorArgs<0>();
    const auto tensor = TensorAccessor(out_args, out, kWords * 4);
    noc.async_write(use<CircularBuffer::AddrSelector::WRITE_PTR>(cb), tensor, kWords * 4, {}, {.page_id = index});
    noc.async_write_barrier();
  }
  cb.push_back(1);
}
)";

constexpr uint32_t kPageBytes = 2048; // a Float16_b tile: CB 0's get_tile_size()
constexpr uint32_t kPages = 6;

class DeviceObjectsTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = open_device();
    input = Buffer::create(device, {kPages * kPageBytes, kPageBytes, BufferType::DRAM});
    output = Buffer::create(device, {kPages * kPageBytes, kPageBytes, BufferType::DRAM});
    words.resize(kPages * kPageBytes / 4);
    for (uint32_t i = 0; i < words.size(); ++i)
      words[i] = i * 7 + 3;
    input->write(words.data(), kPages * kPageBytes);
  }

  // The reader on NCRISC and the writer on BRISC of core (0,0), CB 0 of two pages.
  Program copy_program(uint32_t reader_mode, uint32_t writer_mode, const char* writer_source = kWriter) {
    Program p;
    p.add_circular_buffer(CoreCoord{0, 0}, one_cb_config(2 * kPageBytes, kPageBytes));
    std::vector<uint32_t> in_cta, out_cta;
    TensorAccessorArgs(*input).append_to(in_cta);
    TensorAccessorArgs(*output).append_to(out_cta);
    KernelHandle reader =
        p.add_kernel_from_source(kReader, "reader.cpp", CoreCoord{0, 0},
                                 DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, in_cta});
    KernelHandle writer =
        p.add_kernel_from_source(writer_source, "writer.cpp", CoreCoord{0, 0},
                                 DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, out_cta});
    p.set_runtime_args(reader, CoreCoord{0, 0}, {input->address(), kPages, reader_mode});
    p.set_runtime_args(writer, CoreCoord{0, 0}, {output->address(), kPages, writer_mode});
    return p;
  }

  std::string copy_error(uint32_t reader_mode, uint32_t writer_mode) {
    Program p = copy_program(reader_mode, writer_mode);
    std::string message = error_of<KernelError>(device->command_queue(), p);
    expect_device_works(device);
    return message;
  }

  static std::string reader_site(const std::string& marker) {
    return "reader.cpp:" + std::to_string(marker_line(kReader, marker));
  }

  std::shared_ptr<Device> device;
  std::shared_ptr<Buffer> input, output;
  std::vector<uint32_t> words;
};

TEST_F(DeviceObjectsTest, AReaderAndWriterMoveDramPagesThroughACircularBuffer) {
  Program p = copy_program(0, 0);
  device->command_queue().enqueue_program(p);
  std::vector<uint32_t> got(words.size());
  output->read(got.data(), kPages * kPageBytes);
  std::vector<uint32_t> expected = words;
  for (uint32_t page = 0; page < kPages; ++page)
    expected[page * kPageBytes / 4] += 1000;
  EXPECT_EQ(got, expected);
}

TEST_F(DeviceObjectsTest, TheExperimentalTensorHeaderGivesTheTensorAccessorTraits) {
  Program p = copy_program(0, 0, kExperimentalWriter);
  device->command_queue().enqueue_program(p);
  std::vector<uint32_t> got(words.size());
  output->read(got.data(), kPages * kPageBytes);
  EXPECT_EQ(got, words);
}

TEST_F(DeviceObjectsTest, APrecomposedNocAddressIsAWriteDestination) {
  Program p = copy_program(0, 0, kPrecomposedWriter);
  device->command_queue().enqueue_program(p);
  std::vector<uint32_t> got(words.size());
  output->read(got.data(), kPages * kPageBytes);
  EXPECT_EQ(got, words);
}

TEST_F(DeviceObjectsTest, APushBeforeTheReadBarrierIsReportedAtTheKernelsLine) {
  EXPECT_EQ(copy_error(1, 0), reader_site("push") +
                                  ": core (0,0) NCRISC: cb_push_back(cb=0, pages=1): these pages are still being "
                                  "filled by a noc_async_read issued at " +
                                  reader_site("read") + "; call noc_async_read_barrier() before cb_push_back");
}

TEST_F(DeviceObjectsTest, AReadPastTheCircularBufferIsReportedAtTheKernelsLine) {
  const std::string message = copy_error(2, 0);
  EXPECT_EQ(message.rfind(reader_site("read_past_cb") + ": core (0,0) NCRISC: noc_async_read: the transfer's "
                                                        "destination, 2048 bytes at ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("of the L1 of core (0,0), is not inside one live allocation: it covers CB 0"),
            std::string::npos)
      << message;
}

TEST_F(DeviceObjectsTest, AReadPastTheTensorIsReportedAtTheKernelsLine) {
  const std::string message = copy_error(3, 0);
  EXPECT_EQ(message.rfind(reader_site("read") + ": core (0,0) NCRISC: noc_async_read: the transfer's source, 2048 "
                                                "bytes at ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("of DRAM bank 0, is in no live allocation"), std::string::npos) << message;
}

TEST_F(DeviceObjectsTest, AStatefulWriteNeedsItsStateOnTheSameNocObject) {
  EXPECT_EQ(copy_error(0, 1), "writer.cpp:" + std::to_string(marker_line(kWriter, "stateless")) +
                                  ": core (0,0) BRISC: Noc::async_write_with_state: this Noc object has no write "
                                  "state; call set_async_write_state on it first (tessel keeps the state in the Noc "
                                  "object, silicon in the NoC's command buffer)");
}

// Fills CB 0's page with 0xFFFFFFFF words, zeroes `zero_bytes` of it from
// byte `offset` with Noc::async_write_zeros, and writes the page to page 0
// of the tensor; then zeroes page 1 of the tensor from a zeroed CB entry.
constexpr const char* kZeros = R"(#include "api/dataflow/noc.h"
#include "api/dataflow/dataflow_buffer.h"
#include "api/core_local_mem.h"
#include "api/tensor/noc_traits.h"

void kernel_main() {
  const uint32_t dst = get_arg_val<uint32_t>(0), offset = get_arg_val<uint32_t>(1), zero_bytes = get_arg_val<uint32_t>(2);
  constexpr auto dst_args = TensorAccessorArgs<0>();
  Noc noc;
  DataflowBuffer cb(0);
  const uint32_t page_bytes = cb.get_entry_size();
  const auto tensor = TensorAccessor(dst_args, dst, page_bytes);
  cb.reserve_back(1);
  CoreLocalMem<uint32_t> words(cb.get_write_ptr());
  for (uint32_t i = 0; i < page_bytes / 4; ++i) words[i] = 0xFFFFFFFFu;
  noc.async_write_zeros(cb, zero_bytes, {.offset_bytes = offset}); // @zeros
  noc.write_zeros_l1_barrier();
  noc.async_write(cb, tensor, page_bytes, {}, {.page_id = 0});
  noc.async_write_barrier();
  noc.async_write_zeros(cb, page_bytes);
  noc.write_zeros_l1_barrier();
  noc.async_write_zeros(tensor, page_bytes, {.page_id = 1}, cb);
  noc.write_zeros_dram_barrier();
  cb.push_back(1);
}
)";

TEST(DeviceObjectsZerosTest, AsyncWriteZerosZeroesACircularBufferAndATensorPage) {
  auto device = open_device();
  constexpr uint32_t kBytes = 1024;
  auto out = Buffer::create(device, {2 * kBytes, kBytes, BufferType::DRAM});
  std::vector<uint32_t> ones(2 * kBytes / 4, 0x12345678u);
  out->write(ones.data(), 2 * kBytes);
  auto run = [&](uint32_t offset, uint32_t zero_bytes) {
    Program p;
    CircularBufferConfig cb(2 * kBytes, {{0, DataFormat::UInt32}});
    cb.set_page_size(0, kBytes);
    p.add_circular_buffer(CoreCoord{0, 0}, cb);
    std::vector<uint32_t> cta;
    TensorAccessorArgs(*out).append_to(cta);
    const KernelHandle k = p.add_kernel_from_source(
        kZeros, "zeros.cpp", CoreCoord{0, 0},
        DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, cta});
    p.set_runtime_args(k, CoreCoord{0, 0}, {out->address(), offset, zero_bytes});
    return p;
  };
  Program good = run(256, 512);
  device->command_queue().enqueue_program(good);
  std::vector<uint32_t> got(2 * kBytes / 4);
  out->read(got.data(), 2 * kBytes);
  for (uint32_t i = 0; i < got.size(); ++i) {
    const bool zeroed = (i >= 64 && i < 192) || i >= kBytes / 4;
    ASSERT_EQ(got[i], zeroed ? 0u : 0xFFFFFFFFu) << "word " << i;
  }
  Program past = run(1536, 1024); // from byte 1536 of the 2048-byte CB: 512 bytes past its end
  EXPECT_EQ(error_of<KernelError>(device->command_queue(), past),
            "zeros.cpp:" + std::to_string(marker_line(kZeros, "zeros")) +
                ": core (0,0) BRISC: Noc::async_write_zeros: 1024 bytes at 1536 bytes past CB 0's write pointer run "
                "512 bytes past the CB's end (silicon zeroes the memory after it); expected at most 512 bytes there");
  expect_device_works(device);
}

TEST(DeviceObjectsMulticastTest, ASemaphoreHandshakeAndAMulticastReachEveryReceiver) {
  for (const std::string& policy : policies()) {
    SCOPED_TRACE(policy);
    auto device = open_device("blackhole", 2, 2, policy);
    constexpr uint32_t kBytes = 1024;
    auto out = Buffer::create(device, {4 * kBytes, kBytes, BufferType::DRAM});
    const CoreRange all({0, 0}, {1, 1});
    Program p;
    CircularBufferConfig cb(kBytes, {{0, DataFormat::UInt32}});
    cb.set_page_size(0, kBytes);
    p.add_circular_buffer(all, cb);
    p.add_semaphore(all, 0);
    p.add_semaphore(all, 0);
    std::vector<uint32_t> cta;
    TensorAccessorArgs(*out).append_to(cta);
    KernelHandle k =
        p.add_kernel_from_source(kMulticast, "multicast.cpp", all,
                                 DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, cta});
    const CoreCoord sender = device->worker_core_from_logical_core({0, 0});
    const CoreCoord first = device->worker_core_from_logical_core({0, 0});
    const CoreCoord last = device->worker_core_from_logical_core({1, 1});
    uint32_t index = 0;
    for (CoreCoord core : all)
      p.set_runtime_args(k, core, {sender.x, sender.y, first.x, first.y, last.x, last.y, out->address(), index++});
    device->command_queue().enqueue_program(p);
    std::vector<uint32_t> got(4 * kBytes / 4);
    out->read(got.data(), 4 * kBytes);
    for (uint32_t page = 1; page < 4; ++page)
      for (uint32_t i = 0; i < kBytes / 4; ++i)
        ASSERT_EQ(got[page * kBytes / 4 + i], 0xA000 + i) << "page " << page << " word " << i;
  }
}

} // namespace
} // namespace tessel::test
