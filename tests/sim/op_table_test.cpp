// The compute ops through the whole device path (reader -> CB -> unpack ->
// DST -> op -> pack -> CB -> writer), driven by one op table
// (op_table_rows.hpp): each row is an op with its parameters, the input
// domain, a float64 reference and the error bound the result must meet. Every row runs over the CB formats it
// applies to (Float16_b, Float32, Bfp8_b) and every DST mode (half and full
// sync, fp32_dest_acc_en off and on), against the reference computed on the
// exact values DST holds. The rows are the SFPU ops and the FPU tile ops
// whose result element depends on one element of each operand (add_tiles,
// sub_tiles, mul_tiles, their row/column/scalar broadcasts and
// transpose_wh_tile; their operands pass through the 19-bit source
// registers, except a Float32 transpose into a 32-bit DST, which happens in
// DST). matmul and reduce, which sum, have their own tests
// (compute_fpu_test.cpp) and run in every format in the examples. The
// misuse cases at the end check the engine's messages for SFPU calls.
//
// Bounds. A row states its error in the unit it is specified in: `ulps` of
// the result's precision (bfloat16 when DST is 16-bit or the output CB is
// Float16_b, float otherwise), `rel` relative to the reference and `abs`
// absolute. On top of the row's bound every case allows what the data path
// adds, stated once here: half a float ULP when an exact float result is then
// rounded to bfloat16 (double rounding), 2^-126 for results that flush to
// zero, and one LSB of the 16-value group for a Bfp8_b output.
//
// One compute kernel ("sfpu_ops.cpp", a step interpreter, sfpu_ops_kernel.hpp)
// runs everything: it compiles once per DST mode and math_approx_mode (8
// builds, cached).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "op_table_rows.hpp"
#include "ops_kernel.hpp"
#include "sfpu_ops_kernel.hpp"
#include "tessel/kernel_abi.h"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

uint32_t kernel_line(const std::string& marker) {
  std::istringstream in(kernel_source());
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.size() >= tag.size() && line.compare(line.size() - tag.size(), tag.size(), tag) == 0) return n;
  ADD_FAILURE() << "no marker " << tag;
  return 0;
}
std::string site(const std::string& marker) {
  return std::string(kKernelName) + ":" + std::to_string(kernel_line(marker));
}
// "sfpu_ops.cpp:N: core (0,0) COMPUTE: " for the call marked `marker`.
std::string at(const std::string& marker) { return site(marker) + ": core (0,0) COMPUTE: "; }

using namespace op_rows;

struct DstMode {
  bool full_sync, fp32;
  const char* text;
};
const DstMode kDstModes[] = {{false, false, "half-sync 16-bit"},
                             {false, true, "half-sync fp32"},
                             {true, false, "full-sync 16-bit"},
                             {true, true, "full-sync fp32"}};

struct FormatCase {
  FormatMask bit;
  DataFormat format;
};
const FormatCase kFormats[] = {
    {kF16b, DataFormat::Float16_b}, {kF32, DataFormat::Float32}, {kBfp8, DataFormat::Bfp8_b}};

// ---- Inputs, DST values and the bound ----

std::vector<float> inputs(const Domain& d, uint64_t seed) {
  std::vector<float> v(kTileHW);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = double(state >> 11) / double(1ull << 53);
    x = float(d.lo + (d.hi - d.lo) * u);
    if (d.signed_magnitude && (state >> 7 & 1)) x = -x;
  }
  return v;
}

// A Float32 value in a 19-bit source register: 10 explicit mantissa bits.
float src_register(float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & ~0x1fffu); }

// What a CB of `format` holds for v, as the FPU's source registers see it.
std::vector<float> through_src(const std::vector<float>& v, DataFormat format) {
  std::vector<float> q = unpack_tiles(pack_tiles(v, format), format);
  if (format == DataFormat::Float32)
    for (float& x : q)
      x = src_register(x);
  return q;
}

// What a CB of `format` holds for v, then what copy_tile leaves in DST: a
// 32-bit DST gets Float32 CBs unpacked straight to it (UnpackToDestFp32, set
// by build()); a 16-bit DST gets them through SrcA, then rounded.
std::vector<float> through_cb_and_dst(const std::vector<float>& v, DataFormat format, bool fp32) {
  std::vector<float> q = fp32 ? unpack_tiles(pack_tiles(v, format), format) : through_src(v, format);
  if (!fp32)
    for (float& x : q)
      x = bf16_to_float(float_to_bf16(x));
  return q;
}

// One ULP of precision `mantissa_bits` (explicit bits) at the magnitude of r.
double ulp(double r, int mantissa_bits) {
  int e = 0;
  std::frexp(r, &e);
  return std::ldexp(1.0, std::max(e - 1, -126) - mantissa_bits);
}

// The allowed |result - ref| for element i (see the file comment).
struct Allowance {
  const Row& row;
  bool bf16_result; // DST or the output CB rounds to bfloat16
  DataFormat out;
  const std::vector<double>& refs;

  double at(size_t i) const {
    const double r = refs[i];
    const int bits = bf16_result ? 7 : 23;
    double a = row.bound.ulps * ulp(r, bits) + row.bound.rel * std::fabs(r) + row.bound.abs + 0x1p-126;
    if (bf16_result) a += 0.5 * ulp(r, 23);
    if (out == DataFormat::Bfp8_b) {
      const size_t g = i / kBfpGroupSize * kBfpGroupSize;
      double max_ref = 0;
      for (size_t j = g; j < g + kBfpGroupSize; ++j)
        max_ref = std::max(max_ref, std::fabs(refs[j]));
      int e = 0;
      std::frexp(max_ref * (1 + 0x1p-7), &e); // the group's exponent, rounding up included
      a += std::ldexp(1.0, e - 1 - 6);
    }
    return a;
  }
};

class OpTableTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  struct Run {
    DataFormat in, out;
    DstMode mode;
    bool approx_mode = false;
    std::vector<const Row*> rows; // one tile each
    std::vector<float> a, b;      // inputs, rows.size() tiles each
  };

  // Runs the rows (one tile each) and returns the output tiles as floats.
  std::vector<float> run(const Run& r) {
    const uint32_t tiles = uint32_t(r.rows.size());
    std::vector<uint32_t> args = {0};
    auto step = [&](uint32_t code, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, uint32_t d = 0) {
      args.insert(args.end(), {code, a, b, c, d});
      ++args[0];
    };
    step(kInitSfpu, 0, 0, 16);
    for (const Row* row : r.rows)
      step(kRow,
           row->kind == Kind::SfpuBinary  ? kBinary + row->op
           : row->kind == Kind::FpuBinary ? kFpu + row->op
                                          : row->op,
           row->p0, row->approx, row->p1);
    Program program = build(r.in, r.out, r.mode, r.approx_mode, tiles, tiles, args);
    write_inputs(r.in, r.a, r.b, tiles);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(size_t(tiles) * tile_size(r.out));
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, r.out);
  }

  // Runs `args` (steps) expecting a KernelError; returns its message and checks the device still works.
  std::string fails(const std::vector<uint32_t>& steps, const DstMode& mode = kDstModes[0]) {
    std::vector<uint32_t> args = {uint32_t(steps.size() / 5)};
    args.insert(args.end(), steps.begin(), steps.end());
    Program program = build(DataFormat::Float16_b, DataFormat::Float16_b, mode, false, 1, 0, args);
    write_inputs(DataFormat::Float16_b, std::vector<float>(kTileHW, 1.0f), std::vector<float>(kTileHW, 2.0f), 1);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    expect_device_works(device_);
    return message;
  }

  Program build(DataFormat in, DataFormat out, const DstMode& mode, bool approx_mode, uint32_t in_tiles,
                uint32_t out_tiles, const std::vector<uint32_t>& compute_args) {
    const uint32_t in_tile = tile_size(in), out_tile = tile_size(out);
    in0_ = Buffer::create(device_, {uint64_t(in_tiles) * in_tile, in_tile, BufferType::DRAM});
    in1_ = Buffer::create(device_, {uint64_t(in_tiles) * in_tile, in_tile, BufferType::DRAM});
    out_ = Buffer::create(device_, {uint64_t(std::max(out_tiles, 1u)) * out_tile, out_tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    for (uint8_t cb : {uint8_t(0), uint8_t(1)})
      program.add_circular_buffer(core,
                                  CircularBufferConfig(in_tiles * in_tile, {{cb, in}}).set_page_size(cb, in_tile));
    program.add_circular_buffer(
        core,
        CircularBufferConfig(std::max(out_tiles, 1u) * out_tile, {{uint8_t(16), out}}).set_page_size(16, out_tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.fp32_dest_acc_en = mode.fp32;
    config.dst_full_sync_en = mode.full_sync;
    config.math_approx_mode = approx_mode;
    if (in == DataFormat::Float32 && mode.fp32)
      config.unpack_to_dest_mode = {UnpackToDestMode::UnpackToDestFp32, UnpackToDestMode::UnpackToDestFp32};
    KernelHandle compute = program.add_kernel_from_source(kernel_source(), kKernelName, core, config);
    program.set_runtime_args(reader, core, {0, in0_->address(), in_tiles, 1, in1_->address(), in_tiles});
    program.set_runtime_args(writer, core, {16, out_->address(), out_tiles});
    program.set_runtime_args(compute, core, compute_args);
    return program;
  }

  void write_inputs(DataFormat format, const std::vector<float>& a, const std::vector<float>& b, uint32_t tiles) {
    std::vector<float> va(a), vb(b);
    va.resize(size_t(tiles) * kTileHW, 0.0f);
    vb.resize(size_t(tiles) * kTileHW, 0.0f);
    const std::vector<uint8_t> pa = pack_tiles(va, format), pb = pack_tiles(vb, format);
    in0_->write(pa.data(), pa.size());
    in1_->write(pb.data(), pb.size());
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in0_, in1_, out_;
};

// Rows per program: each takes 5 of the kernel's runtime arguments (at most
// 341 per core).
constexpr size_t kMaxRowsPerRun = 64;

// Every row x CB format x DST mode. Rows sharing an output format and
// math_approx_mode run as one program (up to kMaxRowsPerRun), one tile per row.
TEST_F(OpTableTest, EveryOpWithinItsBound) {
  const std::vector<Row>& table = op_table();
  for (const FormatCase& fc : kFormats) {
    for (const DstMode& mode : kDstModes) {
      // Group rows into runs.
      std::vector<Run> runs;
      for (size_t ri = 0; ri < table.size(); ++ri) {
        const Row& row = table[ri];
        if (!(row.formats & fc.bit)) continue;
        const DataFormat out = row.out == DataFormat::Invalid ? fc.format : row.out;
        const bool approx_mode = row.approx && approx_by_config(row.op);
        Run* target = nullptr;
        for (Run& r : runs)
          if (r.out == out && r.approx_mode == approx_mode && r.rows.size() < kMaxRowsPerRun) target = &r;
        if (!target) {
          runs.push_back(Run{fc.format, out, mode, approx_mode, {}, {}, {}});
          target = &runs.back();
        }
        target->rows.push_back(&row);
        const std::vector<float> a = inputs(row.a, 2 * ri + 1);
        const std::vector<float> b = row.kind != Kind::SfpuUnary ? inputs(row.b, 2 * ri + 2) : a;
        target->a.insert(target->a.end(), a.begin(), a.end());
        target->b.insert(target->b.end(), b.begin(), b.end());
      }
      for (const Run& r : runs) {
        const std::vector<float> got = run(r);
        ASSERT_EQ(got.size(), r.rows.size() * kTileHW);
        // SFPU rows see what copy_tile leaves in DST; FPU rows their source-register operands,
        // except a transpose of a Float32 CB into a 32-bit DST, which unpacks to DST and
        // transposes there (all 32 bits).
        const std::vector<float> da = through_cb_and_dst(r.a, r.in, mode.fp32);
        const std::vector<float> db = through_cb_and_dst(r.b, r.in, mode.fp32);
        const std::vector<float> sa = through_src(r.a, r.in), sb = through_src(r.b, r.in);
        const bool in_dest = mode.fp32 && r.in == DataFormat::Float32;
        for (size_t t = 0; t < r.rows.size(); ++t) {
          const Row& row = *r.rows[t];
          const std::vector<float>& a_fpu = row.layout == Row::Layout::TransposeA && in_dest ? da : sa;
          std::vector<double> refs(kTileHW);
          for (uint32_t i = 0; i < kTileHW; ++i)
            refs[i] = row.kind == Kind::FpuBinary ? row.ref(a_fpu[t * kTileHW + source_index(row.layout, false, i)],
                                                            sb[t * kTileHW + source_index(row.layout, true, i)])
                                                  : row.ref(da[t * kTileHW + i], db[t * kTileHW + i]);
          const bool bf16_result = !mode.fp32 || r.out == DataFormat::Float16_b;
          const Allowance allow{row, bf16_result, r.out, refs};
          uint32_t bad = 0;
          std::string first;
          for (uint32_t i = 0; i < kTileHW; ++i) {
            const double y = got[t * kTileHW + i];
            const double err = std::fabs(y - refs[i]);
            if (!(err <= allow.at(i))) {
              if (!bad++) {
                std::ostringstream os;
                os.precision(9);
                os << "x = " << da[t * kTileHW + i] << ": got " << y << ", want " << refs[i] << " (error " << err
                   << ", allowed " << allow.at(i) << ")";
                first = os.str();
              }
            }
          }
          EXPECT_EQ(bad, 0u) << row.name << " with " << to_string(r.in) << " -> " << to_string(r.out) << " CBs, "
                             << mode.text << " DST: " << bad << " values outside the bound, first " << first;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Misuse

std::vector<uint32_t> steps(std::initializer_list<std::initializer_list<uint32_t>> list) {
  std::vector<uint32_t> v;
  for (const auto& s : list) {
    std::vector<uint32_t> w(s);
    w.resize(5, 0);
    v.insert(v.end(), w.begin(), w.end());
  }
  return v;
}

TEST_F(OpTableTest, SfpuOpWithoutItsInit) {
  // No SFPU init at all.
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kWaitCb, 0, 1}, {kAcquire}, {kCopy, 0, 0, 0}, {kOp, 0, 0}})),
            at("exp_tile") + "exp_tile(idst=0): the SFPU is not configured for exp_tile: call exp_tile_init() first "
                             "(no SFPU init was called in this kernel)");
  // The most recent SFPU init configured another op.
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16},
                         {kWaitCb, 0, 1},
                         {kAcquire},
                         {kCopy, 0, 0, 0},
                         {kOpInit, TESSEL_SFPU_RELU},
                         {kOp, 0, 0}})),
            at("exp_tile") +
                "exp_tile(idst=0): the SFPU is not configured for exp_tile: call exp_tile_init() first "
                "(the last SFPU init was relu_tile_init at " +
                site("relu_tile_init") + ")");
  // A unary init does not configure a binary op, nor a binary init a unary one.
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16},
                         {kAcquire},
                         {kOpInit, TESSEL_SFPU_RELU},
                         {kOp, kBinary + TESSEL_SFPU_BINARY_ADD, 0}})),
            at("add_binary_tile") +
                "add_binary_tile(idst0=0, idst1=1, odst=0): the SFPU is not configured for "
                "add_binary_tile: call add_binary_tile_init() first (the last SFPU init was "
                "relu_tile_init at " +
                site("relu_tile_init") + ")");
  EXPECT_EQ(
      fails(steps(
          {{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, kBinary + TESSEL_SFPU_BINARY_ADD}, {kOp, TESSEL_SFPU_EXP, 0}})),
      at("exp_tile") +
          "exp_tile(idst=0): the SFPU is not configured for exp_tile: call exp_tile_init() first "
          "(the last SFPU init was add_binary_tile_init at " +
          site("add_binary_tile_init") + ")");
}

TEST_F(OpTableTest, SfpuIndexBeyondCapacity) {
  for (const DstMode& mode : kDstModes) {
    const uint32_t cap = (mode.full_sync ? 16u : 8u) >> (mode.fp32 ? 1 : 0);
    const std::string text = std::string(mode.full_sync ? "full-sync" : "half-sync") +
                             (mode.fp32 ? " with fp32_dest_acc_en" : " with 16-bit DST");
    const std::string range = " is out of range: one acquire holds " + std::to_string(cap) + " tiles in " + text +
                              " mode (indices 0.." + std::to_string(cap - 1) +
                              "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)";
    const std::string c = std::to_string(cap);
    EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, TESSEL_SFPU_EXP}, {kOp, TESSEL_SFPU_EXP, cap}}),
                    mode),
              at("exp_tile") + "exp_tile(idst=" + c + "): DST index " + c + range)
        << mode.text;
    // A binary op checks its second operand (DST[idst + 1] here) too.
    const std::string last = std::to_string(cap - 1);
    EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16},
                           {kAcquire},
                           {kOpInit, kBinary + TESSEL_SFPU_BINARY_ADD},
                           {kOp, kBinary + TESSEL_SFPU_BINARY_ADD, cap - 1}}),
                    mode),
              at("add_binary_tile") + "add_binary_tile(idst0=" + last + ", idst1=" + c + ", odst=" + last +
                  "): DST index " + c + range)
        << mode.text;
  }
}

TEST_F(OpTableTest, SfpuWithoutDstOrWholeTile) {
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kOpInit, TESSEL_SFPU_EXP}, {kOp, TESSEL_SFPU_EXP, 0}})),
            at("exp_tile") + "exp_tile(idst=0): MATH does not hold DST: call tile_regs_acquire (or acquire_dst) "
                             "before writing DST");
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, TESSEL_SFPU_EXP}, {kExpVectorMode, 1}})),
            at("exp_vector_mode") + "SFPU op with a vector mode other than VectorMode::RC: tessel models SFPU ops "
                                    "on whole tiles only (pass VectorMode::RC, the default)");
  EXPECT_EQ(fails(steps({{kInitSfpu, 0, 0, 16}, {kAcquire}, {kOpInit, TESSEL_SFPU_EXP}, {kExpScaled, 0x4000}})),
            at("exp_scaled") + "exp_tile: input scaling (scale_en with a scale other than 1.0) is not modelled by "
                               "tessel");
}

} // namespace
} // namespace tessel::test
