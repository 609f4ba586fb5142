// welford: ttnn's Welford variance along H and along W, as its program
// factory builds them for an interleaved DRAM bfloat16 tiled tensor on one
// device (no post-multiply, variance rather than standard deviation,
// fp32_dest_acc_en off):
//   ttnn/cpp/ttnn/operations/reduction/generic/device/
//     welford_reduce_program_factory.cpp
// with CBs 0 input, 2 scaler, 16 output and, along W, 19 (the variance
// between its two transposes). The factory's source is not part of the
// kernel layout: the CBs and arguments here are what its kernels read.
//
// Input: 1 x 1 x 50 x 100, padded to 64 x 128 (2 x 4 tiles); the padding
// holds 1000s, which the kernels leave out (welford_update_rows takes the
// last tile's valid rows).
//   var along H (welford_reduce_h.cpp, population variance): the 4 tile
//     columns split over the grid column-major (split_work_to_cores); the
//     reader (use_welford = 1) walks each core's columns one at a time down
//     H; an output tile's row 0 holds its 32 columns' variances.
//   var along W (welford_reduce_w.cpp, sample variance, correction = 1): the
//     2 tile rows split the same way; each row's tiles are transposed into
//     DST and streamed through welford_update; an output tile's column 0
//     holds its 32 rows' variances.
// The writer is eltwise/unary's writer_unary_interleaved_start_id.cpp.
//
// Check: every variance of the logical tensor against the float64 variance
// of the bfloat16 inputs, within 2^-7 relative (the variance reaches the
// 16-bit DST as SFPSTORE's truncation to bfloat16; along W the transpose
// back rounds once more) plus 1e-4 of the values' spread.
#include <bit>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/tiles.hpp"
#include "common/ttnn_ops.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

using namespace tessel;
namespace ttnn_ops = tessel::examples::ttnn_ops;
using ttnn_ops::kTile;
using ttnn_ops::tiles_cb;

namespace {

constexpr CoreCoord kGrid = CoreCoord{2, 2};
constexpr const char* kOp = "welford";
constexpr const char* kReaderW =
    "ttnn/cpp/ttnn/operations/reduction/generic/device/kernels/dataflow/reader_unary_reduce_universal_start_id.cpp";
constexpr const char* kReaderH = "ttnn/cpp/ttnn/operations/reduction/generic/device/kernels/dataflow/"
                                 "reader_unary_transpose_wh_universal_input_cols_partitioned.cpp";
constexpr const char* kComputeH =
    "ttnn/cpp/ttnn/operations/reduction/generic/device/kernels/compute/welford_reduce_h.cpp";
constexpr const char* kComputeW =
    "ttnn/cpp/ttnn/operations/reduction/generic/device/kernels/compute/welford_reduce_w.cpp";
constexpr const char* kWriter =
    "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp";

constexpr uint32_t NC = 1, Ht = 2, Wt = 4;
constexpr uint32_t H = 50, W = 100; // logical; padded to Ht x Wt tiles
constexpr uint32_t kInputCb = 0, kScalerCb = 2, kOutputCb = 16, kVarCb = 19;

std::vector<CoreCoord> grid_to_cores_col_major(uint32_t num, CoreCoord grid) {
  std::vector<CoreCoord> cores = ttnn_ops::grid_cores(grid, /*row_wise=*/false);
  cores.resize(num);
  return cores;
}

void add_cbs(Program& program, const CoreRangeSet& cores, bool reduce_w) {
  program.add_circular_buffer(cores, tiles_cb(kInputCb, 2));
  program.add_circular_buffer(cores, tiles_cb(kScalerCb, 1));
  program.add_circular_buffer(cores, tiles_cb(kOutputCb, 2));
  if (reduce_w) program.add_circular_buffer(cores, tiles_cb(kVarCb, 1)); // Float16_b without fp32_dest_acc_en
}

// {Ht or Wt, H or W, tile height or width, post_mul_scaler_bits, correction, is_std}.
ComputeConfig compute_config(std::vector<uint32_t> args, const Defines& defines, bool reduce_w) {
  ComputeConfig c;
  c.math_fidelity = MathFidelity::HiFi4;
  c.fp32_dest_acc_en = false;
  c.compile_args = std::move(args);
  c.defines = defines;
  if (reduce_w) c.named_compile_args = {{"welford_fp32_input", 0}};
  return c;
}

Defines reader_defines(const Defines& reduce_defines) {
  Defines d = reduce_defines;
  d["ENABLE_FP32_DEST_ACC"] = "0";
  d["DST_SYNC_FULL"] = "0";
  return d;
}

// Variance along H: one output tile per tile column.
Program var_h_program(CoreCoord grid, const Buffer& in, const Buffer& out) {
  const uint32_t num_cols = NC * Wt, HtWt = Ht * Wt;
  const WorkSplit split = split_work_to_cores(grid, num_cols);
  const Defines reduce_defines = {{"REDUCE_OP", "PoolType::SUM"}, {"REDUCE_DIM", "ReduceDim::REDUCE_COL"}};
  const uint32_t scaler_bits = std::bit_cast<uint32_t>(1.0f);
  const uint32_t post_mul_scaler_bits = std::bit_cast<uint32_t>(1.0f);

  Program program;
  add_cbs(program, split.all_cores, false);
  std::vector<uint32_t> reader_ct = {Ht, Wt, HtWt, scaler_bits, 1 /* use_welford */};
  TensorAccessorArgs(in).append_to(reader_ct);
  std::vector<uint32_t> writer_ct = {kOutputCb};
  TensorAccessorArgs(out).append_to(writer_ct);
  const KernelHandle reader =
      program.add_kernel(kReaderH, split.all_cores, ttnn_ops::reader_config(reader_ct, reader_defines(reduce_defines)));
  const KernelHandle writer = program.add_kernel(kWriter, split.all_cores, ttnn_ops::writer_config(writer_ct));
  const std::vector<uint32_t> compute_ct = {Ht, H, kTile, post_mul_scaler_bits, 0 /* correction */, 0 /* is_std */};
  const KernelHandle compute_1 =
      program.add_kernel(kComputeH, split.group_1, compute_config(compute_ct, reduce_defines, false));
  KernelHandle compute_2 = compute_1;
  if (!split.group_2.empty())
    compute_2 = program.add_kernel(kComputeH, split.group_2, compute_config(compute_ct, reduce_defines, false));

  uint32_t num_cols_read = 0;
  for (const CoreCoord& core : grid_to_cores_col_major(split.num_cores, grid)) {
    const bool first = split.group_1.contains(core);
    const uint32_t cols = first ? split.units_per_core_group_1 : split.units_per_core_group_2;
    program.set_runtime_args(
        reader, core,
        {uint32_t(in.address()), num_cols_read / Wt * HtWt + num_cols_read % Wt, num_cols_read % Wt, cols});
    program.set_runtime_args(writer, core, {uint32_t(out.address()), cols, num_cols_read});
    program.set_runtime_args(first ? compute_1 : compute_2, core, {cols});
    num_cols_read += cols;
  }
  return program;
}

// Variance along W: one output tile per tile row.
Program var_w_program(CoreCoord grid, const Buffer& in, const Buffer& out) {
  const uint32_t num_rows = NC * Ht;
  const WorkSplit split = split_work_to_cores(grid, num_rows);
  const Defines reduce_defines = {{"REDUCE_OP", "PoolType::SUM"}, {"REDUCE_DIM", "ReduceDim::REDUCE_ROW"}};
  const uint32_t scaler_bits = std::bit_cast<uint32_t>(1.0f);
  const uint32_t post_mul_scaler_bits = std::bit_cast<uint32_t>(1.0f);

  Program program;
  add_cbs(program, split.all_cores, true);
  std::vector<uint32_t> reader_ct = {scaler_bits};
  TensorAccessorArgs(in).append_to(reader_ct);
  std::vector<uint32_t> writer_ct = {kOutputCb};
  TensorAccessorArgs(out).append_to(writer_ct);
  const KernelHandle reader =
      program.add_kernel(kReaderW, split.all_cores, ttnn_ops::reader_config(reader_ct, reader_defines(reduce_defines)));
  const KernelHandle writer = program.add_kernel(kWriter, split.all_cores, ttnn_ops::writer_config(writer_ct));
  const std::vector<uint32_t> compute_ct = {Wt, W, kTile, post_mul_scaler_bits, 1 /* correction */, 0 /* is_std */};
  const KernelHandle compute_1 =
      program.add_kernel(kComputeW, split.group_1, compute_config(compute_ct, reduce_defines, true));
  KernelHandle compute_2 = compute_1;
  if (!split.group_2.empty())
    compute_2 = program.add_kernel(kComputeW, split.group_2, compute_config(compute_ct, reduce_defines, true));

  uint32_t num_tiles_read = 0;
  for (const CoreCoord& core : grid_to_cores_col_major(split.num_cores, grid)) {
    const bool first = split.group_1.contains(core);
    const uint32_t rows = first ? split.units_per_core_group_1 : split.units_per_core_group_2;
    const uint32_t tiles = rows * Wt;
    program.set_runtime_args(reader, core, {uint32_t(in.address()), tiles, num_tiles_read});
    program.set_runtime_args(writer, core, {uint32_t(out.address()), rows, num_tiles_read / Wt});
    program.set_runtime_args(first ? compute_1 : compute_2, core, {rows});
    num_tiles_read += tiles;
  }
  return program;
}

// The float64 variance of n values read by at(i), population or sample.
template <class At>
double variance(uint32_t n, At at, bool sample) {
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i)
    sum += at(i);
  const double mean = sum / n;
  double sq = 0;
  for (uint32_t i = 0; i < n; ++i)
    sq += (at(i) - mean) * (at(i) - mean);
  return sq / (n - (sample ? 1 : 0));
}

} // namespace

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReaderW, kReaderH, kComputeH, kComputeW, kWriter})) return ttnn_ops::kSkipped;
  auto device = ttnn_ops::open_device(kGrid);
  const CoreCoord grid = device->grid();
  constexpr uint32_t rows = Ht * kTile, cols = Wt * kTile;
  // Values in [-1, 1) plus a per-column offset; 1000 in the padding.
  const std::vector<float> noise = ttnn_ops::random_bf16(size_t(rows) * cols, 0x3e1f0 + 7, -1.0f, 1.0f);
  std::vector<float> x(size_t(rows) * cols, 1000.0f);
  for (uint32_t r = 0; r < H; ++r)
    for (uint32_t c = 0; c < W; ++c)
      x[size_t(r) * cols + c] = noise[size_t(r) * cols + c] + float(c % 5);
  x = ttnn_ops::from_bf16(ttnn_ops::to_bf16(x)); // what the device reads
  auto in = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  ttnn_ops::write_tiles(*in, ttnn_ops::bf16_tiles(x, rows, cols));

  ttnn_ops::Verdict check(kOp, [&](size_t i) {
    return i < W ? "var along H of column " + std::to_string(i) : "var along W of row " + std::to_string(i - W);
  });
  auto bound = [](double want) { return std::ldexp(std::fabs(want), -7) + 1e-4; };

  auto out_h = ttnn_ops::dram_tiles(device, NC * Wt);
  Program h = var_h_program(grid, *in, *out_h);
  device->command_queue().enqueue_program(h);
  const std::vector<float> var_h = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out_h, NC * Wt), kTile, cols);
  for (uint32_t c = 0; c < W; ++c) {
    const double want = variance(
        H, [&](uint32_t r) { return double(x[size_t(r) * cols + c]); }, false);
    check.check(c, var_h[c], want, bound(want));
  }

  auto out_w = ttnn_ops::dram_tiles(device, NC * Ht);
  Program w = var_w_program(grid, *in, *out_w);
  device->command_queue().enqueue_program(w);
  const std::vector<float> var_w = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out_w, NC * Ht), rows, kTile);
  for (uint32_t r = 0; r < H; ++r) {
    const double want = variance(
        W, [&](uint32_t c) { return double(x[size_t(r) * cols + c]); }, true);
    check.check(W + r, var_w[size_t(r) * kTile], want, bound(want));
  }
  device->close();
  // Values 0..W-1 are the variances along H, W.. those along W.
  return check.report();
}

int main() { return ttnn_ops::run_guarded(kOp, run); }
