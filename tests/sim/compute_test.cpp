// The compute engine (src/sim/compute.cpp): exact results of copy/add/sub/mul
// in Float16_b and Float32 CBs, DST rounding, acc_to_dest, pack_tile filling
// consecutive reserved pages, and every misuse message with its call site,
// after which the device still works.
//
// One script-driven compute kernel ("compute_ops.cpp", older NAMESPACE/MAIN
// style with `using namespace ckernel;`) runs every case, so the file costs
// three kernel compiles. A reader (BRISC) pushes the input tiles into CBs 0
// and 1 before the script runs; a writer (NCRISC) drains CB 16.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kComputeName = "compute_ops.cpp";

const std::string& compute_source() {
  static const std::string source = R"KERNEL(// compute_ops.cpp: script interpreter for the compute engine tests.
#include "compute_kernel_api.h"
#include "compute_kernel_api/common.h"
#include "compute_kernel_api/eltwise_binary.h"
#include "compute_kernel_api/reg_api.h"
#include "compute_kernel_api/tile_move_copy.h"
#include "compute_kernel_api/compute_kernel_hw_startup.h"

using namespace ckernel;

namespace NAMESPACE {
void MAIN {
  const uint32_t steps = get_arg_val<uint32_t>(0);
  for (uint32_t s = 0; s < steps; ++s) {
    uint32_t v[6];
    for (uint32_t w = 0; w < 6; ++w) v[w] = get_arg_val<uint32_t>(1 + 6 * s + w);
    const uint32_t a = v[1], b = v[2], c = v[3], d = v[4], e = v[5];
    switch (v[0]) {
    case 0: compute_kernel_hw_startup(a, b, c); break;
    case 1: compute_kernel_hw_startup(a, c); break;
    case 2: binary_op_init_common(a, b, c); break;
    case 3: unary_op_init_common(a, c); break;
    case 4: init_sfpu(a, c); break;
    case 5: copy_tile_init(a); break; // @copy_tile_init
    case 6: copy_tile_to_dst_init_short(a); break;
    case 7: copy_init(a); break;
    case 8: add_tiles_init(a, b, c); break; // @add_tiles_init
    case 9: sub_tiles_init(a, b, c); break;
    case 10: mul_tiles_init(a, b, c); break;
    case 20: tile_regs_acquire(); break; // @acquire
    case 21: tile_regs_commit(); break; // @commit
    case 22: tile_regs_wait(); break; // @wait
    case 23: tile_regs_release(); break; // @release
    case 24: acquire_dst(); break; // @acquire_dst
    case 25: release_dst(); break; // @release_dst
    case 30: copy_tile(a, b, c); break; // @copy_tile
    case 31: add_tiles(a, b, c, d, e); break; // @add_tiles
    case 32: sub_tiles(a, b, c, d, e); break; // @sub_tiles
    case 33: mul_tiles(a, b, c, d, e); break; // @mul_tiles
    case 34: pack_tile(a, b); break; // @pack_tile
    case 40: cb_wait_front(a, b); break;
    case 41: cb_pop_front(a, b); break;
    case 42: cb_reserve_back(a, b); break;
    case 43: cb_push_back(a, b); break;
    case 50: MATH((add_tiles(a, b, c, d, e))); PACK((pack_tile(e, 16))); break;
    default: ASSERT(false);
    }
  }
}
} // namespace NAMESPACE
)KERNEL";
  return source;
}

// Reader: args (cb, dram address, tiles) x 2; pushes each CB's tiles at once.
const char* const kReaderSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  for (uint32_t i = 0; i < 2; ++i) {
    const uint32_t cb = get_arg_val<uint32_t>(3 * i), addr = get_arg_val<uint32_t>(3 * i + 1);
    const uint32_t tiles = get_arg_val<uint32_t>(3 * i + 2);
    if (tiles == 0) continue;
    const InterleavedAddrGenFast<true> src = {addr, get_tile_size(cb), get_dataformat(cb)};
    cb_reserve_back(cb, tiles);
    for (uint32_t t = 0; t < tiles; ++t) noc_async_read_tile(t, src, get_write_ptr(cb) + t * get_tile_size(cb));
    noc_async_read_barrier();
    cb_push_back(cb, tiles);
  }
}
)KERNEL";

// Writer: args (cb, dram address, tiles); waits for all tiles, writes them.
const char* const kWriterSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t cb = get_arg_val<uint32_t>(0), addr = get_arg_val<uint32_t>(1), tiles = get_arg_val<uint32_t>(2);
  if (tiles == 0) return;
  const InterleavedAddrGenFast<true> dst = {addr, get_tile_size(cb), get_dataformat(cb)};
  cb_wait_front(cb, tiles);
  for (uint32_t t = 0; t < tiles; ++t) noc_async_write_tile(t, dst, get_read_ptr(cb) + t * get_tile_size(cb));
  noc_async_write_barrier();
  cb_pop_front(cb, tiles);
}
)KERNEL";

uint32_t compute_line(const std::string& marker) {
  std::istringstream in(compute_source());
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.size() >= tag.size() && line.compare(line.size() - tag.size(), tag.size(), tag) == 0) return n;
  ADD_FAILURE() << "no marker " << tag;
  return 0;
}

// "compute_ops.cpp:N: core (0,0) COMPUTE: " for the call marked `marker`.
std::string at(const std::string& marker) {
  return std::string(kComputeName) + ":" + std::to_string(compute_line(marker)) + ": core (0,0) COMPUTE: ";
}

enum : uint32_t {
  kHwStartup3 = 0,
  kHwStartup2 = 1,
  kBinaryCommon = 2,
  kUnaryCommon = 3,
  kInitSfpu = 4,
  kCopyInit = 5,
  kCopyInitShort = 6,
  kCopyInitNew = 7,
  kAddInit = 8,
  kSubInit = 9,
  kMulInit = 10,
  kAcquire = 20,
  kCommit = 21,
  kWaitDst = 22,
  kRelease = 23,
  kAcquireDst = 24,
  kReleaseDst = 25,
  kCopy = 30,
  kAdd = 31,
  kSub = 32,
  kMul = 33,
  kPack = 34,
  kCbWait = 40,
  kCbPop = 41,
  kCbReserve = 42,
  kCbPush = 43,
  kMathAddPack = 50,
};

struct Steps {
  std::vector<uint32_t> words;
  Steps& op(uint32_t code, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, uint32_t d = 0, uint32_t e = 0) {
    words.insert(words.end(), {code, a, b, c, d, e});
    return *this;
  }
  // The usual frame around DST work: acquire ... commit, wait, reserve, pack, push, release.
  std::vector<uint32_t> args() const {
    std::vector<uint32_t> v = {uint32_t(words.size() / 6)};
    v.insert(v.end(), words.begin(), words.end());
    return v;
  }
};

constexpr uint32_t kIn0 = 0, kIn1 = 1, kOut = 16;

struct Case {
  DataFormat in_format = DataFormat::Float16_b;
  DataFormat out_format = DataFormat::Float16_b;
  bool fp32 = false;
  bool full_sync = false;
  uint32_t in_tiles = 1;  // tiles the reader pushes into CB 0 and into CB 1
  uint32_t out_pages = 1; // pages of CB 16
  uint32_t out_tiles = 1; // tiles the writer drains from CB 16
  std::vector<float> a, b;
  Steps steps;
};

class ComputeTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  // Runs the case; returns CB 16's drained tiles as floats.
  std::vector<float> run(const Case& c) {
    Program program = build(c);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(out_->size());
    out_->read(bytes.data(), bytes.size());
    bytes.resize(size_t(c.out_tiles) * tile_size(c.out_format));
    return unpack_tiles(bytes, c.out_format);
  }

  // Runs the case expecting a KernelError; returns its message and checks the device still works.
  std::string fails(const Case& c) {
    Program program = build(c);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  Program build(const Case& c) {
    const uint32_t in_tile = tile_size(c.in_format), out_tile = tile_size(c.out_format);
    auto input = [&](const std::vector<float>& v) {
      std::vector<float> values(v);
      values.resize(size_t(std::max(c.in_tiles, 1u)) * kTileHW, 0.0f);
      auto buf = Buffer::create(device_, {uint64_t(std::max(c.in_tiles, 1u)) * in_tile, in_tile, BufferType::DRAM});
      const std::vector<uint8_t> packed = pack_tiles(values, c.in_format);
      buf->write(packed.data(), packed.size());
      return buf;
    };
    in0_ = input(c.a);
    in1_ = input(c.b);
    out_ = Buffer::create(device_, {uint64_t(std::max(c.out_pages, 1u)) * out_tile, out_tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    const uint32_t in_pages = std::max(c.in_tiles, 1u);
    for (uint8_t cb : {uint8_t(kIn0), uint8_t(kIn1)})
      program.add_circular_buffer(
          core, CircularBufferConfig(in_pages * in_tile, {{cb, c.in_format}}).set_page_size(cb, in_tile));
    program.add_circular_buffer(
        core,
        CircularBufferConfig(c.out_pages * out_tile, {{uint8_t(kOut), c.out_format}}).set_page_size(kOut, out_tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.fp32_dest_acc_en = c.fp32;
    config.dst_full_sync_en = c.full_sync;
    KernelHandle compute = program.add_kernel_from_source(compute_source(), kComputeName, core, config);
    program.set_runtime_args(reader, core, {kIn0, in0_->address(), c.in_tiles, kIn1, in1_->address(), c.in_tiles});
    program.set_runtime_args(writer, core, {kOut, out_->address(), c.out_tiles});
    program.set_runtime_args(compute, core, c.steps.args());
    return program;
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;
};

// offset + scale * (-8..7), cycling. With the small scales and offsets used
// here every input, sum, difference and product has at most 8 significant
// bits, so it is exact in bf16.
std::vector<float> ramp(float scale, float offset) {
  std::vector<float> v(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i)
    v[i] = offset + scale * float(int(i % 16) - 8);
  return v;
}

// Steps for: init, wait inputs, acquire, op(idst 0), commit, wait, reserve, pack, push, release.
Steps one_tile(uint32_t init, uint32_t op, bool binary = true) {
  Steps s;
  if (binary)
    s.op(kBinaryCommon, kIn0, kIn1, kOut).op(init, kIn0, kIn1, 0);
  else
    s.op(kUnaryCommon, kIn0, 0, kOut).op(init, kIn0);
  s.op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire);
  if (binary)
    s.op(op, kIn0, kIn1, 0, 0, 0);
  else
    s.op(op, kIn0, 0, 0);
  s.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut).op(kCbPush, kOut, 1).op(kRelease);
  s.op(kCbPop, kIn0, 1).op(kCbPop, kIn1, 1);
  return s;
}

TEST_F(ComputeTest, ExactResultsInBf16AndFloat32) {
  const std::vector<float> a = ramp(0.25f, 3.0f), b = ramp(0.5f, -1.0f);
  struct OpCase {
    uint32_t init, op;
    float (*f)(float, float);
  };
  const OpCase ops[] = {{kAddInit, kAdd, [](float x, float y) { return x + y; }},
                        {kSubInit, kSub, [](float x, float y) { return x - y; }},
                        {kMulInit, kMul, [](float x, float y) { return x * y; }},
                        {kCopyInit, kCopy, [](float x, float) { return x; }}};
  for (DataFormat fmt : {DataFormat::Float16_b, DataFormat::Float32})
    for (bool fp32 : {false, true})
      for (const OpCase& o : ops) {
        Case c;
        c.in_format = c.out_format = fmt;
        c.fp32 = fp32;
        c.a = a;
        c.b = b;
        c.steps = one_tile(o.init, o.op, o.op != kCopy);
        const std::vector<float> out = run(c);
        ASSERT_EQ(out.size(), kTileHW);
        for (uint32_t i = 0; i < kTileHW; ++i)
          ASSERT_EQ(out[i], o.f(a[i], b[i]))
              << "format " << to_string(fmt) << " fp32_dest_acc_en " << fp32 << " op " << o.op << " at " << i;
      }
}

// 1 + 2^-10 is a Float32 value bf16 cannot hold: 16-bit DST rounds it (to
// 1, ties to even... it is below half an ULP), fp32_dest_acc_en keeps it.
TEST_F(ComputeTest, DstRoundsToBf16UnlessFp32) {
  for (bool fp32 : {false, true}) {
    Case c;
    c.in_format = c.out_format = DataFormat::Float32;
    c.fp32 = fp32;
    c.a.assign(kTileHW, 1.0f);
    c.b.assign(kTileHW, 0x1p-10f);
    c.a[1] = 1.0f, c.b[1] = 3 * 0x1p-9f; // 1 + 3*2^-9 = 1.00586: bf16 neighbours 1.0039, 1.0078 -> 1.0078 (nearer)
    c.a[2] = 1.0f, c.b[2] = 0x1p-8f;     // 1 + 2^-8: a tie between 1 and 1.0078125 -> 1 (even)
    c.steps = one_tile(kAddInit, kAdd);
    const std::vector<float> out = run(c);
    EXPECT_EQ(out[0], fp32 ? 1.0f + 0x1p-10f : 1.0f);
    EXPECT_EQ(out[1], fp32 ? 1.0f + 3 * 0x1p-9f : 1.0f + 0x1p-7f);
    EXPECT_EQ(out[2], fp32 ? 1.0f + 0x1p-8f : 1.0f);
  }
}

// bf16 inputs whose product needs more than 8 bits: (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14.
// 16-bit DST rounds it to 1 + 2^-6; fp32_dest_acc_en with a Float32 output keeps it.
TEST_F(ComputeTest, Bf16ProductRoundsInDst) {
  for (bool fp32 : {false, true}) {
    Case c;
    c.in_format = DataFormat::Float16_b;
    c.out_format = DataFormat::Float32;
    c.fp32 = fp32;
    c.a.assign(kTileHW, 1.0f + 0x1p-7f);
    c.b = c.a;
    c.steps = one_tile(kMulInit, kMul);
    const std::vector<float> out = run(c);
    EXPECT_EQ(out[0], fp32 ? 1.0f + 0x1p-6f + 0x1p-14f : 1.0f + 0x1p-6f);
    EXPECT_EQ(out[1023], out[0]);
  }
}

// acc_to_dest: DST += A op B; without it the op overwrites DST.
TEST_F(ComputeTest, AccToDestAccumulates) {
  Case c;
  c.a = ramp(0.5f, 1.0f);
  c.b = ramp(0.25f, 2.0f);
  c.in_tiles = 2;
  Steps& s = c.steps;
  s.op(kHwStartup3, kIn0, kIn1, kOut).op(kCbWait, kIn0, 2).op(kCbWait, kIn1, 2).op(kAcquire);
  s.op(kCopyInit, kIn0).op(kCopy, kIn0, 1, 0);                 // DST = A[1]
  s.op(kMulInit, kIn0, kIn1, 1).op(kMul, kIn0, kIn1, 0, 0, 0); // DST += A[0] * B[0]
  s.op(kAddInit, kIn0, kIn1, 1).op(kAdd, kIn0, kIn1, 0, 1, 0); // DST += A[0] + B[1]
  s.op(kSubInit, kIn0, kIn1, 0).op(kSub, kIn0, kIn1, 1, 1, 1); // DST[1] = A[1] - B[1] (overwrites)
  s.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 2).op(kPack, 0, kOut).op(kPack, 1, kOut).op(kCbPush, kOut, 2);
  s.op(kRelease);
  c.out_pages = c.out_tiles = 2;
  const std::vector<float> out = run(c);
  ASSERT_EQ(out.size(), 2 * kTileHW);
  // The second input tiles are zero (the test pads the given values with zeros).
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a0 = c.a[i], b0 = c.b[i];
    ASSERT_EQ(out[i], 0.0f + a0 * b0 + (a0 + 0.0f)) << i;
    ASSERT_EQ(out[kTileHW + i], 0.0f) << i;
  }
}

// Consecutive pack_tile calls fill consecutive reserved pages; a push restarts at the new write pointer.
TEST_F(ComputeTest, PackFillsConsecutiveReservedPages) {
  Case c;
  c.a = ramp(1.0f, 0.0f);
  c.b = ramp(0.0f, 2.0f); // all 2
  c.out_pages = c.out_tiles = 4;
  Steps& s = c.steps;
  s.op(kBinaryCommon, kIn0, kIn1, kOut).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire);
  s.op(kAddInit, kIn0, kIn1).op(kAdd, kIn0, kIn1, 0, 0, 0);
  s.op(kMulInit, kIn0, kIn1).op(kMul, kIn0, kIn1, 0, 0, 1);
  s.op(kSubInit, kIn0, kIn1).op(kSub, kIn0, kIn1, 0, 0, 2);
  s.op(kCommit).op(kWaitDst);
  s.op(kCbReserve, kOut, 3).op(kPack, 2, kOut).op(kPack, 0, kOut).op(kPack, 1, kOut).op(kCbPush, kOut, 3);
  s.op(kCbReserve, kOut, 1).op(kPack, 1, kOut).op(kCbPush, kOut, 1).op(kRelease);
  const std::vector<float> out = run(c);
  ASSERT_EQ(out.size(), 4 * kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const float a = c.a[i];
    ASSERT_EQ(out[i], a - 2) << i;
    ASSERT_EQ(out[kTileHW + i], a + 2) << i;
    ASSERT_EQ(out[2 * kTileHW + i], a * 2) << i;
    ASSERT_EQ(out[3 * kTileHW + i], a * 2) << i;
  }
}

// acquire_dst/release_dst, the MATH((...)) / PACK((...)) wrappers, full-sync with 16 tiles.
TEST_F(ComputeTest, LegacyAcquireAndFullSync) {
  Case c;
  c.a = ramp(1.0f, 0.0f);
  c.b = ramp(1.0f, 1.0f);
  c.full_sync = true;
  Steps& s = c.steps;
  s.op(kHwStartup3, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  s.op(kAcquireDst).op(kAdd, kIn0, kIn1, 0, 0, 15).op(kCbReserve, kOut, 1).op(kPack, 15, kOut);
  s.op(kCbPush, kOut, 1).op(kReleaseDst);
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out[i], c.a[i] + c.b[i]) << i;
  Case m = c;
  m.steps = Steps();
  m.steps.op(kHwStartup2, kIn0, 0, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  m.steps.op(kAcquireDst).op(kCbReserve, kOut, 1).op(kMathAddPack, kIn0, kIn1, 0, 0, 3).op(kCbPush, kOut, 1);
  m.steps.op(kReleaseDst);
  const std::vector<float> out2 = run(m);
  for (uint32_t i = 0; i < kTileHW; ++i)
    ASSERT_EQ(out2[i], c.a[i] + c.b[i]) << i;
}

// Acquire gives zeroed tiles, also after a section was used.
TEST_F(ComputeTest, AcquireZeroesDst) {
  Case c;
  c.a = ramp(1.0f, 5.0f);
  c.b = ramp(1.0f, 5.0f);
  c.out_pages = c.out_tiles = 2;
  Steps& s = c.steps;
  s.op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1, 1).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  for (int round = 0; round < 2; ++round) {
    for (int half = 0; half < 2; ++half) { // both half-sync sections get used twice
      s.op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, 0).op(kCommit).op(kWaitDst);
      if (round == 1 && half == 1) s.op(kCbReserve, kOut, 2).op(kPack, 0, kOut).op(kPack, 1, kOut).op(kCbPush, kOut, 2);
      s.op(kRelease);
    }
  }
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    ASSERT_EQ(out[i], c.a[i] + c.b[i]) << i; // accumulated once onto a zeroed tile
    ASSERT_EQ(out[kTileHW + i], 0.0f) << i;
  }
}

// ---------------------------------------------------------------------------
// Misuse

TEST_F(ComputeTest, MissingInitsAreReported) {
  Case c;
  c.a = c.b = ramp(1.0f, 0.0f);
  // add_tiles with no init at all.
  c.steps = Steps().op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, 0);
  EXPECT_EQ(fails(c), at("add_tiles") +
                          "add_tiles(cb0=0, cb1=1, itile0=0, itile1=0, idst=0): binary ops need "
                          "binary_op_init_common (or compute_kernel_hw_startup) first (no op init was called in this "
                          "kernel)");
  // binary_op_init_common, but the last op init was copy_tile_init.
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kCopyInit, kIn0).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  c.steps.op(kAcquire).op(kMul, kIn0, kIn1, 0, 0, 0);
  EXPECT_EQ(fails(c), at("mul_tiles") +
                          "mul_tiles(cb0=0, cb1=1, itile0=0, itile1=0, idst=0): the FPU is not configured for "
                          "mul_tiles: call mul_tiles_init(cb0, cb1) first (the last op init was copy_tile_init at " +
                          std::string(kComputeName) + ":" + std::to_string(compute_line("copy_tile_init")) + ")");
  // copy_tile after add_tiles_init.
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1);
  c.steps.op(kAcquire).op(kCopy, kIn0, 0, 0);
  EXPECT_EQ(fails(c), at("copy_tile") +
                          "copy_tile(cb=0, itile=0, idst=0): the unpacker is not configured for copy_tile: call "
                          "copy_tile_init(cb) (or unary_op_init_common / init_sfpu) first (the last op init was "
                          "add_tiles_init at " +
                          std::string(kComputeName) + ":" + std::to_string(compute_line("add_tiles_init")) + ")");
  // copy_tile_init alone configures the unpacker, not the packer.
  c.steps = Steps().op(kCopyInitShort, kIn0).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 0, 0).op(kCommit);
  c.steps.op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") +
                          "pack_tile(idst=0, cb=16): the packer is not configured: call compute_kernel_hw_startup, "
                          "binary_op_init_common, unary_op_init_common or init_sfpu first");
  // Each accepted spelling of the copy init works.
  for (uint32_t init : {kCopyInit, kCopyInitShort, kCopyInitNew, kInitSfpu, kUnaryCommon}) {
    Case ok = c;
    ok.steps = Steps().op(kHwStartup2, kIn0, 0, kOut).op(init, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire);
    ok.steps.op(kCopy, kIn0, 0, 0).op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
    ok.steps.op(kCbPush, kOut, 1).op(kRelease);
    const std::vector<float> out = run(ok);
    EXPECT_EQ(out[5], ok.a[5]) << "init " << init;
  }
}

TEST_F(ComputeTest, DstIndexBeyondCapacity) {
  struct Mode {
    bool full_sync, fp32;
    uint32_t capacity;
    const char* text;
  };
  const Mode modes[] = {{false, false, 8, "half-sync with 16-bit DST"},
                        {false, true, 4, "half-sync with fp32_dest_acc_en"},
                        {true, false, 16, "full-sync with 16-bit DST"},
                        {true, true, 8, "full-sync with fp32_dest_acc_en"}};
  for (const Mode& m : modes) {
    Case c;
    c.full_sync = m.full_sync;
    c.fp32 = m.fp32;
    c.a = c.b = ramp(1.0f, 0.0f);
    // The last index works ...
    c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1);
    c.steps.op(kCbWait, kIn1, 1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, m.capacity - 1).op(kCommit).op(kWaitDst);
    c.steps.op(kCbReserve, kOut, 1).op(kPack, m.capacity - 1, kOut).op(kCbPush, kOut, 1).op(kRelease);
    EXPECT_EQ(run(c)[7], c.a[7] + c.b[7]) << m.text;
    // ... one more fails.
    c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 1);
    c.steps.op(kCbWait, kIn1, 1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, m.capacity);
    const std::string cap = std::to_string(m.capacity);
    EXPECT_EQ(fails(c), at("add_tiles") + "add_tiles(cb0=0, cb1=1, itile0=0, itile1=0, idst=" + cap + "): DST index " +
                            cap + " is out of range: one acquire holds " + cap + " tiles in " + m.text +
                            " mode (indices 0.." + std::to_string(m.capacity - 1) +
                            "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)");
    // pack_tile checks the index too.
    c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 0, 0);
    c.steps.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, m.capacity + 3, kOut);
    const std::string bad = std::to_string(m.capacity + 3);
    EXPECT_EQ(fails(c), at("pack_tile") + "pack_tile(idst=" + bad + ", cb=16): DST index " + bad +
                            " is out of range: one acquire holds " + cap + " tiles in " + m.text +
                            " mode (indices 0.." + std::to_string(m.capacity - 1) +
                            "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)");
  }
}

TEST_F(ComputeTest, PackBeyondReservationAndTileBeyondWait) {
  Case c;
  c.a = c.b = ramp(1.0f, 0.0f);
  c.in_tiles = 2;
  c.out_pages = 2;
  c.out_tiles = 0;
  Steps base = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 2).op(kAcquire).op(kCopy, kIn0, 1, 0);
  base.op(kCommit).op(kWaitDst);
  c.steps = base;
  c.steps.op(kCbReserve, kOut, 1).op(kPack, 0, kOut).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") +
                          "pack_tile(idst=0, cb=16): this would pack page 1 (counting from 0) since the last "
                          "cb_push_back, but only 1 page is reserved: reserve more with cb_reserve_back, or push "
                          "first");
  c.steps = base;
  c.steps.op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") + "pack_tile(idst=0, cb=16): no pages of CB 16 are reserved: call "
                                        "cb_reserve_back(16, n) first");
  // After a push the cursor restarts, but the push used up the reservation.
  c.steps = base;
  c.steps.op(kCbReserve, kOut, 1).op(kPack, 0, kOut).op(kCbPush, kOut, 1).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") +
                          "pack_tile(idst=0, cb=16): this would pack page 0 (counting from 0) since the last "
                          "cb_push_back, but only 0 pages are reserved: reserve more with cb_reserve_back, or push "
                          "first");
  // Tile index beyond the waited pages.
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 1, 0);
  EXPECT_EQ(fails(c), at("copy_tile") + "copy_tile(cb=0, itile=1, idst=0): tile 1 of CB 0 is beyond the 1 page "
                                        "waited for with cb_wait_front (tile indices 0..0)");
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kSubInit, kIn0, kIn1).op(kCbWait, kIn0, 2);
  c.steps.op(kAcquire).op(kSub, kIn0, kIn1, 1, 0, 0);
  EXPECT_EQ(fails(c), at("sub_tiles") + "sub_tiles(cb0=0, cb1=1, itile0=1, itile1=0, idst=0): no pages of CB 1 "
                                        "are waited for: call cb_wait_front(1, n) first");
  c.steps = Steps().op(kBinaryCommon, kIn0, kIn1, kOut).op(kAddInit, kIn0, kIn1).op(kCbWait, kIn0, 2);
  c.steps.op(kCbWait, kIn1, 2).op(kAcquire).op(kAdd, kIn0, kIn1, 1, 2, 0);
  EXPECT_EQ(fails(c), at("add_tiles") + "add_tiles(cb0=0, cb1=1, itile0=1, itile1=2, idst=0): tile 2 of CB 1 is "
                                        "beyond the 2 pages waited for with cb_wait_front (tile indices 0..1)");
  // An unconfigured CB.
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kAcquire).op(kCopy, 5, 0, 0);
  EXPECT_EQ(fails(c), at("copy_tile") + "copy_tile(cb=5): CB 5 is not configured on this core by the program");
}

// A CB format the compute engine does not convert.
TEST_F(ComputeTest, UnsupportedFormat) {
  Case c;
  c.in_format = DataFormat::Float16_b;
  c.out_format = DataFormat::Float16;
  c.a = c.b = ramp(1.0f, 0.0f);
  c.out_tiles = 0;
  c.steps = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1).op(kAcquire).op(kCopy, kIn0, 0, 0);
  c.steps.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, 1).op(kPack, 0, kOut);
  EXPECT_EQ(fails(c), at("pack_tile") + "pack_tile(idst=0, cb=16): CB 16 holds Float16, which the compute engine "
                                        "does not convert; expected Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, "
                                        "UInt32, UInt16 or UInt8");
}

TEST_F(ComputeTest, DstProtocolViolations) {
  Case c;
  c.a = c.b = ramp(1.0f, 0.0f);
  c.out_tiles = 0;
  const Steps init = Steps().op(kUnaryCommon, kIn0, 0, kOut).op(kCbWait, kIn0, 1);
  auto with = [&](Steps s) {
    Steps all = init;
    all.words.insert(all.words.end(), s.words.begin(), s.words.end());
    c.steps = all;
    return fails(c);
  };
  const std::string acquire_site = std::string(kComputeName) + ":" + std::to_string(compute_line("acquire"));
  EXPECT_EQ(with(Steps().op(kCopy, kIn0, 0, 0)),
            at("copy_tile") + "copy_tile(cb=0, itile=0, idst=0): MATH does not hold DST: call tile_regs_acquire "
                              "(or acquire_dst) before writing DST");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kCopy, kIn0, 0, 0)),
            at("copy_tile") + "copy_tile(cb=0, itile=0, idst=0): MATH does not hold DST: call tile_regs_acquire "
                              "(or acquire_dst) before writing DST (the last section was already handed to PACK "
                              "with tile_regs_commit)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kAcquire)), at("acquire") +
                                                         "tile_regs_acquire: MATH already holds DST (acquired at " +
                                                         acquire_site + "); call tile_regs_commit first");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCopy, kIn0, 0, 0).op(kCbReserve, kOut, 1).op(kPack, 0, kOut)),
            at("pack_tile") + "pack_tile(idst=0, cb=16): PACK does not hold DST: call tile_regs_wait (after "
                              "tile_regs_commit) first (MATH still holds it: tile_regs_commit hands it over)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kCbReserve, kOut, 1).op(kPack, 0, kOut)),
            at("pack_tile") + "pack_tile(idst=0, cb=16): PACK does not hold DST: call tile_regs_wait (after "
                              "tile_regs_commit) first");
  EXPECT_EQ(with(Steps().op(kCommit)),
            at("commit") + "tile_regs_commit: MATH does not hold DST: call tile_regs_acquire first");
  EXPECT_EQ(with(Steps().op(kWaitDst)), at("wait") + "tile_regs_wait: no DST section has been committed: call "
                                                     "tile_regs_commit first (waiting would never return)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kWaitDst).op(kWaitDst)),
            at("wait") + "tile_regs_wait: PACK already holds DST: call tile_regs_release first");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kRelease)),
            at("release") + "tile_regs_release: PACK does not hold DST: call tile_regs_wait first");
  // Half-sync has two sections: a third acquire before any release would wait forever.
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kAcquire).op(kCommit).op(kAcquire)),
            at("acquire") + "tile_regs_acquire: every DST section (2 in half-sync with 16-bit DST mode) is "
                            "committed and not yet released by PACK: call tile_regs_wait and tile_regs_release "
                            "first (on the device this acquire would wait forever)");
  EXPECT_EQ(with(Steps().op(kReleaseDst)), at("release_dst") + "release_dst: DST was not acquired with acquire_dst");
  EXPECT_EQ(with(Steps().op(kAcquireDst).op(kCommit)),
            at("commit") + "tile_regs_commit: MATH does not hold DST through tile_regs_acquire (it used "
                           "acquire_dst: end with release_dst)");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCopy, kIn0, 0, 0).op(kCommit).op(kWaitDst)),
            at("acquire") + "kernel ended holding DST (last acquired here): every tile_regs_acquire needs its "
                            "tile_regs_commit, tile_regs_wait and tile_regs_release before the kernel returns");
  EXPECT_EQ(with(Steps().op(kAcquireDst)), at("acquire_dst") + "kernel ended holding DST (acquired here with "
                                                               "acquire_dst): call release_dst before returning");
  EXPECT_EQ(with(Steps().op(kAcquire).op(kCommit).op(kAcquireDst)),
            at("acquire_dst") + "acquire_dst: a DST section is still committed to PACK: call tile_regs_wait and "
                                "tile_regs_release first");
}

// Two acquires in flight in half-sync use separate sections: PACK sees the first one's tiles.
TEST_F(ComputeTest, HalfSyncDoubleBuffers) {
  Case c;
  c.a = ramp(1.0f, 0.0f);
  c.b = ramp(1.0f, 7.0f);
  c.out_pages = c.out_tiles = 2;
  Steps& s = c.steps;
  s.op(kBinaryCommon, kIn0, kIn1, kOut).op(kCbWait, kIn0, 1).op(kCbWait, kIn1, 1);
  s.op(kAddInit, kIn0, kIn1).op(kAcquire).op(kAdd, kIn0, kIn1, 0, 0, 0).op(kCommit);
  s.op(kMulInit, kIn0, kIn1).op(kAcquire).op(kMul, kIn0, kIn1, 0, 0, 0).op(kCommit);
  s.op(kCbReserve, kOut, 2);
  s.op(kWaitDst).op(kPack, 0, kOut).op(kRelease);
  s.op(kWaitDst).op(kPack, 0, kOut).op(kRelease).op(kCbPush, kOut, 2);
  const std::vector<float> out = run(c);
  for (uint32_t i = 0; i < kTileHW; ++i) {
    ASSERT_EQ(out[i], c.a[i] + c.b[i]) << i;
    ASSERT_EQ(out[kTileHW + i], c.a[i] * c.b[i]) << i;
  }
}

} // namespace
} // namespace tessel::test
