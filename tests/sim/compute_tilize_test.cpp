// Tilize, untilize and pack untilize (src/sim/compute_tilize.cpp) against the
// host's tilize/untilize (tessel/tile.hpp): every format a row-major CB holds,
// several block widths, block-float tilized sides, the tile indices and
// column blocks, and every misuse message with its call site. One
// script-driven compute kernel runs every case between the compute tests'
// reader (CB 0) and writer (CB 16).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kName = "tilize_ops.cpp";

const std::string& tilize_source() {
  static const std::string source = R"KERNEL(// tilize_ops.cpp: script interpreter for the layout conversion tests.
#include "api/compute/compute_kernel_hw_startup.h"
#include "api/compute/tilize.h"
#include "api/compute/untilize.h"
#include "api/compute/pack_untilize.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/reg_api.h"
#include "api/compute/pack.h"

template <uint32_t B>
void untilize_b(uint32_t icb, uint32_t full, uint32_t ocb) {
  untilize_block<B>(icb, full, ocb); // @untilize_block
}
// op: 0 init, 1 block, 2 dest init, 3 dest.
template <uint32_t B, uint32_t F>
void pack_untilize_bf(uint32_t op, uint32_t icb, uint32_t ocb, uint32_t rt, uint32_t index) {
  if (op == 0) pack_untilize_init<B, F>(icb, ocb); // @pack_untilize_init
  if (op == 1) pack_untilize_block<B, F>(icb, rt, ocb, index); // @pack_untilize_block
  if (op == 2) pack_untilize_dest_init<B, F>(ocb); // @pack_untilize_dest_init
  if (op == 3) pack_untilize_dest<B, F>(ocb, rt, index); // @pack_untilize_dest
}
void pack_untilize_any(uint32_t bf, uint32_t op, uint32_t icb, uint32_t ocb, uint32_t rt, uint32_t index) {
  switch (bf) {
  case 0x101: pack_untilize_bf<1, 1>(op, icb, ocb, rt, index); break;
  case 0x202: pack_untilize_bf<2, 2>(op, icb, ocb, rt, index); break;
  case 0x303: pack_untilize_bf<3, 3>(op, icb, ocb, rt, index); break;
  case 0x404: pack_untilize_bf<4, 4>(op, icb, ocb, rt, index); break;
  case 0x401: pack_untilize_bf<1, 4>(op, icb, ocb, rt, index); break;
  case 0x402: pack_untilize_bf<2, 4>(op, icb, ocb, rt, index); break;
  case 0x804: pack_untilize_bf<4, 8>(op, icb, ocb, rt, index); break;
  case 0x808: pack_untilize_bf<8, 8>(op, icb, ocb, rt, index); break;
  default: ASSERT(false);
  }
}

void kernel_main() {
  const uint32_t steps = get_arg_val<uint32_t>(0);
  for (uint32_t s = 0; s < steps; ++s) {
    uint32_t v[6];
    for (uint32_t w = 0; w < 6; ++w) v[w] = get_arg_val<uint32_t>(1 + 6 * s + w);
    const uint32_t a = v[1], b = v[2], c = v[3], d = v[4], e = v[5];
    switch (v[0]) {
    case 0: compute_kernel_hw_startup(a, b, c); break; // @hw_startup
    case 1: tilize_init(a, b, c); break; // @tilize_init
    case 2: tilize_block(a, b, c, d, e); break; // @tilize_block
    case 3: tilize_uninit(a, c); break; // @tilize_uninit
    case 4: fast_tilize_init(a, b, c); break; // @fast_init
    case 5: fast_tilize_block(a, b, c, d, e); break; // @fast_tilize_block
    case 6: untilize_init(a); break; // @untilize_init
    case 7:
      if (b == 1) untilize_b<1>(a, c, d);
      if (b == 2) untilize_b<2>(a, c, d);
      if (b == 3) untilize_b<3>(a, c, d);
      if (b == 8) untilize_b<8>(a, c, d);
      break;
    case 8: untilize_uninit(a); break;
    case 9: pack_untilize_any(b, 0, a, c, 0, 0); break;
    case 10: pack_untilize_any(b, 1, a, c, d, e); break;
    case 11: pack_untilize_any(b, 2, 0, c, 0, 0); break;
    case 12: pack_untilize_any(b, 3, 0, c, d, e); break;
    case 13: pack_untilize_uninit(a); break;
    case 14: copy_tile_init(a); break; // @copy_tile_init
    case 15: copy_tile(a, b, c); break;
    case 16: tilize_init_short_with_dt(a, b, c, d); break;
    case 17: pack_untilize_dest<1, 1>(c, 1, 0, a, b); break; // @pack_untilize_dest_faces
    case 20: tile_regs_acquire(); break; // @acquire
    case 21: tile_regs_commit(); break;
    case 22: tile_regs_wait(); break;
    case 23: tile_regs_release(); break;
    case 40: cb_wait_front(a, b); break;
    case 41: cb_pop_front(a, b); break;
    case 42: cb_reserve_back(a, b); break;
    case 43: cb_push_back(a, b); break;
    case 44: pack_tile(a, b); break; // @pack_tile
    default: ASSERT(false);
    }
  }
}
)KERNEL";
  return source;
}

// "tilize_ops.cpp:N: core (0,0) COMPUTE: " for the call marked `marker`.
std::string at(const std::string& marker) {
  std::istringstream in(tilize_source());
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.size() >= tag.size() && line.compare(line.size() - tag.size(), tag.size(), tag) == 0)
      return std::string(kName) + ":" + std::to_string(n) + ": core (0,0) COMPUTE: ";
  ADD_FAILURE() << "no marker " << tag;
  return {};
}

enum : uint32_t {
  kHwStartup = 0,
  kTilizeInit = 1,   // (icb, block, ocb)
  kTilize = 2,       // (icb, block, ocb, input_tile_index, output_tile_index)
  kTilizeUninit = 3, // (icb, -, ocb)
  kFastInit = 4,     // (icb, full_dim, ocb)
  kFastTilize = 5,   // as kTilize
  kUntilizeInit = 6, // (icb)
  kUntilize = 7,     // (icb, block_ct_dim, full_ct_dim, ocb)
  kUntilizeUninit = 8,
  kPackUntilizeInit = 9,      // (icb, (F << 8) | B, ocb)
  kPackUntilize = 10,         // (icb, (F << 8) | B, ocb, block_rt_dim, block_c_index)
  kPackUntilizeDestInit = 11, // (-, (F << 8) | B, ocb)
  kPackUntilizeDest = 12,     // (-, (F << 8) | B, ocb, block_rt_dim, block_c_index)
  kPackUntilizeUninit = 13,   // (ocb)
  kCopyInit = 14,
  kCopy = 15,                  // (cb, itile, idst)
  kTilizeInitDt = 16,          // (old icb, new icb, block, ocb)
  kPackUntilizeDestFaces = 17, // pack_untilize_dest<1, 1>(ocb = c, 1, 0, face_r_dim = a, num_faces = b)
  kAcquire = 20,
  kCommit = 21,
  kWaitDst = 22,
  kRelease = 23,
  kCbWait = 40,
  kCbPop = 41,
  kCbReserve = 42,
  kCbPush = 43,
  kPack = 44,
};

constexpr uint32_t kIn = 0, kOut = 16;

struct Steps {
  std::vector<uint32_t> words;
  Steps& op(uint32_t code, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, uint32_t d = 0, uint32_t e = 0) {
    words.insert(words.end(), {code, a, b, c, d, e});
    return *this;
  }
  std::vector<uint32_t> args() const {
    std::vector<uint32_t> v = {uint32_t(words.size() / 6)};
    v.insert(v.end(), words.begin(), words.end());
    return v;
  }
};

struct Case {
  DataFormat in_format = DataFormat::Float16_b, out_format = DataFormat::Float16_b;
  bool fp32 = false;
  bool unpack_to_dest = false; // UnpackToDestFp32 for CB 0
  std::vector<uint8_t> in;     // CB 0's pages, as the reader pushes them
  uint32_t out_pages = 1;      // pages of CB 16
  uint32_t out_drained = 1;    // pages the writer drains
  Steps steps;
};

class TilizeTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  // The compute RISC's busy cycles of a run on a device that estimates time.
  uint64_t busy_cycles(const Case& c) {
    DeviceConfig config;
    config.arch = "blackhole";
    config.grid_x = config.grid_y = 1;
    config.timing = true;
    device_ = Device::open(config);
    run(c);
    for (const auto& risc : device_->last_run_timing().riscs)
      if (risc.risc == "COMPUTE") return risc.busy_cycles;
    ADD_FAILURE() << "no COMPUTE row";
    return 0;
  }

  // Runs the case; returns the drained pages of CB 16.
  std::vector<uint8_t> run(const Case& c) {
    Program program = build(c);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(out_->size());
    out_->read(bytes.data(), bytes.size());
    bytes.resize(size_t(c.out_drained) * tile_size(c.out_format));
    return bytes;
  }

  std::string fails(const Case& c) {
    Program program = build(c);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  Program build(const Case& c) {
    const uint32_t in_tile = tile_size(c.in_format), out_tile = tile_size(c.out_format);
    const uint32_t in_pages = uint32_t(c.in.size() / in_tile);
    EXPECT_EQ(c.in.size() % in_tile, 0u);
    in_ = Buffer::create(device_, {uint64_t(std::max(in_pages, 1u)) * in_tile, in_tile, BufferType::DRAM});
    if (!c.in.empty()) in_->write(c.in.data(), c.in.size());
    out_ = Buffer::create(device_, {uint64_t(c.out_pages) * out_tile, out_tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    program.add_circular_buffer(core,
                                CircularBufferConfig(std::max(in_pages, 1u) * in_tile, {{uint8_t(kIn), c.in_format}})
                                    .set_page_size(kIn, in_tile));
    program.add_circular_buffer(
        core,
        CircularBufferConfig(c.out_pages * out_tile, {{uint8_t(kOut), c.out_format}}).set_page_size(kOut, out_tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.fp32_dest_acc_en = c.fp32;
    if (c.unpack_to_dest) config.unpack_to_dest_mode = {UnpackToDestMode::UnpackToDestFp32};
    KernelHandle compute = program.add_kernel_from_source(tilize_source(), kName, core, config);
    program.set_runtime_args(reader, core, {kIn, in_->address(), in_pages, 1, 0, 0});
    program.set_runtime_args(writer, core, {kOut, out_->address(), c.out_drained});
    program.set_runtime_args(compute, core, c.steps.args());
    return program;
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in_, out_;
};

// n values every format holds exactly (bfloat16-exact, small non-negative
// integers), all different within a tile row's reach.
std::vector<float> values(size_t n, DataFormat f) {
  std::vector<float> v(n);
  const bool is_unsigned = f == DataFormat::UInt32 || f == DataFormat::UInt16 || f == DataFormat::UInt8;
  for (size_t i = 0; i < n; ++i) {
    const int x = int((i * 37 + i / 97) % 251);
    v[i] = is_unsigned ? float(x) : f == DataFormat::Int32 ? float(x - 125) : float(x - 125) * 0.25f;
  }
  return v;
}

// Row-major values in a format of whole values: pack_tiles converts value by value.
std::vector<uint8_t> bytes_of(const std::vector<float>& v, DataFormat f) { return pack_tiles(v, f); }

const DataFormat kRowMajorFormats[] = {DataFormat::Float16_b, DataFormat::Float32, DataFormat::Int32,
                                       DataFormat::UInt32,    DataFormat::UInt16,  DataFormat::UInt8};

// A block of `w` tiles' width: 32 rows of w x 32 values in w pages, tilized
// into w tiles, exactly as the host tilizes them.
TEST_F(TilizeTest, TilizeMatchesHostTilizeInEveryFormat) {
  for (DataFormat f : kRowMajorFormats)
    for (uint32_t w : {1u, 2u, 3u, 4u}) {
      const std::vector<float> rows = values(size_t(w) * kTileHW, f);
      Case c;
      c.in_format = c.out_format = f;
      c.fp32 = f != DataFormat::Float16_b;
      c.unpack_to_dest = f == DataFormat::Float32;
      c.in = bytes_of(rows, f);
      c.out_pages = c.out_drained = w;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, w, kOut).op(kCbWait, kIn, w);
      c.steps.op(kCbReserve, kOut, w).op(kTilize, kIn, w, kOut).op(kCbPush, kOut, w).op(kCbPop, kIn, w);
      EXPECT_EQ(run(c), pack_tiles(tilize(rows, 32, w * 32), f)) << to_string(f) << " block " << w;
    }
}

// Tilize into another format: Float16_b rows into Bfp8_b and Float32 tiles,
// and the fast variant, which computes the same.
TEST_F(TilizeTest, TilizeIntoOtherFormatsAndFast) {
  const uint32_t w = 2;
  const std::vector<float> rows = values(size_t(w) * kTileHW, DataFormat::Float16_b);
  for (DataFormat out : {DataFormat::Bfp8_b, DataFormat::Bfp4_b, DataFormat::Float32})
    for (bool fast : {false, true}) {
      Case c;
      c.out_format = out;
      c.in = bytes_of(rows, DataFormat::Float16_b);
      c.out_pages = c.out_drained = w;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(fast ? kFastInit : kTilizeInit, kIn, w, kOut).op(kCbWait, kIn, w);
      c.steps.op(kCbReserve, kOut, w).op(fast ? kFastTilize : kTilize, kIn, w, kOut).op(kCbPush, kOut, w);
      EXPECT_EQ(run(c), pack_tiles(tilize(rows, 32, w * 32), out)) << to_string(out) << " fast " << fast;
    }
}

// input_tile_index: (i / block) blocks down, (i % block) tiles across;
// output_tile_index: the page of the reservation the first tile goes to.
TEST_F(TilizeTest, TileIndicesPickTheBlockAndThePage) {
  const uint32_t w = 2;
  const std::vector<float> rows = values(size_t(2 * w) * kTileHW, DataFormat::Float16_b); // 64 rows
  Case c;
  c.in = bytes_of(rows, DataFormat::Float16_b);
  c.out_pages = c.out_drained = 2 * w;
  c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, w, kOut).op(kCbWait, kIn, 2 * w);
  c.steps.op(kCbReserve, kOut, 2 * w).op(kTilize, kIn, w, kOut, w, 0).op(kTilize, kIn, w, kOut, 0, w);
  c.steps.op(kCbPush, kOut, 2 * w);
  const std::vector<float> tiles = tilize(rows, 64, w * 32); // tile rows: tiles 0,1 then 2,3
  std::vector<float> want(tiles.begin() + 2 * kTileHW, tiles.end());
  want.insert(want.end(), tiles.begin(), tiles.begin() + 2 * kTileHW);
  EXPECT_EQ(run(c), pack_tiles(want, DataFormat::Float16_b));
}

// Float32 through a 16-bit DST rounds to bfloat16 (as copy_tile does);
// unpacked to a 32-bit DST it keeps every bit.
TEST_F(TilizeTest, Float32RoundsInA16BitDst) {
  std::vector<float> rows(kTileHW, 1.0f + 0x1p-10f);
  rows[5] = 1.0f + 3 * 0x1p-9f; // nearer 1 + 2^-7 than 1 + 2^-8
  for (bool fp32 : {false, true}) {
    Case c;
    c.in_format = c.out_format = DataFormat::Float32;
    c.fp32 = c.unpack_to_dest = fp32;
    c.in = bytes_of(rows, DataFormat::Float32);
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, 1, kOut).op(kCbWait, kIn, 1);
    c.steps.op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut).op(kCbPush, kOut, 1);
    const std::vector<float> out = unpack_tiles(run(c), DataFormat::Float32);
    EXPECT_EQ(out[0], fp32 ? 1.0f + 0x1p-10f : 1.0f);
    EXPECT_EQ(out[5], fp32 ? 1.0f + 3 * 0x1p-9f : 1.0f + 0x1p-7f); // row 0, column 5: tile position 5
  }
}

// tilize_init_short_with_dt points SrcA at the new input CB's format; plain
// tilize_init does not.
TEST_F(TilizeTest, TilizeInitWithDtReconfiguresSrcA) {
  const std::vector<float> rows = values(kTileHW, DataFormat::Float16_b);
  Case c;
  c.in_format = DataFormat::Float32;
  c.in = bytes_of(rows, DataFormat::Float32);
  Steps head = Steps().op(kHwStartup, kOut, kOut, kOut).op(kCbWait, kIn, 1).op(kCbReserve, kOut, 1);
  c.out_drained = 0;
  c.steps = head;
  c.steps.op(kTilizeInit, kIn, 1, kOut).op(kTilize, kIn, 1, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=1, ocb=16, input_tile_index=0, output_tile_index=0): CB 0 holds "
                          "Float32, but the unpacker's SrcA is configured for Float16_b (by compute_kernel_hw_startup "
                          "at " +
                          at("hw_startup").substr(0, at("hw_startup").find(": core")) +
                          "): call reconfig_data_format_srca(0) (or the init's _with_dt form) first");
  c.out_drained = 1;
  c.steps = head;
  c.steps.op(kTilizeInitDt, kOut, kIn, 1, kOut).op(kTilize, kIn, 1, kOut).op(kCbPush, kOut, 1);
  EXPECT_EQ(run(c), pack_tiles(tilize(rows, 32, 32), DataFormat::Float16_b));
}

// Int32 values beyond float's 24 bits move bit for bit with a 32-bit DST.
TEST_F(TilizeTest, Int32MovesExactlyWithFp32Dest) {
  std::vector<int32_t> rows(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i)
    rows[i] = int32_t(0x7654321u * (i + 1)) | 1;
  Case c;
  c.in_format = c.out_format = DataFormat::Int32;
  c.fp32 = true;
  c.in.resize(rows.size() * 4);
  std::memcpy(c.in.data(), rows.data(), c.in.size());
  c.steps.op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, 1, kOut).op(kCbWait, kIn, 1);
  c.steps.op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut).op(kCbPush, kOut, 1);
  const std::vector<int32_t> want = tilize(std::span<const int32_t>(rows), 32, 32);
  std::vector<uint8_t> bytes(want.size() * 4);
  std::memcpy(bytes.data(), want.data(), bytes.size());
  EXPECT_EQ(run(c), bytes);
}

// Tiles of width `full` back to 32 rows: untilize_block<b> for b dividing full.
TEST_F(TilizeTest, UntilizeMatchesHostUntilizeInEveryFormat) {
  for (DataFormat f : kRowMajorFormats)
    for (auto [b, full] : {std::pair{1u, 1u}, {1u, 3u}, {2u, 2u}, {1u, 4u}}) {
      const std::vector<float> rows = values(size_t(full) * kTileHW, f);
      Case c;
      c.in_format = c.out_format = f;
      c.fp32 = f != DataFormat::Float16_b;
      c.unpack_to_dest = f == DataFormat::Float32;
      c.in = pack_tiles(tilize(rows, 32, full * 32), f);
      c.out_pages = c.out_drained = full;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(kUntilizeInit, kIn).op(kCbWait, kIn, full);
      c.steps.op(kCbReserve, kOut, full).op(kUntilize, kIn, b, full, kOut).op(kCbPush, kOut, full);
      c.steps.op(kUntilizeUninit, kIn);
      EXPECT_EQ(run(c), bytes_of(rows, f)) << to_string(f) << " b " << b << " full " << full;
    }
}

// Block-float tiles untilize to the values they hold.
TEST_F(TilizeTest, UntilizeBlockFloatTiles) {
  const uint32_t full = 2;
  for (DataFormat in : {DataFormat::Bfp8_b, DataFormat::Bfp4_b}) {
    const std::vector<float> rows = values(size_t(full) * kTileHW, DataFormat::Float16_b);
    const std::vector<uint8_t> tiles = pack_tiles(tilize(rows, 32, full * 32), in);
    const std::vector<float> held = untilize(unpack_tiles(tiles, in), 32, full * 32);
    Case c;
    c.in_format = in;
    c.in = tiles;
    c.out_pages = c.out_drained = full;
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kUntilizeInit, kIn).op(kCbWait, kIn, full);
    c.steps.op(kCbReserve, kOut, full).op(kUntilize, kIn, 1, full, kOut).op(kCbPush, kOut, full);
    EXPECT_EQ(run(c), bytes_of(held, DataFormat::Float16_b)) << to_string(in);
  }
}

// pack_untilize_block<b, f>: each column block of b tiles lands at its
// columns of rows f tiles wide; the blocks together make the whole rows.
TEST_F(TilizeTest, PackUntilizeBlocksFillTheirColumns) {
  for (DataFormat f : kRowMajorFormats)
    for (auto [b, full] : {std::pair{1u, 1u}, {3u, 3u}, {1u, 4u}, {2u, 4u}, {4u, 8u}}) {
      const std::vector<float> rows = values(size_t(full) * kTileHW, f);
      Case c;
      c.in_format = c.out_format = f;
      c.fp32 = f != DataFormat::Float16_b;
      c.unpack_to_dest = f == DataFormat::Float32;
      c.in = pack_tiles(tilize(rows, 32, full * 32), f);
      c.out_pages = c.out_drained = full;
      const uint32_t bf = (full << 8) | b;
      c.steps.op(kHwStartup, kIn, kIn, kOut).op(kPackUntilizeInit, kIn, bf, kOut).op(kCbReserve, kOut, full);
      for (uint32_t block = 0; block < full / b; ++block)
        c.steps.op(kCbWait, kIn, b).op(kPackUntilize, kIn, bf, kOut, 1, block).op(kCbPop, kIn, b);
      c.steps.op(kCbPush, kOut, full).op(kPackUntilizeUninit, kOut);
      EXPECT_EQ(run(c), bytes_of(rows, f)) << to_string(f) << " b " << b << " full " << full;
    }
}

// pack_untilize_dest: tiles copied into DST, two row blocks of 2 tiles each.
TEST_F(TilizeTest, PackUntilizeDestPacksDstRows) {
  const uint32_t full = 2, rt = 2;
  const std::vector<float> rows = values(size_t(full * rt) * kTileHW, DataFormat::Float16_b); // 64 rows
  for (DataFormat out : {DataFormat::Float16_b, DataFormat::Float32}) {
    Case c;
    c.out_format = out;
    c.in = pack_tiles(tilize(rows, 64, full * 32), DataFormat::Float16_b);
    c.out_pages = c.out_drained = full * rt;
    const uint32_t bf = (full << 8) | full;
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kCopyInit, kIn).op(kPackUntilizeDestInit, 0, bf, kOut);
    c.steps.op(kCbWait, kIn, full * rt).op(kAcquire);
    for (uint32_t t = 0; t < full * rt; ++t)
      c.steps.op(kCopy, kIn, t, t);
    c.steps.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, full * rt).op(kPackUntilizeDest, 0, bf, kOut, rt, 0);
    c.steps.op(kRelease).op(kCbPush, kOut, full * rt).op(kPackUntilizeUninit, kOut);
    EXPECT_EQ(run(c), bytes_of(rows, out)) << to_string(out);
  }
}

// Timing: per tile, its bytes in (128 B/cycle), a copy (8 cycles) and its
// bytes out (128 B/cycle): 16 + 8 + 16 for Float16_b.
TEST_F(TilizeTest, EachTileCostsItsUnpackCopyAndPack) {
  auto timed = [&](uint32_t code, uint32_t w) {
    Case c;
    c.in = bytes_of(values(size_t(w) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
    c.out_pages = c.out_drained = w;
    const uint32_t bf = (w << 8) | w;
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kCbWait, kIn, w).op(kCbReserve, kOut, w);
    if (code == kTilize) c.steps.op(kTilizeInit, kIn, w, kOut).op(kTilize, kIn, w, kOut);
    if (code == kUntilize) c.steps.op(kUntilizeInit, kIn).op(kUntilize, kIn, 1, w, kOut);
    if (code == kPackUntilize) c.steps.op(kPackUntilizeInit, kIn, bf, kOut).op(kPackUntilize, kIn, bf, kOut, 1, 0);
    c.steps.op(kCbPush, kOut, w);
    return busy_cycles(c);
  };
  for (uint32_t code : {kTilize, kUntilize, kPackUntilize})
    EXPECT_EQ(timed(code, 4) - timed(code, 1), 3u * (16 + 8 + 16)) << "op " << code;
}

// ---- Misuse ----

Case tilize_case(uint32_t w, uint32_t pushed) {
  Case c;
  c.in = bytes_of(values(size_t(pushed) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
  c.out_pages = std::max(w, 1u);
  c.out_drained = 0;
  c.steps.op(kHwStartup, kIn, kIn, kOut);
  return c;
}

TEST_F(TilizeTest, TilizeMisuse) {
  Case c = tilize_case(2, 2);
  c.steps.op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): the "
                          "unpacker is not configured for tilize_block: call tilize_init(icb, block, ocb) first (no op "
                          "init was called in this kernel)");

  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 4, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): tilize_init "
                          "at " +
                          at("tilize_init").substr(0, at("tilize_init").find(": core")) +
                          " set the unpacker up for blocks of 4 tiles (rows 128 values apart); this block of 2 would "
                          "be tilized from the wrong rows: call tilize_init(icb, 2, ocb) first");

  // A block wider than the pages waited for (here: than the whole CB).
  c = tilize_case(4, 2);
  c.steps.op(kTilizeInit, kIn, 4, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 4).op(kTilize, kIn, 4, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=4, ocb=16, input_tile_index=0, output_tile_index=0): reads 32 "
                          "rows of the block, 4 pages of CB 0 from its front, but only 2 pages are waited for with "
                          "cb_wait_front");

  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 2, kOut).op(kCbReserve, kOut, 2).op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): no pages of "
                          "CB 0 are waited for: call cb_wait_front(0, 2) first");

  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 2, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kAcquire);
  c.steps.op(kTilize, kIn, 2, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): it "
                          "acquires and releases DST itself for each step, but DST is held (last acquired at " +
                          at("acquire").substr(0, at("acquire").find(": core")) +
                          "): call it before tile_regs_acquire or after tile_regs_release");

  c = tilize_case(1, 1);
  c.in_format = DataFormat::Bfp8_b;
  c.in.assign(tile_size(DataFormat::Bfp8_b), 0);
  c.steps = Steps().op(kHwStartup, kIn, kIn, kOut).op(kTilizeInit, kIn, 1, kOut).op(kCbWait, kIn, 1);
  c.steps.op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=1, ocb=16, input_tile_index=0, output_tile_index=0): CB 0 holds "
                          "Bfp8_b, a block-float format, which holds tiles only; the row-major side of a tilize or "
                          "untilize holds Float32, Float16_b, Int32, UInt32, UInt16 or UInt8 values");

  c = tilize_case(1, 1);
  c.steps.op(kFastInit, kIn, 1, kOut).op(kCbWait, kIn, 1).op(kCbReserve, kOut, 1).op(kTilize, kIn, 1, kOut);
  EXPECT_EQ(fails(c), at("tilize_block") +
                          "tilize_block(icb=0, block=1, ocb=16, input_tile_index=0, output_tile_index=0): the "
                          "unpacker is not configured for tilize_block: call tilize_init(icb, block, ocb) first (the "
                          "last op init was fast_tilize_init at " +
                          at("fast_init").substr(0, at("fast_init").find(": core")) + ")");

  // Pages beyond the reservation that the CB has free: silicon writes them, a
  // warning (strict: an error).
  c = tilize_case(2, 2);
  c.steps.op(kTilizeInit, kIn, 2, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 1).op(kTilize, kIn, 2, kOut);
  setenv("TESSEL_STRICT", "1", 1);
  const std::string strict = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(strict, at("tilize_block") +
                        "tilize_block(icb=0, block=2, ocb=16, input_tile_index=0, output_tile_index=0): writes pages "
                        "0..1 of CB 16 (counting from its write pointer), but only 1 page is reserved with "
                        "cb_reserve_back; the CB has room for them, so silicon writes them, but nothing waited for "
                        "that room: reserve them with cb_reserve_back first (a warning, made an error by "
                        "TESSEL_STRICT=1)");

  c = tilize_case(1, 1);
  c.steps.op(kTilizeUninit, kIn, 0, kOut);
  EXPECT_EQ(fails(c), at("tilize_uninit") +
                          "tilize_uninit: no tilize_init (or tilize_init_short_with_dt) is in effect (the unpacker is "
                          "not in tilize or untilize mode)");
}

// Another op's init while the unpacker is still in tilize mode: silicon runs
// it, but the unpacker keeps tilizing. A warning (an error under TESSEL_STRICT=1).
TEST_F(TilizeTest, InitWithoutTilizeUninitWarns) {
  Case c = tilize_case(1, 1);
  c.steps.op(kTilizeInit, kIn, 1, kOut).op(kCopyInit, kIn);
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(message, at("copy_tile_init") +
                         "copy_tile_init: the unpacker is still in tilize mode (set by tilize_init "
                         "at " +
                         at("tilize_init").substr(0, at("tilize_init").find(": core")) +
                         "), which this init does not undo on silicon: call tilize_uninit(icb, ocb) first (a "
                         "warning, made an error by TESSEL_STRICT=1)");
  // With tilize_uninit in between there is nothing to say.
  c = tilize_case(1, 1);
  c.steps.op(kTilizeInit, kIn, 1, kOut).op(kTilizeUninit, kIn, 0, kOut).op(kCopyInit, kIn);
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_NO_THROW(run(c));
  unsetenv("TESSEL_STRICT");
}

TEST_F(TilizeTest, UntilizeMisuse) {
  auto untilize_case = [](uint32_t full) {
    Case c;
    c.in = pack_tiles(values(size_t(full) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
    c.out_pages = full;
    c.out_drained = 0;
    c.steps.op(kHwStartup, kIn, kIn, kOut).op(kUntilizeInit, kIn);
    return c;
  };
  Case c = untilize_case(2);
  c.steps.op(kCbReserve, kOut, 2).op(kUntilize, kIn, 1, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=2, ocb=16): no pages of CB 0 are waited for: call "
                          "cb_wait_front(0, 2) first");

  c = untilize_case(2);
  c.steps.op(kCbWait, kIn, 1).op(kCbReserve, kOut, 2).op(kUntilize, kIn, 1, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=2, ocb=16): reads full_ct_dim tiles, 2 pages of CB 0 "
                          "from its front, but only 1 page is waited for with cb_wait_front");

  c = untilize_case(2);
  c.steps.op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2).op(kUntilize, kIn, 3, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<3>(icb=0, full_ct_dim=2, ocb=16): full_ct_dim must be a multiple of "
                          "block_ct_dim (the unpacker unpacks 2 tiles, the math thread copies them 3 at a time)");

  // 8 tiles at a time, but a 32-bit DST holds 4 per acquire.
  c = untilize_case(8);
  c.fp32 = true;
  c.steps.op(kCbWait, kIn, 8).op(kCbReserve, kOut, 8).op(kUntilize, kIn, 8, 8, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<8>(icb=0, full_ct_dim=8, ocb=16): a block of block_ct_dim tiles needs 8 DST "
                          "tiles, but one acquire holds 4 in half-sync with fp32_dest_acc_en mode (half-sync 8, "
                          "full-sync 16, halved by fp32_dest_acc_en)");

  c = untilize_case(1);
  c.out_format = DataFormat::Bfp8_b;
  c.steps.op(kCbWait, kIn, 1).op(kCbReserve, kOut, 1).op(kUntilize, kIn, 1, 1, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=1, ocb=16): CB 16 holds Bfp8_b, a block-float format, "
                          "which holds tiles only; the row-major side of a tilize or untilize holds Float32, "
                          "Float16_b, Int32, UInt32, UInt16 or UInt8 values");

  // Two pages out, one reserved and no room beyond: an error (the CB is full).
  c = untilize_case(2);
  c.out_pages = 1;
  c.steps.op(kCbWait, kIn, 2).op(kCbReserve, kOut, 1).op(kUntilize, kIn, 1, 2, kOut);
  EXPECT_EQ(fails(c), at("untilize_block") +
                          "untilize_block<1>(icb=0, full_ct_dim=2, ocb=16): writes pages 0..1 of CB 16 (counting from "
                          "its write pointer), but only 1 page is reserved with cb_reserve_back, and page 1 lies past "
                          "the CB's end: reserve the pages with cb_reserve_back (after pushing the pages before them)");
}

TEST_F(TilizeTest, PackUntilizeMisuse) {
  auto pack_case = [](uint32_t tiles) {
    Case c;
    c.in = pack_tiles(values(size_t(tiles) * kTileHW, DataFormat::Float16_b), DataFormat::Float16_b);
    c.out_pages = tiles;
    c.out_drained = 0;
    c.steps.op(kHwStartup, kIn, kIn, kOut);
    return c;
  };
  Case c = pack_case(4);
  c.steps.op(kPackUntilizeInit, kIn, 0x402, kOut).op(kCbWait, kIn, 4).op(kCbReserve, kOut, 4);
  c.steps.op(kPackUntilize, kIn, 0x404, kOut, 1, 0);
  EXPECT_EQ(fails(c), at("pack_untilize_block") +
                          "pack_untilize_block<4, 4>(icb=0, block_rt_dim=1, ocb=16, block_c_index=0): the packer was "
                          "set up for blocks of 2 tiles in rows of 4 by pack_untilize_init<2, 4> at " +
                          at("pack_untilize_init").substr(0, at("pack_untilize_init").find(": core")) +
                          "; the template arguments must match: call pack_untilize_init<4, 4>(icb, ocb) first");

  c = pack_case(4);
  c.steps.op(kCbWait, kIn, 4).op(kCbReserve, kOut, 4).op(kPackUntilize, kIn, 0x404, kOut, 1, 0);
  EXPECT_EQ(fails(c), at("pack_untilize_block") +
                          "pack_untilize_block<4, 4>(icb=0, block_rt_dim=1, ocb=16, block_c_index=0): the packer is "
                          "not configured for untilize: call pack_untilize_init<4, 4>(icb, ocb) first");

  c = pack_case(4);
  c.steps.op(kPackUntilizeInit, kIn, 0x402, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 4);
  c.steps.op(kPackUntilize, kIn, 0x402, kOut, 1, 2);
  EXPECT_EQ(fails(c), at("pack_untilize_block") +
                          "pack_untilize_block<2, 4>(icb=0, block_rt_dim=1, ocb=16, block_c_index=2): block 2 of 2 "
                          "tiles reaches column tile 6, past the row's full_ct_dim = 4 tiles");

  c = pack_case(4);
  c.steps.op(kCopyInit, kIn).op(kPackUntilizeDestInit, 0, 0x404, kOut).op(kCbWait, kIn, 4).op(kAcquire);
  c.steps.op(kCopy, kIn, 0, 0).op(kCbReserve, kOut, 4).op(kPackUntilizeDest, 0, 0x404, kOut, 1, 0);
  EXPECT_EQ(fails(c), at("pack_untilize_dest") +
                          "pack_untilize_dest<4, 4>(ocb=16, block_rt_dim=1, block_c_index=0): PACK does not hold DST: "
                          "call tile_regs_wait (after tile_regs_commit) first (MATH still holds it: tile_regs_commit "
                          "hands it over)");

  // Two row blocks from one pack_untilize_block: silicon repeats the first.
  c = pack_case(2);
  c.steps.op(kPackUntilizeInit, kIn, 0x202, kOut).op(kCbWait, kIn, 2).op(kCbReserve, kOut, 2);
  c.steps.op(kPackUntilize, kIn, 0x202, kOut, 2, 0);
  setenv("TESSEL_STRICT", "1", 1);
  std::string strict = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(strict, at("pack_untilize_block") +
                        "pack_untilize_block<2, 2>(icb=0, block_rt_dim=2, ocb=16, block_c_index=0): each of the 2 row "
                        "blocks unpacks tiles 0..1 of CB 0 and packs them to the same rows of CB 16 "
                        "(pack_untilize_block does not step through the CBs): call it with block_rt_dim = 1 once per "
                        "row block, popping and pushing in between (a warning, made an error by TESSEL_STRICT=1)");

  c = pack_case(1);
  c.steps.op(kPackUntilizeDestFaces, 8, 2, kOut);
  EXPECT_EQ(fails(c), at("pack_untilize_dest_faces") +
                          "pack untilize with face_r_dim != 16 or num_faces != 4 is not supported by tessel: tiles "
                          "are 32 x 32 of four 16 x 16 faces here (pass face_r_dim = 16, num_faces = 4, the defaults)");

  // pack_tile while the packer still untilizes: a warning (strict: an error).
  c = pack_case(1);
  c.steps.op(kCopyInit, kIn).op(kPackUntilizeDestInit, 0, 0x101, kOut).op(kCbWait, kIn, 1).op(kAcquire);
  c.steps.op(kCopy, kIn, 0, 0).op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = fails(c);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(message, at("pack_tile") +
                         "pack_tile(idst=0, cb=16): the packer is still in untilize mode (set by "
                         "pack_untilize_dest_init at " +
                         at("pack_untilize_dest_init").substr(0, at("pack_untilize_dest_init").find(": core")) +
                         "), so silicon would not write a tile: call pack_untilize_uninit(ocb) first (a warning, made "
                         "an error by TESSEL_STRICT=1)");
}

} // namespace
} // namespace tessel::test
