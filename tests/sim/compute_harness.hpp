// The compute engine test harness: one script-driven compute kernel
// ("compute_ops.cpp", older NAMESPACE/MAIN style with `using namespace
// ckernel;`) runs every case of compute_test.cpp and compute_fpu_test.cpp, so
// the suite costs a few kernel compiles. A reader (BRISC) pushes the input
// tiles into CBs 0 and 1 before the script runs; a writer (NCRISC) drains
// CB 16.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kComputeName = "compute_ops.cpp";

inline const std::string& compute_source() {
  static const std::string source = R"KERNEL(// compute_ops.cpp: script interpreter for the compute engine tests.
#include "compute_kernel_api.h"
#include "compute_kernel_api/common.h"
#include "compute_kernel_api/eltwise_binary.h"
#include "compute_kernel_api/reg_api.h"
#include "compute_kernel_api/tile_move_copy.h"
#include "compute_kernel_api/compute_kernel_hw_startup.h"
#include "compute_kernel_api/matmul.h"
#include "compute_kernel_api/reduce.h"
#include "compute_kernel_api/bcast.h"
#include "compute_kernel_api/transpose_wh.h"
#include "compute_kernel_api/pack.h"
#include "compute_kernel_api/reconfig_data_format.h"

using namespace ckernel;

// reduce_init / reduce_tile for pool_dim = (pool << 4) | dim, chosen at run time.
template <PoolType P, ReduceDim D>
void reduce_step(bool init, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e) {
  if (init)
    reduce_init<P, D>(a, b, c); // @reduce_init
  else
    reduce_tile<P, D>(a, b, c, d, e); // @reduce_tile
}
template <PoolType P>
void reduce_dim(uint32_t dim, bool init, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e) {
  if (dim == 0) reduce_step<P, ReduceDim::REDUCE_ROW>(init, a, b, c, d, e);
  if (dim == 1) reduce_step<P, ReduceDim::REDUCE_COL>(init, a, b, c, d, e);
  if (dim == 2) reduce_step<P, ReduceDim::REDUCE_SCALAR>(init, a, b, c, d, e);
}
void reduce_any(uint32_t pool_dim, bool init, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e) {
  const uint32_t pool = pool_dim >> 4, dim = pool_dim & 15;
  if (pool == 0) reduce_dim<PoolType::SUM>(dim, init, a, b, c, d, e);
  if (pool == 1) reduce_dim<PoolType::AVG>(dim, init, a, b, c, d, e);
  if (pool == 2) reduce_dim<PoolType::MAX>(dim, init, a, b, c, d, e);
}
// Broadcast init (init) or op for op_dim = (binary op << 4) | BroadcastType.
void bcast_any(uint32_t op_dim, bool init, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1, uint32_t idst) {
  const uint32_t op = op_dim >> 4, dim = op_dim & 15;
  if (init) {
    if (op == 0 && dim == 2) add_bcast_rows_init_short(cb0, cb1); // @bcast_init
    if (op == 0 && dim == 1) add_bcast_cols_init_short(cb0, cb1);
    if (op == 0 && dim == 3) add_bcast_scalar_init_short(cb0, cb1);
    if (op == 1 && dim == 2) sub_bcast_rows_init_short(cb0, cb1);
    if (op == 1 && dim == 1) sub_bcast_cols_init_short(cb0, cb1);
    if (op == 1 && dim == 3) sub_tiles_bcast_scalar_init_short(cb0, cb1);
    if (op == 2 && dim == 2) mul_bcast_rows_init_short(cb0, cb1);
    if (op == 2 && dim == 1) mul_bcast_cols_init_short(cb0, cb1);
    if (op == 2 && dim == 3) mul_tiles_bcast_scalar_init_short(cb0, cb1);
    return;
  }
  if (op == 0 && dim == 2) add_tiles_bcast_rows(cb0, cb1, i0, i1, idst); // @bcast
  if (op == 0 && dim == 1) add_tiles_bcast_cols(cb0, cb1, i0, i1, idst);
  if (op == 0 && dim == 3) add_tiles_bcast_scalar(cb0, cb1, i0, i1, idst);
  if (op == 1 && dim == 2) sub_tiles_bcast_rows(cb0, cb1, i0, i1, idst);
  if (op == 1 && dim == 1) sub_tiles_bcast_cols(cb0, cb1, i0, i1, idst);
  if (op == 1 && dim == 3) sub_tiles_bcast<BroadcastType::SCALAR>(cb0, cb1, i0, i1, idst);
  if (op == 2 && dim == 2) mul_tiles_bcast_rows(cb0, cb1, i0, i1, idst);
  if (op == 2 && dim == 1) mul_tiles_bcast_cols(cb0, cb1, i0, i1, idst); // @bcast_mul_cols
  if (op == 2 && dim == 3) any_tiles_bcast<EltwiseBinaryType::ELWMUL, BroadcastType::SCALAR>(cb0, cb1, i0, i1, idst);
}

// binary_dest_reuse_tiles (init or op) for op_reuse = (binary op << 4) | reuse
// (1: DEST_TO_SRCA, 2: DEST_TO_SRCB), and unary_bcast for dim (BroadcastType).
void dest_reuse_any(uint32_t op_reuse, bool init, uint32_t cb, uint32_t itile, uint32_t idst) {
  constexpr auto A = EltwiseBinaryReuseDestType::DEST_TO_SRCA, B = EltwiseBinaryReuseDestType::DEST_TO_SRCB;
  switch (op_reuse) {
  case 0x01: init ? binary_dest_reuse_tiles_init<EltwiseBinaryType::ELWADD, A>(cb) : binary_dest_reuse_tiles<EltwiseBinaryType::ELWADD, A>(cb, itile, idst); break;
  case 0x11: init ? binary_dest_reuse_tiles_init<EltwiseBinaryType::ELWSUB, A>(cb) : binary_dest_reuse_tiles<EltwiseBinaryType::ELWSUB, A>(cb, itile, idst); break; // @dest_reuse
  case 0x12: init ? binary_dest_reuse_tiles_init<EltwiseBinaryType::ELWSUB, B>(cb) : binary_dest_reuse_tiles<EltwiseBinaryType::ELWSUB, B>(cb, itile, idst); break;
  case 0x21: init ? binary_dest_reuse_tiles_init<EltwiseBinaryType::ELWMUL, A>(cb) : binary_dest_reuse_tiles<EltwiseBinaryType::ELWMUL, A>(cb, itile, idst); break;
  }
}
void unary_bcast_any(uint32_t dim, uint32_t step, uint32_t cb, uint32_t x, uint32_t idst) {
  if (dim == 2) step == 0 ? unary_bcast_init<BroadcastType::ROW>(cb, x) : step == 1 ? unary_bcast<BroadcastType::ROW>(cb, x, idst) : unary_bcast_uninit<BroadcastType::ROW>(cb);
  if (dim == 1) step == 0 ? unary_bcast_init<BroadcastType::COL>(cb, x) : step == 1 ? unary_bcast<BroadcastType::COL>(cb, x, idst) : unary_bcast_uninit<BroadcastType::COL>(cb);
  if (dim == 3) step == 0 ? unary_bcast_init<BroadcastType::SCALAR>(cb, x) : step == 1 ? unary_bcast<BroadcastType::SCALAR>(cb, x, idst) : unary_bcast_uninit<BroadcastType::SCALAR>(cb);
}

namespace NAMESPACE {
void MAIN {
  const uint32_t steps = get_arg_val<uint32_t>(0);
  for (uint32_t s = 0; s < steps; ++s) {
    uint32_t v[6];
    for (uint32_t w = 0; w < 6; ++w) v[w] = get_arg_val<uint32_t>(1 + 6 * s + w);
    const uint32_t a = v[1], b = v[2], c = v[3], d = v[4], e = v[5];
    switch (v[0]) {
    case 0: compute_kernel_hw_startup(a, b, c); break; // @hw_startup
    case 1: compute_kernel_hw_startup(a, c); break;
    case 2: binary_op_init_common(a, b, c); break; // @binary_op_init_common
    case 3: unary_op_init_common(a, c); break; // @unary_op_init_common
    case 4: init_sfpu(a, c); break;
    case 5: copy_tile_init(a); break; // @copy_tile_init
    case 6: copy_tile_to_dst_init_short(a); break;
    case 7: copy_init(a); break;
    case 8: add_tiles_init(a, b, c); break; // @add_tiles_init
    case 9: sub_tiles_init(a, b, c); break;
    case 10: mul_tiles_init(a, b, c); break; // @mul_tiles_init
    case 11: mm_init(a, b, c, d); break; // @mm_init
    case 12: mm_init_short(a, b, c); break;
    case 13: matmul_init(a, b, c); break;
    case 14: mm_block_init(a, b, c, d, 1, 1, 1); break;
    case 15: reduce_any(d, true, a, b, c, 0, 0); break;
    case 16: reduce_uninit(); break; // @reduce_uninit
    case 17: transpose_wh_init(a, c); break;
    case 18: bcast_any(c, true, a, b, 0, 0, 0); break;
    case 19: reconfig_data_format_srca(a); break;
    case 26: reconfig_data_format_srcb(a); break;
    case 27: pack_reconfig_data_format(a); break;
    case 28: copy_tile_to_dst_init_short_with_dt(a, b); break;
    case 29: reconfig_data_format(a, b, c, d); break;
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
    case 35: matmul_tiles(a, b, c, d, e); break; // @matmul_tiles
    case 36: matmul_block(a >> 8, a & 255, b, c, d, 0, e >> 16, (e >> 8) & 255, e & 255); break; // @matmul_block
    case 37: matmul_tiles(a, b, c, d, e, 1); break; // @matmul_t
    case 38: reduce_any(e >> 8, false, a, b, c, d, e & 255); break;
    case 39: transpose_wh_tile(a, b, c); break; // @transpose
    case 44: bcast_any(a, false, b >> 8, b & 255, c, d, e); break;
    case 45: copy_block_matmul_partials(a, b, c, d); break; // @copy_block
    case 46: pack_tile<true>(a, b, c); break; // @pack_out_of_order
    case 47: matmul_block(a >> 8, a & 255, b, c, d, 1, e >> 16, (e >> 8) & 255, e & 255); break; // @matmul_block_t
    case 40: cb_wait_front(a, b); break;
    case 41: cb_pop_front(a, b); break;
    case 42: cb_reserve_back(a, b); break;
    case 43: cb_push_back(a, b); break;
    case 50: MATH((add_tiles(a, b, c, d, e))); PACK((pack_tile(e, 16))); break;
    case 51: dest_reuse_any(b, true, a, 0, 0); break;
    case 52: dest_reuse_any(a, false, b, c, d); break;
    case 53: unary_bcast_any(c, 0, a, b, 0); break;
    case 54: unary_bcast_any(a, 1, b, c, d); break;
    case 55: unary_bcast_any(b, 2, a, 0, 0); break;
    default: ASSERT(false);
    }
  }
}
} // namespace NAMESPACE
)KERNEL";
  return source;
}

inline uint32_t compute_line(const std::string& marker) {
  std::istringstream in(compute_source());
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.size() >= tag.size() && line.compare(line.size() - tag.size(), tag.size(), tag) == 0) return n;
  ADD_FAILURE() << "no marker " << tag;
  return 0;
}

// "compute_ops.cpp:N: core (0,0) COMPUTE: " for the call marked `marker`.
inline std::string at(const std::string& marker) {
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
  kMmInit = 11,      // (in0, in1, out, transpose)
  kMmInitShort = 12, // (in0, in1, transpose)
  kMatmulInit = 13,  // (in0, in1, transpose)
  kMmBlockInit = 14, // (in0, in1, out, transpose)
  kReduceInit = 15,  // (cb, scaler, out, pool_dim)
  kReduceUninit = 16,
  kTransposeInit = 17, // (cb, -, out)
  kBcastInit = 18,     // (cb0, cb1, op_dim)
  kReconfigA = 19,     // (cb)
  kReconfigB = 26,
  kReconfigPack = 27,
  kCopyInitWithDt = 28,   // (old, new)
  kReconfigBoth = 29,     // (old a, new a, old b, new b)
  kMatmul = 35,           // (in0, in1, i0, i1, idst)
  kMatmulBlock = 36,      // ((in0 << 8) | in1, i0, i1, idst, (ct << 16) | (rt << 8) | kt)
  kMatmulT = 37,          // matmul_tiles with transpose = 1
  kReduce = 38,           // (cb, scaler, itile, itile_scaler, (pool_dim << 8) | idst)
  kTranspose = 39,        // (cb, itile, idst)
  kBcast = 44,            // (op_dim, (cb0 << 8) | cb1, i0, i1, idst)
  kCopyBlock = 45,        // (cb, itile, idst, n)
  kPackAt = 46,           // (idst, cb, page)
  kMatmulBlockT = 47,     // matmul_block with transpose = 1
  kDestReuseInit = 51,    // (cb, op_reuse)
  kDestReuse = 52,        // (op_reuse, cb, itile, idst)
  kUnaryBcastInit = 53,   // (cb, out, dim)
  kUnaryBcast = 54,       // (dim, cb, itile, idst)
  kUnaryBcastUninit = 55, // (cb, dim)
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
  DataFormat in1_format = DataFormat::Invalid; // CB 1's format; Invalid: in_format
  DataFormat out_format = DataFormat::Float16_b;
  bool fp32 = false;
  bool full_sync = false;
  MathFidelity fidelity = MathFidelity::HiFi4;
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
    const DataFormat in1_format = c.in1_format == DataFormat::Invalid ? c.in_format : c.in1_format;
    const uint32_t out_tile = tile_size(c.out_format);
    auto input = [&](const std::vector<float>& v, DataFormat format) {
      const uint32_t in_tile = tile_size(format);
      std::vector<float> values(v);
      values.resize(size_t(std::max(c.in_tiles, 1u)) * kTileHW, 0.0f);
      auto buf = Buffer::create(device_, {uint64_t(std::max(c.in_tiles, 1u)) * in_tile, in_tile, BufferType::DRAM});
      const std::vector<uint8_t> packed = pack_tiles(values, format);
      buf->write(packed.data(), packed.size());
      return buf;
    };
    in0_ = input(c.a, c.in_format);
    in1_ = input(c.b, in1_format);
    out_ = Buffer::create(device_, {uint64_t(std::max(c.out_pages, 1u)) * out_tile, out_tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    const uint32_t in_pages = std::max(c.in_tiles, 1u);
    for (uint8_t cb : {uint8_t(kIn0), uint8_t(kIn1)}) {
      const DataFormat format = cb == kIn0 ? c.in_format : in1_format;
      const uint32_t in_tile = tile_size(format);
      program.add_circular_buffer(core,
                                  CircularBufferConfig(in_pages * in_tile, {{cb, format}}).set_page_size(cb, in_tile));
    }
    program.add_circular_buffer(
        core,
        CircularBufferConfig(c.out_pages * out_tile, {{uint8_t(kOut), c.out_format}}).set_page_size(kOut, out_tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.fp32_dest_acc_en = c.fp32;
    config.dst_full_sync_en = c.full_sync;
    config.math_fidelity = c.fidelity;
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
inline std::vector<float> ramp(float scale, float offset) {
  std::vector<float> v(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i)
    v[i] = offset + scale * float(int(i % 16) - 8);
  return v;
}

// Steps for: init, wait inputs, acquire, op(idst 0), commit, wait, reserve, pack, push, release.
inline Steps one_tile(uint32_t init, uint32_t op, bool binary = true) {
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

} // namespace
} // namespace tessel::test
