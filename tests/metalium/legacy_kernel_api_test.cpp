// The older kernel API that TT-Metalium's operation kernels (ttnn's
// device/kernels) use: the attribute macros and standard headers Metalium's
// kernel headers bring, get_local_cb_interface, the JIT-generated per-CB
// format tables and DST_SYNC_MODE, the helper headers (cb_api.h,
// transpose.h, add_int_sfpu.h, mod_div_lib.h, ...), a factory's own
// DST_SYNC_FULL, and constants reached through a kernel's own headers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "jit/kernel_build.hpp"
#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

DataMovementConfig reader() { return DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default}; }

CircularBufferConfig cb_config(uint8_t index, DataFormat format, uint32_t pages) {
  CircularBufferConfig c(pages * tile_size(format), {{index, format}});
  c.set_page_size(index, tile_size(format));
  return c;
}

// FORCE_INLINE, ALWI and std:: names with no #include of their own, as
// kernels written against Metalium's dataflow_api.h use them; KERNEL_BUILD.
constexpr const char* kAttributes = R"(#include "api/dataflow/dataflow_api.h"
#if !defined(KERNEL_BUILD) || defined(FW_BUILD)
#error "a kernel is built with KERNEL_BUILD"
#endif
FORCE_INLINE uint32_t twice(uint32_t v) { return 2 * v; }
ALWI uint32_t thrice(uint32_t v) { return 3 * v; }
void kernel_main() {
  const std::array<std::uint32_t, 3> values{twice(5), thrice(7), uint32_t(std::is_same_v<std::uint32_t, uint32_t>)};
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  for (uint32_t i = 0; i < values.size(); ++i)
    noc_inline_dw_write(get_noc_addr(x, y, at + 4 * i), values[i]);
  noc_inline_dw_write(get_noc_addr(x, y, at + 12), std::numeric_limits<uint16_t>::max());
}
)";

TEST(LegacyKernelApiTest, AttributeMacrosAndStandardHeadersComeWithTheKernelApi) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  KernelHandle k = p.add_kernel_from_source(kAttributes, "attributes.cpp", CoreCoord{0, 0}, reader());
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address()});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 10u);
  EXPECT_EQ(rec.at(1), 21u);
  EXPECT_EQ(rec.at(2), 1u);
  EXPECT_EQ(rec.at(3), 65535u);
}

// get_local_cb_interface(cb) in a data-movement kernel: byte units, the
// pointers get_read_ptr / get_write_ptr give, and a write of fifo_wr_ptr
// moves where the next page lands.
constexpr const char* kCbInterface = R"(#include "api/dataflow/dataflow_api.h"
#include "internal/circular_buffer_interface.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  const auto& cb = get_local_cb_interface(0);
  const uint32_t start = get_write_ptr(0);
  noc_inline_dw_write(get_noc_addr(x, y, at), cb.fifo_page_size);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), cb.fifo_num_pages);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), cb.fifo_size);
  noc_inline_dw_write(get_noc_addr(x, y, at + 12), uint32_t(cb.fifo_limit - start));
  noc_inline_dw_write(get_noc_addr(x, y, at + 16), uint32_t(cb.fifo_rd_ptr == get_read_ptr(0)));
  // Skip a page: the next reservation starts at page 1. Through a reference,
  // as Metalium's kernels hold it.
  LocalCBInterface& iface = get_local_cb_interface(0);
  iface.fifo_wr_ptr += iface.fifo_page_size;
  get_local_cb_interface(0).fifo_rd_ptr = get_local_cb_interface(0).fifo_wr_ptr;
  noc_inline_dw_write(get_noc_addr(x, y, at + 20), get_write_ptr(0) - start);
  noc_inline_dw_write(get_noc_addr(x, y, at + 24), get_read_ptr(0) - start);
  cb_reserve_back(0, 1);
  cb_push_back(0, 1);
  noc_inline_dw_write(get_noc_addr(x, y, at + 28), uint32_t(cb.tiles_received) * 100 + cb.tiles_acked);
  noc_inline_dw_write(get_noc_addr(x, y, at + 32), get_write_ptr(0) - start);
  if (get_arg_val<uint32_t>(3) == 1) get_local_cb_interface(0).fifo_page_size = 64; // @page_size
  if (get_arg_val<uint32_t>(3) == 2) get_local_cb_interface(0).fifo_wr_ptr = start + 5 * 2048; // @past_end
}
)";

TEST(LegacyKernelApiTest, LocalCbInterfaceIsTheCbsStateInBytesAndMovesItsPointers) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 4));
  KernelHandle k = p.add_kernel_from_source(kCbInterface, "cb_interface.cpp", CoreCoord{0, 0}, reader());
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 0});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 2048u);
  EXPECT_EQ(rec.at(1), 4u);
  EXPECT_EQ(rec.at(2), 4u * 2048);
  EXPECT_EQ(rec.at(3), 4u * 2048) << "fifo_limit is the CB's end";
  EXPECT_EQ(rec.at(4), 1u);
  EXPECT_EQ(rec.at(5), 2048u) << "writing fifo_wr_ptr moves the write pointer";
  EXPECT_EQ(rec.at(6), 2048u) << "writing fifo_rd_ptr moves the read pointer";
  EXPECT_EQ(rec.at(7), 100u) << "tiles_received counts the push";
  EXPECT_EQ(rec.at(8), 2u * 2048) << "the push went on from the moved pointer";

  const uint32_t page_line = marker_line(kCbInterface, "page_size");
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 1});
  std::string error = error_of<Error>(device->command_queue(), p);
  EXPECT_NE(error.find("cb_interface.cpp:" + std::to_string(page_line)), std::string::npos) << error;
  EXPECT_NE(error.find("get_local_cb_interface(0).fifo_page_size = 64: writing fifo_page_size is not supported by "
                       "tessel (a CB's size, limit, page size, page count and counters are the program's "
                       "configuration and the CB calls'; a kernel may move fifo_rd_ptr and fifo_wr_ptr)"),
            std::string::npos)
      << error;

  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 2});
  error = error_of<Error>(device->command_queue(), p);
  EXPECT_NE(error.find("get_local_cb_interface(0).fifo_wr_ptr = 0x"), std::string::npos) << error;
  EXPECT_NE(error.find("the address is outside CB 0's memory ["), std::string::npos) << error;
  EXPECT_NE(error.find("(expected a pointer inside the CB, as get_read_ptr / get_write_ptr give)"), std::string::npos)
      << error;
  expect_device_works(device);
}

// A compute kernel's view is in 16-byte words, as the TRISCs hold it; the
// generated format tables, DST_SYNC_MODE and the thread macros are there.
constexpr const char* kComputeTables = R"(#include "api/compute/common.h"
#include "api/compute/cb_api.h"
#include "llk_defs.h"
#if !defined(DST_SYNC_MODE) || !defined(DST_ACCUM_MODE) || !defined(UCK_CHLKC_MATH) || COMPILE_FOR_TRISC != 1
#error "the generated headers' macros are missing"
#endif
static_assert(unpack_src_format[0] == 5 && pack_dst_format[0] == 5 && unpack_dst_format[0] == 5);
static_assert(unpack_src_format[16] == 0 && pack_src_format[16] == 0, "CB 16 is Float32");
static_assert(unpack_src_format[1] == 255, "CB 1 is not configured");
static_assert(unpack_tile_size[0] == 2048 && pack_tile_size[16] == 4096);
static_assert(unpack_tile_r_dim[0] == 32 && pack_tile_c_dim[16] == 32 && unpack_tile_num_faces[0] == 4);
static_assert(get_dataformat(16) == DataFormat::Float32 && get_tile_hw(0) == 1024);
static_assert(DST_SYNC_MODE == DstSync::SyncFull && DST_ACCUM_MODE);
static_assert(DST_SYNC_FULL == 0, "the program's own define");
static_assert(ckernel::PoolType::MAX != ckernel::PoolType::SUM && ckernel::ReduceDim::REDUCE_COL != REDUCE_ROW);
static_assert(uint32_t(ckernel::EltwiseBinaryReuseDestType::DEST_TO_SRCA) == 1);
void kernel_main() {
  const uint32_t page_words = get_local_cb_interface(0).fifo_page_size;
  const uint32_t rd_words = get_local_cb_interface(16).fifo_rd_ptr;
  if (page_words != 2048 / 16 || (rd_words << 4) != get_tile_address(16, 0)) ASSERT(false);
}
)";

TEST(LegacyKernelApiTest, ComputeKernelsSeeTheGeneratedFormatTablesAndCbStateInWords) {
  auto device = open_device();
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 2));
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(16, DataFormat::Float32, 2));
  ComputeConfig c;
  c.fp32_dest_acc_en = true;
  c.dst_full_sync_en = true;
  c.defines = {{"DST_SYNC_FULL", "0"}};
  p.add_kernel_from_source(kComputeTables, "compute_tables.cpp", CoreCoord{0, 0}, c);
  device->command_queue().enqueue_program(p);
  expect_device_works(device);
}

// Metalium's helper headers: the names they declare, with their meaning.
constexpr const char* kHelperHeaders = R"(#include "api/compute/common.h"
#include "api/compute/transpose.h"
#include "api/compute/add_int_sfpu.h"
#include "api/compute/mul_int_sfpu.h"
#include "api/compute/experimental/fast_untilize.h"
#include "api/compile_time_args.h"
#include "api/debug/assert.h"
#include "api/debug/dprint_pages.h"
#include "internal/mod_div_lib.h"
#include "internal/risc_attribs.h"
#include "tensix_types.h"
void kernel_main() {
  static_assert(get_compile_time_arg_val(0) == 7);
  ASSERT(udivsi3_const_divisor<7>(100) == 14 && umodsi3_const_divisor<7>(100) == 2 && mulsi3(6, 7) == 42);
  if (false) {
    transpose_init(0);
    transpose_tile(0, 0, 0);
    transpose_block(0, 0, 0, 2);
    add_int_tile_init();
    add_int_tile<DataFormat::Int32>(0, 1, 0);
    mul_int_tile_init<DataFormat::UInt16>();
    mul_int_tile<DataFormat::UInt16>(0, 1, 0);
    fast_untilize_init<4>(0, 16);
    fast_untilize_block<4>(0, 16);
    fast_untilize_uninit<4>(16);
    print_cb_details(0);
  }
}
)";

TEST(LegacyKernelApiTest, MetaliumHelperHeadersCompile) {
  auto device = open_device();
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 2));
  ComputeConfig c;
  c.compile_args = {7};
  p.add_kernel_from_source(kHelperHeaders, "helper_headers.cpp", CoreCoord{0, 0}, c);
  device->command_queue().enqueue_program(p);

  Program topk;
  topk.add_kernel_from_source("#include \"api/compute/topk.h\"\nvoid kernel_main() {}\n", "topk.cpp", CoreCoord{0, 0},
                              ComputeConfig{});
  const std::string error = error_of<ProgramError>(device->command_queue(), topk);
  EXPECT_NE(error.find("api/compute/topk.h is not supported by tessel: the top-k LLK's result layout "
                       "(topk_local_sort, topk_merge, topk_rebuild) is not documented, so it is not modelled"),
            std::string::npos)
      << error;
  Program sort;
  sort.add_kernel_from_source("#include \"api/compute/compute_kernel_api.h\"\n"
                              "void kernel_main() { ckernel::topk_local_sort(0, 1, 5); }\n",
                              "sort.cpp", CoreCoord{0, 0}, ComputeConfig{});
  const std::string sort_error = error_of<ProgramError>(device->command_queue(), sort);
  EXPECT_NE(sort_error.find("topk_local_sort is not supported by tessel: the top-k LLK's result layout is not "
                            "documented, so it is not modelled"),
            std::string::npos)
      << sort_error;
  expect_device_works(device);
}

// What ttnn's data-movement helper headers use: the NoC address fields,
// invalidate_l1_cache, brace lists, TensorAccessor::DSpec and
// get_aligned_page_size, the kernel-side tt-metalium/buffer_types.hpp.
constexpr const char* kDataMovementHelpers = R"(#include "api/dataflow/dataflow_api.h"
#include "compile_time_args.h"
#include "tt-metalium/buffer_types.hpp"
static_assert(uint32_t(tt::tt_metal::TensorMemoryLayout::WIDTH_SHARDED) == 3);
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  const uint64_t a = get_noc_addr(x, y, at);
  noc_inline_dw_write(a, uint32_t(NOC_UNICAST_ADDR_X(a) == x) + 2 * uint32_t(NOC_UNICAST_ADDR_Y(a) == y) +
                             4 * uint32_t(NOC_LOCAL_ADDR_OFFSET(a) == at) + 8 * uint32_t(NOC_XY_ADDR(x, y, at) == a));
  invalidate_l1_cache();
  uint32_t sum = 0;
  for (uint32_t v : {1u, 2u, 3u})
    sum += v;
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), sum);
  // Sharded: rank 2, one bank, 4x6 pages in 2x3 shards; interleaved DRAM.
  constexpr auto sharded = TensorAccessorArgs<0>();
  constexpr auto interleaved = TensorAccessorArgs<sharded.next_compile_time_args_offset()>();
  using Sharded = decltype(TensorAccessor(sharded, 0u))::DSpec;
  static_assert(Sharded::is_sharded && !Sharded::is_interleaved && Sharded::rank() == 2);
  static_assert(Sharded::tensor_shape()[1] == 6 && Sharded::shard_shape()[0] == 2);
  static_assert(Sharded::tensor_volume() == 24 && Sharded::shard_volume() == 6);
  static_assert(decltype(TensorAccessor(interleaved, 0u))::DSpec::is_interleaved);
  static_assert(sharded.get_aligned_page_size() == 2048 && interleaved.get_aligned_page_size() == 128);
  const auto accessor = TensorAccessor(interleaved, 0u, 100);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), accessor.get_aligned_page_size());
  // The firmware's bank tables give what get_noc_addr_from_bank_id gives.
  const uint32_t bank = get_arg_val<uint32_t>(3);
  const uint64_t dram = (uint64_t(dram_bank_to_noc_xy[noc_index][bank]) << NOC_ADDR_COORD_SHIFT) | // @bank
                        uint32_t(0x100 + bank_to_dram_offset[bank]);
  const uint64_t l1 = NOC_XY_ADDR(DYNAMIC_NOC_X(noc_index, NOC_UNICAST_COORDINATE_X(l1_bank_to_noc_xy[0][1])),
                                  DYNAMIC_NOC_Y(noc_index, l1_bank_to_noc_xy[0][1] >> NOC_ADDR_NODE_ID_BITS),
                                  0x200 + bank_to_l1_offset[1]);
  noc_inline_dw_write(get_noc_addr(x, y, at + 12), uint32_t(dram == get_noc_addr_from_bank_id<true>(bank, 0x100)) +
                                                       2 * uint32_t(l1 == get_noc_addr_from_bank_id<false>(1, 0x200)));
  // Worker (1, 1)'s NoC coordinates from the virtual origin; the addrgen's tile_hw.
  const InterleavedAddrGenFast<true, 1024> gen = {0, 2048, DataFormat::Float16_b};
  noc_inline_dw_write(get_noc_addr(x, y, at + 16),
                      (1 + VIRTUAL_TENSIX_START_X) * 100 + (1 + VIRTUAL_TENSIX_START_Y) + gen.get_page_size());
}
)";

TEST(LegacyKernelApiTest, DataMovementHelpersOfTtnnKernels) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  DataMovementConfig c = reader();
  c.compile_args = {1, 2048, 2, 1, 4, 6, 2, 3, 0, /*interleaved DRAM*/ 2, 128};
  KernelHandle k = p.add_kernel_from_source(kDataMovementHelpers, "dm_helpers.cpp", CoreCoord{0, 0}, c);
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 1});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 15u) << "the NoC address fields are the address's";
  EXPECT_EQ(rec.at(1), 6u);
  EXPECT_EQ(rec.at(2), 128u) << "a 100-byte DRAM page is laid out at the 64-byte DRAM alignment";
  EXPECT_EQ(rec.at(3), 3u) << "the bank tables address the banks";
  const CoreCoord worker = device->worker_core_from_logical_core({1, 1});
  EXPECT_EQ(rec.at(4), worker.x * 100 + worker.y + 2048u);

  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 99});
  const std::string error = error_of<Error>(device->command_queue(), p);
  EXPECT_NE(error.find("dm_helpers.cpp:" + std::to_string(marker_line(kDataMovementHelpers, "bank"))),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("dram_bank_to_noc_xy[noc][99]: bank 99 does not exist: there are "), std::string::npos) << error;
  expect_device_works(device);
}

// TensorAccessor's page ranges: pages(start, end) and shard_pages(shard),
// which skips the positions of a shard hanging over the tensor's edge.
constexpr const char* kPageRanges = R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  constexpr auto even = TensorAccessorArgs<0>();                                // 4x6 pages, 2x3 shards
  constexpr auto ragged = TensorAccessorArgs<even.next_compile_time_args_offset()>(); // 4x5 pages, 2x3 shards
  const auto a = TensorAccessor(even, 0u);
  const auto b = TensorAccessor(ragged, 0u);
  uint64_t ids = 0;
  uint32_t same = 1, n = 0;
  for (const auto& page : a.pages(2, 5)) {
    ids = ids * 100 + page.page_id();
    same &= page.noc_addr() == a.get_noc_addr(page.page_id());
  }
  noc_inline_dw_write(get_noc_addr(x, y, at), uint32_t(ids));
  ids = 0;
  for (const auto& page : a.shard_pages(1)) {
    ids = ids * 100 + page.page_id();
    same &= page.noc_addr() == a.get_noc_addr(page.page_id());
  }
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), uint32_t(ids / 1000000));
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), uint32_t(ids % 1000000));
  ids = 0;
  for (auto it = b.shard_pages(1).begin(); it != b.shard_pages(1).end(); ++it, ++n)
    ids = ids * 100 + it->page_id();
  noc_inline_dw_write(get_noc_addr(x, y, at + 12), uint32_t(ids));
  auto it = b.shard_pages(3).begin();
  it += 2;
  noc_inline_dw_write(get_noc_addr(x, y, at + 16), n * 1000 + it->page_id());
  noc_inline_dw_write(get_noc_addr(x, y, at + 20), same);
  if (get_arg_val<uint32_t>(3)) (void)a.shard_pages(4); // @bad_shard
}
)";

TEST(LegacyKernelApiTest, TensorAccessorIteratesPagesAndShards) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  DataMovementConfig c = reader();
  c.compile_args = {1, 2048, 2, 1, 4, 6, 2, 3, 0, 1, 2048, 2, 1, 4, 5, 2, 3, 0};
  KernelHandle k = p.add_kernel_from_source(kPageRanges, "page_ranges.cpp", CoreCoord{0, 0}, c);
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 0});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 20304u) << "pages 2, 3, 4";
  EXPECT_EQ(rec.at(1), 30405u) << "shard 1 of 2x2 shards: row 0, columns 3..5";
  EXPECT_EQ(rec.at(2), 91011u) << "then row 1";
  EXPECT_EQ(rec.at(3), 3040809u) << "a shard over the edge of a 4x5 tensor holds columns 3 and 4 only";
  EXPECT_EQ(rec.at(4), 4000u + 18u) << "4 pages; shard 3 (rows 2..3, columns 3..4) from its third page";
  EXPECT_EQ(rec.at(5), 1u) << "each page's noc_addr is the accessor's address of it";

  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 1});
  const std::string error = error_of<Error>(device->command_queue(), p);
  EXPECT_NE(error.find("page_ranges.cpp:" + std::to_string(marker_line(kPageRanges, "bad_shard"))), std::string::npos)
      << error;
  EXPECT_NE(error.find("TensorAccessor::shard_pages: shard 4 is past the sharded tensor's 4 shards: expected a shard "
                       "id below 4"),
            std::string::npos)
      << error;
  expect_device_works(device);
}

// The read command buffer's state as free functions, transaction ids, the
// templated noc_async_read, and the alignment and float32 helpers.
constexpr const char* kReadState = R"(#include "api/dataflow/dataflow_api.h"
#include "api/alignment.h"
#include "api/numeric/float32.h"
#include "api/numeric/int32.h"
#include "noc/noc_parameters.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  const uint32_t dram_addr = get_arg_val<uint32_t>(3);
  cb_reserve_back(0, 2);
  const uint32_t base = get_write_ptr(0);
  if (get_arg_val<uint32_t>(4)) noc_async_read_one_packet_with_state(base, base + 2048); // @no_state
  // 64 bytes at offset 128 of DRAM bank 0, through the DRAM-sharded state.
  const uint32_t dram_base = noc_async_read_tile_dram_sharded_set_state<64, true>(dram_addr, 0, 0);
  noc_async_read_tile_dram_sharded_set_trid(1);
  noc_async_read_tile_dram_sharded_with_state_with_trid(dram_base, 128, base, 1);
  noc_async_read_barrier_with_trid(1);
  // Their first 32 bytes copied within L1 through the one-packet state, the
  // next 32 by the templated read.
  noc_async_read_set_trid(2);
  noc_async_read_one_packet_set_state(get_noc_addr(base), 32);
  noc_async_read_one_packet_with_state(base, base + 2048);
  noc_async_read<NOC_MAX_BURST_SIZE>(get_noc_addr(base + 32), base + 2048 + 32, 32);
  noc_async_read_barrier();
  const volatile uint32_t* copy = reinterpret_cast<const volatile uint32_t*>(uintptr_t(base + 2048));
  noc_inline_dw_write(get_noc_addr(x, y, at), copy[0] * 100 + copy[15]);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), align(100, 48) * 1000 + align_power_of_2(100, 64));
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), uint32_t(is_power_of_2(64)) + 2 * uint32_t(is_power_of_2(48)) +
                                                      4 * uint32_t(float32_greater(0xBF800000, 0xC0000000)) +
                                                      8 * uint32_t(float32_greater(0x00000000, 0x80000000)) +
                                                      16 * uint32_t(float32_greater(NAN_FLOAT32, 0xC0000000)) +
                                                      32 * uint32_t(float32_greater(0x3F800000, 0xBF800000)) +
                                                      64 * uint32_t(int32_greater(-1, -2)) +
                                                      128 * uint32_t(int32_greater(NEG_INF_INT32, POS_INF_INT32)));
}
)";

TEST(LegacyKernelApiTest, ReadStateFreeFunctionsAndTransactionIds) {
  auto device = open_device();
  Recorder rec(device);
  auto dram = Buffer::create(device, {2048, 2048, BufferType::DRAM});
  std::vector<uint32_t> words(512);
  for (uint32_t i = 0; i < words.size(); ++i)
    words[i] = i;
  dram->write(words.data(), 2048);
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 2));
  KernelHandle k = p.add_kernel_from_source(kReadState, "read_state.cpp", CoreCoord{0, 0}, reader());
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), dram->address(), 0});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 32u * 100 + 47u) << "words 32..47 of the DRAM page, through both states";
  EXPECT_EQ(rec.at(1), 144u * 1000 + 128u);
  EXPECT_EQ(rec.at(2), 1u + 4u + 32u + 64u) << "-1 > -2 and 1 > -1; +0 > -0 and NaN > -2 are false";

  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), dram->address(), 1});
  const std::string error = error_of<Error>(device->command_queue(), p);
  EXPECT_NE(error.find("read_state.cpp:" + std::to_string(marker_line(kReadState, "no_state"))), std::string::npos)
      << error;
  EXPECT_NE(error.find("noc_async_read_one_packet_with_state: NoC 0's read state was never set in this kernel run "
                       "(expected noc_async_read_one_packet_set_state or noc_async_read_tile_dram_sharded_set_state "
                       "on NoC 0 first)"),
            std::string::npos)
      << error;
  expect_device_works(device);
}

// The zeros region: MEM_ZEROS_BASE reads zero, Noc::async_write_zeros
// clears from it, and writing into it is an error.
constexpr const char* kZeros = R"(#include "api/dataflow/dataflow_api.h"
#include "api/dataflow/circular_buffer.h"
#include "api/dataflow/noc.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  cb_reserve_back(0, 1);
  const uint32_t page = get_write_ptr(0);
  volatile uint32_t* words = reinterpret_cast<volatile uint32_t*>(uintptr_t(page));
  for (uint32_t i = 0; i < 512; ++i)
    words[i] = 0xFFFFFFFFu;
  // Bytes 0..1023 by reads of the zeros region, as Metalium's helpers clear a tile.
  const uint64_t zeros = get_noc_addr(MEM_ZEROS_BASE);
  noc_async_read_one_packet_set_state(zeros, MEM_ZEROS_SIZE);
  for (uint32_t offset = 0; offset < 1024; offset += MEM_ZEROS_SIZE)
    noc_async_read_one_packet_with_state(zeros, page + offset);
  noc_async_read_barrier();
  // Bytes 1024..2023 by async_write_zeros.
  Noc noc;
  CircularBuffer cb(0);
  noc.async_write_zeros(cb, 1000, {.offset_bytes = 1024});
  noc.write_zeros_l1_barrier();
  uint32_t zero_words = 0;
  for (uint32_t i = 0; i < 512; ++i)
    zero_words += words[i] == 0;
  noc_inline_dw_write(get_noc_addr(x, y, at), zero_words * 10 + uint32_t(words[511] == 0xFFFFFFFFu));
  if (get_arg_val<uint32_t>(3)) noc_async_write(page, get_noc_addr(MEM_ZEROS_BASE + 16), 16); // @write_zeros
  noc_async_write_barrier();
}
)";

TEST(LegacyKernelApiTest, TheZerosRegionReadsZeroAndIsReadOnly) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 1));
  KernelHandle k = p.add_kernel_from_source(kZeros, "zeros.cpp", CoreCoord{0, 0}, reader());
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 0});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 506u * 10 + 1u) << "256 words by reads, 250 by async_write_zeros; the last 6 untouched";

  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), 1});
  const std::string error = error_of<Error>(device->command_queue(), p);
  EXPECT_NE(error.find("zeros.cpp:" + std::to_string(marker_line(kZeros, "write_zeros"))), std::string::npos) << error;
  EXPECT_NE(error.find("noc_async_write: the transfer's destination, 16 bytes at 0x2610..0x2620 of the L1 of core "
                       "(0,0), overlaps the zeros region (MEM_ZEROS_BASE, 0x2600..0x2800), which is read-only: kernels "
                       "read it to clear memory (write into a CB or buffer instead)"),
            std::string::npos)
      << error;
  expect_device_works(device);
}

// Accessors of several tensors: the args tuple, the accessor tuple and the
// type-erased wrappers indexed at run time (as Metalium's concat reader).
constexpr const char* kAccessorTuples = R"(#include "api/dataflow/dataflow_api.h"
#include "api/dataflow/noc.h"
#include "api/core_local_mem.h"
void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  constexpr auto args = make_tensor_accessor_args_tuple<2, 0>();
  auto accessors = make_tensor_accessor_tuple(args, 3);
  auto any = make_abstract_tensor_accessor_wrappers(accessors);
  cb_reserve_back(0, 1);
  const uint32_t l1 = get_write_ptr(0);
  Noc noc;
  for (uint32_t i = 0; i < 2; ++i) {
    noc.async_read(any[i], CoreLocalMem<uint32_t>(l1 + 64 * i), 64, {.page_id = 1, .offset_bytes = 0}, {});
    noc_async_read(any[i].get_noc_addr(0), l1 + 128 + 64 * i, 64);
  }
  noc.async_read_barrier();
  const volatile uint32_t* w = reinterpret_cast<const volatile uint32_t*>(uintptr_t(l1));
  noc_inline_dw_write(get_noc_addr(x, y, at), w[0] * 1000 + w[16]);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), w[33] * 1000 + w[49]);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), any[1].get_page_size());
  AbstractTensorAccessorWrapper empty;
  if (get_arg_val<uint32_t>(5)) (void)empty.get_noc_addr(0); // @empty
}
)";

TEST(LegacyKernelApiTest, AccessorTuplesAndWrappers) {
  auto device = open_device();
  Recorder rec(device);
  std::vector<std::shared_ptr<Buffer>> dram;
  std::vector<uint32_t> cta;
  for (uint32_t t = 0; t < 2; ++t) {
    dram.push_back(Buffer::create(device, {2 * 2048, 2048, BufferType::DRAM}));
    std::vector<uint32_t> words(1024);
    for (uint32_t i = 0; i < words.size(); ++i)
      words[i] = (t + 1) * 100 + i % 512 + (i / 512) * 7;
    dram.back()->write(words.data(), 2 * 2048);
    TensorAccessorArgs(*dram.back()).append_to(cta);
  }
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 1));
  DataMovementConfig c = reader();
  c.compile_args = cta;
  KernelHandle k = p.add_kernel_from_source(kAccessorTuples, "accessor_tuples.cpp", CoreCoord{0, 0}, c);
  p.set_runtime_args(k, CoreCoord{0, 0},
                     {rec.noc.x, rec.noc.y, rec.buffer->address(), dram[0]->address(), dram[1]->address(), 0});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 107u * 1000 + 207u) << "page 1's first word of tensor 0, then of tensor 1";
  EXPECT_EQ(rec.at(1), 101u * 1000 + 201u) << "page 0, word 1 of each, through get_noc_addr";
  EXPECT_EQ(rec.at(2), 2048u);

  p.set_runtime_args(k, CoreCoord{0, 0},
                     {rec.noc.x, rec.noc.y, rec.buffer->address(), dram[0]->address(), dram[1]->address(), 1});
  const std::string error = error_of<Error>(device->command_queue(), p);
  EXPECT_NE(error.find("accessor_tuples.cpp:" + std::to_string(marker_line(kAccessorTuples, "empty"))),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("AbstractTensorAccessorWrapper::get_noc_addr on a default-constructed wrapper (expected one "
                       "made from an accessor, as make_abstract_tensor_accessor_wrappers makes them)"),
            std::string::npos)
      << error;
  expect_device_works(device);
}

// A kernel that reaches get_tile_size and the format tables only through a
// header beside it gets the constants too; editing the header rebuilds it.
TEST(LegacyKernelApiTest, ConstantsReachedThroughAKernelsOwnHeadersAreGiven) {
  const std::string dir = std::filesystem::temp_directory_path().string() + "/tessel-own-headers-" +
                          std::to_string(::getpid()) + "-" + std::to_string(uint64_t(::time(nullptr)));
  std::filesystem::create_directories(dir + "/detail");
  std::ofstream(dir + "/sizes.hpp") << "#include \"detail/formats.hpp\"\n"
                                       "constexpr uint32_t page_bytes = get_tile_size(0);\n";
  std::ofstream(dir + "/detail/formats.hpp") << "constexpr DataFormat page_format = get_dataformat(0);\n";
  std::ofstream(dir + "/kernel.cpp")
      << "#include \"sizes.hpp\"\n"
         "void kernel_main() {\n"
         "  static_assert(page_format == DataFormat::Float16_b);\n"
         "  noc_inline_dw_write(get_noc_addr(get_arg_val<uint32_t>(0), get_arg_val<uint32_t>(1), "
         "get_arg_val<uint32_t>(2)), page_bytes);\n"
         "}\n";
  auto device = open_device();
  Recorder rec(device);
  Program p;
  p.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 2));
  KernelHandle k = p.add_kernel(dir + "/kernel.cpp", CoreCoord{0, 0}, reader());
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address()});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 2048u);

  // An edit of the nested header builds the kernel again.
  std::ofstream(dir + "/sizes.hpp") << "#include \"detail/formats.hpp\"\n"
                                       "constexpr uint32_t page_bytes = get_tile_size(0) + 1;\n";
  jit::default_kernel_cache().clear_memo();
  Program again;
  again.add_circular_buffer(CoreCoord{0, 0}, cb_config(0, DataFormat::Float16_b, 2));
  KernelHandle k2 = again.add_kernel(dir + "/kernel.cpp", CoreCoord{0, 0}, reader());
  again.set_runtime_args(k2, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address()});
  device->command_queue().enqueue_program(again);
  EXPECT_EQ(rec.at(0), 2049u);
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace tessel::test
