// reduce: ttnn's generic sum reductions along W and along H, as their
// program factories build them for an interleaved DRAM bfloat16 tiled
// tensor on one device (scaler 1, no negate, no post-multiply):
//   ttnn/cpp/ttnn/operations/reduction/generic/device/
//     reduce_op_multi_core_w_program_factory.cpp (ReduceMultiCoreWProgramFactory)
//     reduce_op_multi_core_h_program_factory.cpp (ReduceMultiCoreHProgramFactory)
// in their ProgramDescriptor form (positional compile-time arguments, CBs
// 0 input, 2 scaler, 3 output), the form their kernels here read; those
// kernels dispatch on REDUCE_OP and the CB's format, so no REDUCE_FORMAT
// define is passed.
//
// Input: 1 x 1 x 64 x 128 (2 x 4 tiles).
//   reduce_w (REDUCE_ROW): the 2 tile rows split over the grid column-major
//     (split_work_to_cores, grid_to_cores(..., false)); each core streams its
//     rows' tiles and writes one output tile per row, sums in column 0.
//   reduce_h (REDUCE_COL): the 4 tile columns split the same way; the reader
//     walks each core's columns down H in DEST-sized chunks and the output
//     tile of a column holds its sums in row 0.
// The writer is eltwise/unary's writer_unary_interleaved_start_id.cpp.
//
// Check: every sum against the float64 sum of the bfloat16 inputs, within
// (tiles reduced + 2) bfloat16 roundings (2^-8 relative) of sum |x|.
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
using ttnn_ops::kTileBf16Bytes;
using ttnn_ops::tiles_cb;

namespace {

constexpr CoreCoord kGrid = CoreCoord{2, 2};
constexpr const char* kOp = "reduce";
constexpr const char* kReaderW =
    "ttnn/cpp/ttnn/operations/reduction/generic/device/kernels/dataflow/reader_unary_reduce_universal_start_id.cpp";
constexpr const char* kReaderH = "ttnn/cpp/ttnn/operations/reduction/generic/device/kernels/dataflow/"
                                 "reader_unary_transpose_wh_universal_input_cols_partitioned.cpp";
constexpr const char* kCompute = "ttnn/cpp/ttnn/operations/reduction/generic/device/kernels/compute/reduce.cpp";
constexpr const char* kWriter =
    "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp";

constexpr uint32_t NC = 1, Ht = 2, Wt = 4;
constexpr uint32_t H = Ht * kTile, W = Wt * kTile;
constexpr uint32_t kInputCb = 0, kScalerCb = 2, kOutputCb = 3;

// Metalium's grid_to_cores(num, grid.x, grid.y, row_wise = false): the
// first num cores, column by column.
std::vector<CoreCoord> grid_to_cores_col_major(uint32_t num, CoreCoord grid) {
  std::vector<CoreCoord> cores = ttnn_ops::grid_cores(grid, /*row_wise=*/false);
  cores.resize(num);
  return cores;
}

// The CBs both factories create for the interleaved, non-negated case.
void add_cbs(Program& program, const CoreRangeSet& cores) {
  program.add_circular_buffer(cores, tiles_cb(kInputCb, 2));
  program.add_circular_buffer(cores, tiles_cb(kScalerCb, 1)); // Float16_b for a bfloat16 input
  program.add_circular_buffer(cores, tiles_cb(kOutputCb, 2));
}

ComputeConfig compute_config(std::vector<uint32_t> args, const Defines& defines) {
  // The default reduce compute config: HiFi4, no fp32 DEST accumulation,
  // half-sync DEST.
  ComputeConfig c;
  c.math_fidelity = MathFidelity::HiFi4;
  c.fp32_dest_acc_en = false;
  c.dst_full_sync_en = false;
  c.compile_args = std::move(args);
  c.defines = defines;
  return c;
}

// ReduceMultiCoreWProgramFactory: sum along W.
Program reduce_w_program(CoreCoord grid, const Buffer& in, const Buffer& out) {
  const uint32_t num_rows = NC * Ht;
  const WorkSplit split = split_work_to_cores(grid, num_rows);
  const Defines reduce_defines = {{"REDUCE_OP", "PoolType::SUM"}, {"REDUCE_DIM", "ReduceDim::REDUCE_ROW"}};
  const uint32_t scaler_bits = std::bit_cast<uint32_t>(1.0f);
  const uint32_t post_mul_scaler_bits = std::bit_cast<uint32_t>(1.0f);

  Program program;
  add_cbs(program, split.all_cores);
  std::vector<uint32_t> reader_ct = {scaler_bits};
  TensorAccessorArgs(in).append_to(reader_ct);
  std::vector<uint32_t> writer_ct = {kOutputCb};
  TensorAccessorArgs(out).append_to(writer_ct);
  const KernelHandle reader =
      program.add_kernel(kReaderW, split.all_cores, ttnn_ops::reader_config(reader_ct, reduce_defines));
  const KernelHandle writer = program.add_kernel(kWriter, split.all_cores, ttnn_ops::writer_config(writer_ct));
  program.add_kernel(kCompute, split.group_1,
                     compute_config({split.units_per_core_group_1, Wt, 1, post_mul_scaler_bits}, reduce_defines));
  if (!split.group_2.empty())
    program.add_kernel(kCompute, split.group_2,
                       compute_config({split.units_per_core_group_2, Wt, 1, post_mul_scaler_bits}, reduce_defines));

  uint32_t num_tiles_read = 0;
  for (const CoreCoord& core : grid_to_cores_col_major(split.num_cores, grid)) {
    const uint32_t rows = split.group_1.contains(core) ? split.units_per_core_group_1 : split.units_per_core_group_2;
    const uint32_t tiles = rows * Wt;
    program.set_runtime_args(reader, core, {uint32_t(in.address()), tiles, num_tiles_read});
    program.set_runtime_args(writer, core, {uint32_t(out.address()), tiles / Wt, num_tiles_read / Wt});
    num_tiles_read += tiles;
  }
  return program;
}

// ReduceMultiCoreHProgramFactory: sum along H.
Program reduce_h_program(CoreCoord grid, const Buffer& in, const Buffer& out) {
  const uint32_t num_cols = NC * Wt, HtWt = Ht * Wt;
  const WorkSplit split = split_work_to_cores(grid, num_cols);
  const Defines reduce_defines = {{"REDUCE_OP", "PoolType::SUM"}, {"REDUCE_DIM", "ReduceDim::REDUCE_COL"}};
  const uint32_t scaler_bits = std::bit_cast<uint32_t>(1.0f);
  const uint32_t post_mul_scaler_bits = std::bit_cast<uint32_t>(1.0f);
  // The reader sizes its column chunks from the DEST configuration, as the
  // compute kernel does: the factory passes it as defines.
  Defines reader_defines = reduce_defines;
  reader_defines["ENABLE_FP32_DEST_ACC"] = "0";
  reader_defines["DST_SYNC_FULL"] = "0";

  Program program;
  add_cbs(program, split.all_cores);
  std::vector<uint32_t> reader_ct = {Ht, Wt, HtWt, scaler_bits, 0 /* use_welford */};
  TensorAccessorArgs(in).append_to(reader_ct);
  std::vector<uint32_t> writer_ct = {kOutputCb};
  TensorAccessorArgs(out).append_to(writer_ct);
  const KernelHandle reader =
      program.add_kernel(kReaderH, split.all_cores, ttnn_ops::reader_config(reader_ct, reader_defines));
  const KernelHandle writer = program.add_kernel(kWriter, split.all_cores, ttnn_ops::writer_config(writer_ct));
  program.add_kernel(kCompute, split.group_1,
                     compute_config({Ht, split.units_per_core_group_1, 1, post_mul_scaler_bits}, reduce_defines));
  if (!split.group_2.empty())
    program.add_kernel(kCompute, split.group_2,
                       compute_config({Ht, split.units_per_core_group_2, 1, post_mul_scaler_bits}, reduce_defines));

  uint32_t num_cols_read = 0;
  for (const CoreCoord& core : grid_to_cores_col_major(split.num_cores, grid)) {
    const uint32_t cols = split.group_1.contains(core) ? split.units_per_core_group_1 : split.units_per_core_group_2;
    program.set_runtime_args(
        reader, core,
        {uint32_t(in.address()), num_cols_read / Wt * HtWt + num_cols_read % Wt, num_cols_read % Wt, cols});
    program.set_runtime_args(writer, core, {uint32_t(out.address()), cols, num_cols_read});
    num_cols_read += cols;
  }
  return program;
}

} // namespace

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReaderW, kReaderH, kCompute, kWriter})) return ttnn_ops::kSkipped;
  auto device = ttnn_ops::open_device(kGrid);
  const CoreCoord grid = device->grid();
  const std::vector<float> x = ttnn_ops::random_bf16(size_t(H) * (W), 0x5e0ce + 1, -1.0f, 1.0f);
  auto in = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  ttnn_ops::write_tiles(*in, ttnn_ops::bf16_tiles(x, H, W));

  ttnn_ops::Verdict check(kOp, [&](size_t i) {
    return (i < H ? "reduce_w: the sum of row " + std::to_string(i)
                  : "reduce_h: the sum of column " + std::to_string(i - H));
  });
  // reduce_w: output [1, 1, H, 32], row r's sum at column 0.
  auto out_w = ttnn_ops::dram_tiles(device, NC * Ht);
  Program w = reduce_w_program(grid, *in, *out_w);
  device->command_queue().enqueue_program(w);
  const std::vector<float> sums_w = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out_w, NC * Ht), H, kTile);
  for (uint32_t r = 0; r < H; ++r) {
    double want = 0, magnitude = 0;
    for (uint32_t c = 0; c < W; ++c)
      want += x[size_t(r) * W + c], magnitude += std::fabs(x[size_t(r) * W + c]);
    check.check(r, sums_w[size_t(r) * kTile], want, std::ldexp(magnitude, -8) * (Wt + 2));
  }
  // reduce_h: output [1, 1, 32, W], column c's sum at row 0.
  auto out_h = ttnn_ops::dram_tiles(device, NC * Wt);
  Program h = reduce_h_program(grid, *in, *out_h);
  device->command_queue().enqueue_program(h);
  const std::vector<float> sums_h = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out_h, NC * Wt), kTile, W);
  for (uint32_t c = 0; c < W; ++c) {
    double want = 0, magnitude = 0;
    for (uint32_t r = 0; r < H; ++r)
      want += x[size_t(r) * W + c], magnitude += std::fabs(x[size_t(r) * W + c]);
    check.check(H + c, sums_h[c], want, std::ldexp(magnitude, -8) * (Ht + 2));
  }
  device->close();
  // Sums 0..H-1 are reduce_w's rows, H.. reduce_h's columns.
  return check.report();
}

int main() { return ttnn_ops::run_guarded(kOp, run); }
