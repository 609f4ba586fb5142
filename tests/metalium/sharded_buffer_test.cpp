// Sharded buffers in today's spellings: CreateBuffer(ShardedBufferConfig)
// with a ShardSpecBuffer, TensorAccessorArgs of interleaved and sharded
// buffers chained in one kernel (their arg counts differ), pages placed as
// Metalium places them, and the errors of bad layouts and pages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "tt-metalium/distributed.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/tensor_accessor_args.hpp"

using namespace tt;
using namespace tt::tt_metal;

namespace {

// Copies page p of interleaved A into sharded B, then page p of B into
// interleaved C, and writes where B's page p is (NoC x, y, local address)
// into interleaved D. With a 4th runtime arg of 1 it reads one page past B.
constexpr const char* kChain = R"(#include <cstdint>
void kernel_main() {
  constexpr auto a_args = TensorAccessorArgs<0>();
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  constexpr auto c_args = TensorAccessorArgs<b_args.next_compile_time_args_offset()>();
  constexpr auto d_args = TensorAccessorArgs<c_args.next_compile_time_args_offset()>();
  static_assert(a_args.num_compile_time_args() == 2 && !a_args.is_sharded);
  static_assert(b_args.num_compile_time_args() == 12 && b_args.is_sharded && !b_args.is_dram);
  const uint32_t page = 64, pages = get_arg_val<uint32_t>(4);
  const auto a = TensorAccessor(a_args, get_arg_val<uint32_t>(0), page);
  const auto b = TensorAccessor(b_args, get_arg_val<uint32_t>(1), page);
  const auto c = TensorAccessor(c_args, get_arg_val<uint32_t>(2), page);
  const auto d = TensorAccessor(d_args, get_arg_val<uint32_t>(3), page);
  const uint32_t scratch = get_write_ptr(0);
  volatile uint32_t* words = reinterpret_cast<volatile uint32_t*>(scratch);
  for (uint32_t p = 0; p < pages; ++p) {
    noc_async_read_page(p, a, scratch);
    noc_async_read_barrier();
    noc_async_write_page(p, b, scratch);
    noc_async_write_barrier();
  }
  for (uint32_t p = 0; p < pages; ++p) {
    noc_async_read_page(p, b, scratch);
    noc_async_read_barrier();
    noc_async_write_page(p, c, scratch);
    noc_async_write_barrier();
    const uint64_t at = b.get_noc_addr(p);
    words[0] = uint32_t(at >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK;
    words[1] = uint32_t(at >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK;
    words[2] = uint32_t(at & TESSEL_NOC_LOCAL_MASK);
    noc_async_write_page(p, d, scratch);
    noc_async_write_barrier();
  }
  if (get_arg_val<uint32_t>(5)) noc_async_read_page(pages, b, scratch); // @past
}
)";

constexpr uint32_t kPage = 64, kRows = 4, kCols = 6, kPages = kRows * kCols;

struct Fixture {
  IDevice* device = CreateDevice(0);
  ~Fixture() { CloseDevice(device); }
  std::shared_ptr<Buffer> dram(uint32_t pages) const {
    return CreateBuffer(InterleavedBufferConfig{device, pages * kPage, kPage, BufferType::DRAM});
  }
  // The 4x6-page tensor as 2x3-page blocks on cores (0,0)-(1,1).
  std::shared_ptr<Buffer> blocks(ShardOrientation orientation) const {
    const ShardSpecBuffer spec(CoreRangeSet(CoreRange({0, 0}, {1, 1})), {2, 3 * 16}, orientation, {1, 16},
                               {kRows, kCols});
    return CreateBuffer(
        ShardedBufferConfig{device, kPages * kPage, kPage, BufferType::L1, TensorMemoryLayout::BLOCK_SHARDED, spec});
  }
};

std::string run(Fixture& f, const std::shared_ptr<Buffer>& b, bool past, std::vector<uint32_t>* c_out,
                std::vector<uint32_t>* d_out) {
  auto a = f.dram(kPages), c = f.dram(kPages), d = f.dram(kPages);
  std::vector<uint32_t> input(kPages * kPage / 4);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = uint32_t(i * 2654435761u);
  CommandQueue& cq = f.device->command_queue();
  EnqueueWriteBuffer(cq, a, input, true);
  Program program = CreateProgram();
  const CoreCoord core{2, 0};
  CreateCircularBuffer(
      program, core,
      CircularBufferConfig(kPage, {{tt::CBIndex::c_0, tt::DataFormat::UInt32}}).set_page_size(tt::CBIndex::c_0, kPage));
  std::vector<uint32_t> cta;
  for (const auto& buffer : {a, b, c, d})
    TensorAccessorArgs(*buffer).append_to(cta);
  const KernelHandle k = CreateKernelFromString(program, kChain, core,
                                                DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                                   .noc = NOC::RISCV_0_default,
                                                                   .compile_args = cta});
  SetRuntimeArgs(program, k, core, {a->address(), b->address(), c->address(), d->address(), kPages, past ? 1u : 0u});
  try {
    EnqueueProgram(cq, program, true);
  } catch (const tessel::Error& e) {
    return e.what();
  }
  EnqueueReadBuffer(cq, c, *c_out, true);
  EnqueueReadBuffer(cq, d, *d_out, true);
  std::vector<uint32_t> through_host;
  EnqueueReadBuffer(cq, b, through_host, true);
  EXPECT_EQ(through_host, input) << "the host's sharded read sees the pages the kernel wrote";
  EXPECT_EQ(*c_out, input);
  return {};
}

TEST(ShardedBufferTest, ChainedAccessorsMovePagesThroughABlockShardedBufferWhereMetaliumPlacesThem) {
  for (ShardOrientation orientation : {ShardOrientation::ROW_MAJOR, ShardOrientation::COL_MAJOR}) {
    Fixture f;
    auto b = f.blocks(orientation);
    EXPECT_EQ(b->buffer_layout(), TensorMemoryLayout::BLOCK_SHARDED);
    std::vector<uint32_t> c, d;
    ASSERT_EQ(run(f, b, false, &c, &d), "");
    // Page (r, col) is in shard (r / 2, col / 3), at position (r % 2) * 3 + col % 3.
    for (uint32_t p = 0; p < kPages; ++p) {
      const uint32_t r = p / kCols, col = p % kCols, shard = (r / 2) * 2 + col / 3;
      const CoreCoord logical = orientation == ShardOrientation::ROW_MAJOR ? CoreCoord{shard % 2, shard / 2}
                                                                           : CoreCoord{shard / 2, shard % 2};
      const CoreCoord noc = f.device->worker_core_from_logical_core(logical);
      const uint32_t* where = &d[p * kPage / 4];
      EXPECT_EQ(CoreCoord(where[0], where[1]), noc) << "page " << p;
      EXPECT_EQ(where[2], b->address() + ((r % 2) * 3 + col % 3) * b->aligned_page_size()) << "page " << p;
    }
  }
}

TEST(ShardedBufferTest, APagePastTheShardedTensorIsAnErrorAtTheKernelLine) {
  Fixture f;
  std::vector<uint32_t> c, d;
  const std::string error = run(f, f.blocks(ShardOrientation::ROW_MAJOR), true, &c, &d);
  EXPECT_NE(error.find("TensorAccessor: page 24 is past the sharded tensor's 24 pages: expected a page id below 24"),
            std::string::npos)
      << error;
  const std::string chain = kChain;
  const size_t marker = chain.find("// @past");
  const std::string line = std::to_string(1 + std::count(chain.begin(), chain.begin() + marker, '\n'));
  EXPECT_NE(error.find("CreateKernelFromString#0:" + line + ": core (2,0) BRISC"), std::string::npos) << error;
}

TEST(ShardedBufferTest, LayoutsThatDoNotDescribeTheBufferAreRejectedBeforeAllocating) {
  Fixture f;
  const auto create = [&](TensorMemoryLayout layout, std::array<uint32_t, 2> shard, CoreRange cores) {
    try {
      CreateBuffer(ShardedBufferConfig{
          f.device, kPages * kPage, kPage, BufferType::L1, layout,
          ShardSpecBuffer(CoreRangeSet(cores), shard, ShardOrientation::ROW_MAJOR, {1, 16}, {kRows, kCols})});
    } catch (const tessel::ValidationError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(create(TensorMemoryLayout::HEIGHT_SHARDED, {1, 6 * 16}, CoreRange({0, 0}, {2, 0})),
            "CreateBuffer: HEIGHT_SHARDED buffer with shard shape [1, 96], page shape [1, 16] and tensor of [4, 6] "
            "pages: 4 shards for the 3 cores of {[(x=0,y=0) - (x=2,y=0)]}; expected at most one shard per core");
  EXPECT_EQ(create(TensorMemoryLayout::BLOCK_SHARDED, {2, 40}, CoreRange({0, 0}, {1, 1})),
            "CreateBuffer: BLOCK_SHARDED buffer with shard shape [2, 40], page shape [1, 16] and tensor of [4, 6] "
            "pages: expected non-zero shapes with the shard shape a multiple of the page shape in each dimension");
  EXPECT_EQ(create(TensorMemoryLayout::INTERLEAVED, {2, 48}, CoreRange({0, 0}, {1, 1})),
            "CreateBuffer: a INTERLEAVED buffer was given shard parameters; expected them only for a sharded layout");
  // A height-sharded buffer that fits works, and leaves the device usable.
  EXPECT_EQ(create(TensorMemoryLayout::HEIGHT_SHARDED, {1, 6 * 16}, CoreRange({0, 0}, {3, 0})), "no error");
}

// Metalium places a HEIGHT_SHARDED buffer's pages in row-major order, the
// next shard-volume of them on each core, even when the shard is narrower than
// the tensor; that runs, and is a warning (an error under TESSEL_STRICT=1).
std::shared_ptr<Buffer> narrow_height_shards(Fixture& f) {
  const ShardSpecBuffer spec(CoreRangeSet(CoreRange({0, 0}, {3, 0})), {2, 3 * 16}, ShardOrientation::ROW_MAJOR, {1, 16},
                             {kRows, kCols});
  return CreateBuffer(
      ShardedBufferConfig{f.device, kPages * kPage, kPage, BufferType::L1, TensorMemoryLayout::HEIGHT_SHARDED, spec});
}

constexpr const char* kNarrowHeightWarning =
    "tessel: warning: CreateBuffer: HEIGHT_SHARDED buffer with shard shape [2, 48], page shape [1, 16] and tensor of "
    "[4, 6] pages: a HEIGHT_SHARDED shard is 3 pages wide, not the tensor's 6: each core takes the next 6 pages in "
    "row-major order, as Metalium places them, not a 2-D block";

TEST(ShardedBufferTest, AHeightShardNarrowerThanTheTensorTakesConsecutivePagesAsMetaliumPlacesThem) {
  Fixture f;
  testing::internal::CaptureStderr();
  auto b = narrow_height_shards(f);
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find(kNarrowHeightWarning), std::string::npos) << warned;
  std::vector<uint32_t> c, d;
  ASSERT_EQ(run(f, b, false, &c, &d), "");
  for (uint32_t p = 0; p < kPages; ++p) {
    const CoreCoord noc = f.device->worker_core_from_logical_core(CoreCoord{p / 6, 0});
    const uint32_t* where = &d[p * kPage / 4];
    EXPECT_EQ(CoreCoord(where[0], where[1]), noc) << "page " << p;
    EXPECT_EQ(where[2], b->address() + (p % 6) * b->aligned_page_size()) << "page " << p;
  }
}

// A WIDTH_SHARDED shard shorter than the tensor is placed as BLOCK_SHARDED
// places it (2-D blocks): a warning.
TEST(ShardedBufferTest, AShortWidthShardIsPlacedAsBlocksWithAWarning) {
  Fixture f;
  const ShardSpecBuffer spec(CoreRangeSet(CoreRange({0, 0}, {1, 1})), {2, 3 * 16}, ShardOrientation::ROW_MAJOR, {1, 16},
                             {kRows, kCols});
  testing::internal::CaptureStderr();
  auto b = CreateBuffer(
      ShardedBufferConfig{f.device, kPages * kPage, kPage, BufferType::L1, TensorMemoryLayout::WIDTH_SHARDED, spec});
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find("tessel: warning: CreateBuffer: WIDTH_SHARDED buffer with shard shape [2, 48], page shape "
                        "[1, 16] and tensor of [4, 6] pages: a WIDTH_SHARDED shard is 2 pages high, not the tensor's "
                        "4: the pages are placed as 2-D blocks, as BLOCK_SHARDED places them"),
            std::string::npos)
      << warned;
  std::vector<uint32_t> c, d;
  ASSERT_EQ(run(f, b, false, &c, &d), "");
  for (uint32_t p = 0; p < kPages; ++p) {
    const uint32_t r = p / kCols, col = p % kCols, shard = (r / 2) * 2 + col / 3;
    const CoreCoord noc = f.device->worker_core_from_logical_core(CoreCoord{shard % 2, shard / 2});
    const uint32_t* where = &d[p * kPage / 4];
    EXPECT_EQ(CoreCoord(where[0], where[1]), noc) << "page " << p;
    EXPECT_EQ(where[2], b->address() + ((r % 2) * 3 + col % 3) * b->aligned_page_size()) << "page " << p;
  }
}

TEST(ShardedBufferTest, ANarrowHeightShardIsAnErrorUnderStrict) {
  Fixture f;
  setenv("TESSEL_STRICT", "1", 1);
  std::string error = "no error";
  try {
    narrow_height_shards(f);
  } catch (const tessel::ValidationError& e) {
    error = e.what();
  }
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ("tessel: warning: " + error,
            std::string(kNarrowHeightWarning) + " (a warning, made an error by TESSEL_STRICT=1)");
}

// On each core: the CB is that core's shard. Marks it full, copies its
// pages to interleaved pages first.. of the output, and adds 1 to every word
// of the shard in place.
constexpr const char* kShardCb = R"(#include <cstdint>
void kernel_main() {
  constexpr auto out_args = TensorAccessorArgs<0>();
  const uint32_t page = 64, pages = 2, first = get_arg_val<uint32_t>(1);
  const auto out = TensorAccessor(out_args, get_arg_val<uint32_t>(0), page);
  cb_reserve_back(0, pages);
  cb_push_back(0, pages);
  cb_wait_front(0, pages);
  for (uint32_t p = 0; p < pages; ++p) {
    const uint32_t at = get_read_ptr(0) + p * page;
    noc_async_write_page(first + p, out, at);
    noc_async_write_barrier();
    volatile uint32_t* words = reinterpret_cast<volatile uint32_t*>(at);
    for (uint32_t w = 0; w < page / 4; ++w) words[w] = words[w] + 1;
  }
  cb_pop_front(0, pages);
}
)";

TEST(ShardedBufferTest, AGloballyAllocatedCircularBufferIsEachCoresShardInPlace) {
  Fixture f;
  const uint32_t pages = 4;
  const ShardSpecBuffer spec(CoreRangeSet(CoreRange({0, 0}, {1, 0})), {2, 16}, ShardOrientation::ROW_MAJOR, {1, 16},
                             {pages, 1});
  auto shards = CreateBuffer(
      ShardedBufferConfig{f.device, pages * kPage, kPage, BufferType::L1, TensorMemoryLayout::HEIGHT_SHARDED, spec});
  auto out = f.dram(pages);
  std::vector<uint32_t> input(pages * kPage / 4);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = uint32_t(1000 + i);
  CommandQueue& cq = f.device->command_queue();
  EnqueueWriteBuffer(cq, shards, input, true);
  Program program = CreateProgram();
  const CoreRange cores({0, 0}, {1, 0});
  CreateCircularBuffer(program, cores,
                       CircularBufferConfig(2 * kPage, {{tt::CBIndex::c_0, tt::DataFormat::UInt32}})
                           .set_page_size(tt::CBIndex::c_0, kPage)
                           .set_globally_allocated_address(*shards));
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*out).append_to(cta);
  const KernelHandle k = CreateKernelFromString(program, kShardCb, cores,
                                                DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                                   .noc = NOC::RISCV_0_default,
                                                                   .compile_args = cta});
  SetRuntimeArgs(program, k, CoreCoord{0, 0}, {out->address(), 0u});
  SetRuntimeArgs(program, k, CoreCoord{1, 0}, {out->address(), 2u});
  EnqueueProgram(cq, program, true);
  std::vector<uint32_t> copied, updated;
  EnqueueReadBuffer(cq, out, copied, true);
  EnqueueReadBuffer(cq, shards, updated, true);
  EXPECT_EQ(copied, input);
  for (size_t i = 0; i < input.size(); ++i)
    ASSERT_EQ(updated[i], input[i] + 1) << "word " << i;
  try {
    CircularBufferConfig(8 * kPage, {{tt::CBIndex::c_0, tt::DataFormat::UInt32}})
        .set_page_size(tt::CBIndex::c_0, kPage)
        .set_globally_allocated_address(*out);
    FAIL() << "a DRAM buffer was accepted";
  } catch (const tessel::ValidationError& e) {
    EXPECT_STREQ(e.what(), "CircularBufferConfig::set_globally_allocated_address: the buffer is in DRAM; expected an "
                           "allocated L1 buffer, whose range on each core the CB uses");
  }
  Program too_big = CreateProgram();
  try {
    CreateCircularBuffer(too_big, cores,
                         CircularBufferConfig(4 * kPage, {{tt::CBIndex::c_0, tt::DataFormat::UInt32}})
                             .set_page_size(tt::CBIndex::c_0, kPage)
                             .set_globally_allocated_address(*shards));
    FAIL() << "a CB larger than the buffer's range was accepted";
  } catch (const tessel::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("total size 256 bytes is more than the 128 bytes per core of the L1 buffer"),
              std::string::npos)
        << e.what();
  }
}

// A compute kernel over CBs that are sharded buffers' memory, as Metalium's
// sharded examples write it: the host filled the input shard, so the kernel
// reads and pops its tiles without cb_wait_front. Silicon reads the buffer's
// data; a warning. On an ordinary CB nothing may have arrived: an error.
constexpr const char* kUnwaitedShard = R"(#include "compute_kernel_api/common.h"
#include "compute_kernel_api/tile_move_copy.h"
void kernel_main() {
  const uint32_t tiles = get_arg_val<uint32_t>(0);
  unary_op_init_common(0, 16);
  copy_tile_init(0);
  for (uint32_t t = 0; t < tiles; ++t) {
    tile_regs_acquire();
    copy_tile(0, 0, 0);
    tile_regs_commit();
    cb_pop_front(0, 1);
    cb_reserve_back(16, 1);
    tile_regs_wait();
    pack_tile(0, 16);
    tile_regs_release();
    cb_push_back(16, 1);
  }
}
)";

TEST(ShardedBufferTest, ACbThatIsABuffersMemoryIsReadWithoutWaitingWithAWarning) {
  Fixture f;
  constexpr uint32_t kTile = 2048, kTiles = 2;
  const CoreCoord core{0, 0};
  const ShardSpecBuffer spec(CoreRangeSet(CoreRange(core, core)), {kTiles * 32, 32}, ShardOrientation::ROW_MAJOR,
                             {32, 32}, {kTiles, 1});
  const auto shard = [&] {
    return CreateBuffer(
        ShardedBufferConfig{f.device, kTiles * kTile, kTile, BufferType::L1, TensorMemoryLayout::HEIGHT_SHARDED, spec});
  };
  auto in = shard(), out = shard();
  std::vector<uint16_t> input(kTiles * kTile / 2);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = uint16_t(0x3F80 + (i % 97)); // bfloat16 values from 1.0 up
  CommandQueue& cq = f.device->command_queue();
  EnqueueWriteBuffer(cq, in, input, true);
  const auto program_over = [&](bool global_input) {
    Program program = CreateProgram();
    CircularBufferConfig in_cb(kTiles * kTile, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}});
    in_cb.set_page_size(tt::CBIndex::c_0, kTile);
    if (global_input) in_cb.set_globally_allocated_address(*in);
    CreateCircularBuffer(program, core, in_cb);
    CreateCircularBuffer(program, core,
                         CircularBufferConfig(kTiles * kTile, {{tt::CBIndex::c_16, tt::DataFormat::Float16_b}})
                             .set_page_size(tt::CBIndex::c_16, kTile)
                             .set_globally_allocated_address(*out));
    const KernelHandle k = CreateKernelFromString(program, kUnwaitedShard, core, ComputeConfig{});
    SetRuntimeArgs(program, k, core, {kTiles});
    return program;
  };
  Program program = program_over(true);
  testing::internal::CaptureStderr();
  EnqueueProgram(cq, program, true);
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find(": tile 0 of CB 0 was not waited for; the CB is a buffer's memory "
                        "(set_globally_allocated_address), so silicon reads the buffer's data there, but nothing said "
                        "it is ready: call cb_wait_front(0, n) first (and cb_push_back on the side that fills it)"),
            std::string::npos)
      << warned;
  EXPECT_NE(warned.find("cb_pop_front(cb=0, pages=1): pops more pages than the consumer has waited for (0); the CB is "
                        "a buffer's memory (set_globally_allocated_address), so silicon moves past the buffer's data, "
                        "but nothing said it was ready: call cb_wait_front first"),
            std::string::npos)
      << warned;
  std::vector<uint16_t> copied;
  EnqueueReadBuffer(cq, out, copied, true);
  EXPECT_EQ(copied, input) << "each tile was read where the host wrote it";

  Program ordinary = program_over(false);
  try {
    EnqueueProgram(cq, ordinary, true);
    FAIL() << "reading an ordinary CB without waiting was accepted";
  } catch (const tessel::KernelError& e) {
    EXPECT_NE(std::string(e.what()).find("no pages of CB 0 are waited for: call cb_wait_front(0, n) first"),
              std::string::npos)
        << e.what();
  }
}

TEST(ShardedBufferTest, AMeshBufferIsShardedOnEachChipByItsShardingArgs) {
  auto mesh = distributed::MeshDevice::create_unit_mesh(0);
  const ShardSpecBuffer spec(CoreRangeSet(CoreRange({0, 0}, {1, 1})), {2, 3 * 16}, ShardOrientation::ROW_MAJOR, {1, 16},
                             {kRows, kCols});
  const distributed::DeviceLocalBufferConfig local{.page_size = kPage,
                                                   .buffer_type = BufferType::L1,
                                                   .sharding_args =
                                                       BufferShardingArgs(spec, TensorMemoryLayout::BLOCK_SHARDED)};
  auto buffer =
      distributed::MeshBuffer::create(distributed::ReplicatedBufferConfig{.size = kPages * kPage}, local, mesh.get());
  Buffer& chip = *buffer->get_device_buffer(distributed::MeshCoordinate(0, 0));
  EXPECT_EQ(chip.buffer_layout(), TensorMemoryLayout::BLOCK_SHARDED);
  EXPECT_EQ(chip.shard_spec(), spec);
  std::vector<uint32_t> data(kPages * kPage / 4), back;
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint32_t(7 * i + 1);
  distributed::EnqueueWriteMeshBuffer(mesh->mesh_command_queue(), buffer, data, true);
  distributed::ReadShard(mesh->mesh_command_queue(), back, buffer, distributed::MeshCoordinate(0, 0), true);
  EXPECT_EQ(back, data);
  // Shard 1 (pages (0..1, 3..5)) is on core (1, 0): its first page is page 3.
  EXPECT_EQ(chip.native().page_location(3).bank, 1u);
  EXPECT_EQ(chip.native().page_location(3).address, chip.address());
  const distributed::DeviceLocalBufferConfig too_many{
      .page_size = kPage,
      .buffer_type = BufferType::L1,
      .sharding_args = BufferShardingArgs(ShardSpecBuffer(CoreRangeSet(CoreRange({0, 0}, {1, 0})), {2, 48},
                                                          ShardOrientation::ROW_MAJOR, {1, 16}, {kRows, kCols}),
                                          TensorMemoryLayout::BLOCK_SHARDED)};
  EXPECT_THROW(distributed::MeshBuffer::create(distributed::ReplicatedBufferConfig{.size = kPages * kPage}, too_many,
                                               mesh.get()),
               tessel::ValidationError);
  mesh->close();
}

} // namespace
