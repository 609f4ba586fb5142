// The tilize/untilize test harness: one compute kernel of every tilize,
// untilize and pack-untilize call, driven by a list of steps, and the
// host values and layouts the tests compare with (compute_tilize_test.cpp,
// compute_tilize_checks_test.cpp).
#pragma once

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
  if (op == 4) PACK((llk_pack_untilize_init<B, F>(ocb))); // @llk_pack_untilize_init
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
    case 18: pack_untilize_any(b, 4, 0, c, 0, 0); break;
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
  kLlkPackUntilizeInit = 18,   // (-, (F << 8) | B, ocb): llk_pack_untilize_init<B, F>(ocb)
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

} // namespace
} // namespace tessel::test
