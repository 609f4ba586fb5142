// softmax: ttnn's interleaved softmax along the last dimension, no mask and
// no scale, as its program factory builds it for an interleaved DRAM
// bfloat16 tiled tensor on one device (numeric_stable off):
//   ttnn/cpp/ttnn/operations/normalization/softmax/device/
//     softmax_program_factory_attention_optimized.cpp
//     (SoftmaxProgramFactoryAttentionOptimized::create)
//
// y[r][c] = exp(x[r][c]) / sum_c' exp(x[r][c']) over each row of a
// 1 x 1 x 64 x 256 tensor (2 x 8 tiles). The factory places its three
// kernels on the whole grid and splits the 2 tile rows row-wise
// (split_work_to_cores); cores without rows get zero counts. Each working
// core reads its rows in blocks of block_size = 8 tiles, the compute kernel
// keeps the row's exps in CB 6, reduces them to 1/sum (CB 7) with the
// reader's scaler tiles (CB 2 for the max reduce, CB 13 for the sum) and
// multiplies, and the writer stores the row.
//
// Check: every output against the float64 softmax of the bfloat16 inputs,
// within 2^-5 of the value plus 2^-12: exp, the bfloat16 exps, their sum,
// its reciprocal and the product each round to bfloat16 (2^-8 relative).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <exception>
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
constexpr const char* kOp = "softmax";
constexpr const char* kReader =
    "ttnn/cpp/ttnn/operations/normalization/softmax/device/kernels/attention/dataflow/reader_unary_interleaved_sm.cpp";
constexpr const char* kWriter = "ttnn/cpp/ttnn/operations/normalization/softmax/device/kernels/attention/dataflow/"
                                "writer_unary_interleaved_start_id_blocked_sm.cpp";
constexpr const char* kCompute =
    "ttnn/cpp/ttnn/operations/normalization/softmax/device/kernels/attention/compute/softmax.cpp";

// Metalium's find_max_divisor: the largest divisor of val not above start_max_div.
uint32_t find_max_divisor(uint32_t val, uint32_t start_max_div) {
  for (uint32_t d = start_max_div; d > 1; --d)
    if (val % d == 0) return d;
  return 1;
}

} // namespace

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kWriter, kCompute})) return ttnn_ops::kSkipped;
  constexpr uint32_t NC = 1, Ht = 2, Wt = 8;
  constexpr uint32_t H = Ht * kTile, W = Wt * kTile;

  auto device = ttnn_ops::open_device(kGrid);
  const CoreCoord grid = device->grid();
  const std::vector<float> x = ttnn_ops::random_bf16(size_t(H) * (W), 0x50f7 + 1, -4.0f, 4.0f);
  auto in = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  auto out = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  ttnn_ops::write_tiles(*in, ttnn_ops::bf16_tiles(x, H, W));

  // ---- SoftmaxProgramFactoryAttentionOptimized::create ----
  // The compute_kernel_config: HiFi4, exact exp, no fp32 DEST accumulation.
  const bool fp32_dest_acc_en = false, math_approx_mode = false;
  const bool numeric_stable = false;
  const bool mask_padded_data = false; // W is a whole number of tiles
  const uint32_t num_datum_padded = 0;
  const uint32_t tile_size = kTileBf16Bytes; // input, output, scalars and intermediates are all bfloat16

  const uint32_t block_size = fp32_dest_acc_en ? find_max_divisor(Wt, 4) : find_max_divisor(Wt, 8);
  const uint32_t in0_t = numeric_stable ? (Wt + block_size - 1) / block_size * block_size : block_size * 2;
  const uint32_t out0_t = block_size * 2;
  const uint32_t im1_t = 1, in2_t = 1, in5_t = 1;
  const uint32_t im0_t = block_size * ((Wt + block_size - 1) / block_size);
  if (im0_t != Wt || Wt % block_size != 0)
    throw std::runtime_error("softmax: the row of exps must be Wt tiles, in whole blocks");
  // The CBs use far less than 90% of L1: the small-tensor kernels run.
  const uint32_t cb_length = in0_t;

  const uint32_t num_tile_rows = NC * Ht;
  const WorkSplit split = split_work_to_cores(grid, num_tile_rows, /*row_wise=*/true);
  const CoreRangeSet all_device_cores(CoreRange({0, 0}, {grid.x - 1, grid.y - 1}));

  std::vector<uint32_t> reader_ct;
  TensorAccessorArgs(*in).append_to(reader_ct);
  std::vector<uint32_t> writer_ct = {num_datum_padded, kTile * kTile /* tile_hw */};
  TensorAccessorArgs(*out).append_to(writer_ct);

  Defines softmax_defines; // no FUSED_SCALE_MASK, CAUSAL_MASK or NUMERIC_STABLE
  Program program;
  const KernelHandle reader =
      program.add_kernel(kReader, all_device_cores, ttnn_ops::reader_config(reader_ct, softmax_defines));
  const KernelHandle writer = program.add_kernel(kWriter, all_device_cores, ttnn_ops::writer_config(writer_ct));
  softmax_defines["EXP_APPROX"] = math_approx_mode ? "1" : "0";
  softmax_defines["ENABLE_FP32_DEST_ACC"] = fp32_dest_acc_en ? "1" : "0";
  ComputeConfig compute_config;
  compute_config.math_fidelity = MathFidelity::HiFi4;
  compute_config.fp32_dest_acc_en = fp32_dest_acc_en;
  compute_config.math_approx_mode = math_approx_mode;
  compute_config.defines = softmax_defines;
  const KernelHandle compute = program.add_kernel(kCompute, all_device_cores, compute_config);

  program.add_circular_buffer(all_device_cores, tiles_cb(0, in0_t, DataFormat::Float16_b, tile_size));
  program.add_circular_buffer(all_device_cores, tiles_cb(11, out0_t, DataFormat::Float16_b, tile_size));
  program.add_circular_buffer(all_device_cores, tiles_cb(7, im1_t, DataFormat::Float16_b, tile_size));
  program.add_circular_buffer(all_device_cores, tiles_cb(2, in2_t, DataFormat::Float16_b, tile_size));
  // The sum's scaler tile, which the collected compute kernel waits for
  // beside the max's (CB 2), as the factory's later revision provides it.
  program.add_circular_buffer(all_device_cores, tiles_cb(13, in2_t, DataFormat::Float16_b, tile_size));
  program.add_circular_buffer(all_device_cores, tiles_cb(6, im0_t, DataFormat::Float16_b, tile_size));
  program.add_circular_buffer(all_device_cores, tiles_cb(5, in5_t, DataFormat::Float16_b, tile_size));

  const uint32_t scale_bits = std::bit_cast<uint32_t>(1.0f); // scale.value_or(1.0f)
  constexpr uint32_t kPackedOne = 0x3f803f80;                // two bfloat16 1.0: the reduce scaler
  uint32_t curr_row = 0;
  for (uint32_t i = 0; i < grid.x * grid.y; ++i) {
    const CoreCoord core{i % grid.x, i / grid.x};
    if (i >= split.num_cores) {
      program.set_runtime_args(reader, core, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, kPackedOne, 0});
      program.set_runtime_args(compute, core, {0, 0, 0, 0, 0, 0});
      program.set_runtime_args(writer, core, {0, 0, 0, 0, 0, 0});
      continue;
    }
    const uint32_t rows = split.group_1.contains(core) ? split.units_per_core_group_1 : split.units_per_core_group_2;
    const uint32_t tile_offset = curr_row * Wt;
    const uint32_t curr_ht = curr_row % Ht;
    const uint32_t mask_id = curr_row / Ht * Wt;
    program.set_runtime_args(reader, core,
                             {uint32_t(in->address()), block_size, scale_bits, rows, tile_offset, Wt, Ht,
                              0 /* mask_addr */, curr_ht, mask_id, kPackedOne, in0_t});
    program.set_runtime_args(compute, core, {rows, Ht, Wt, block_size, curr_ht, mask_padded_data, cb_length});
    program.set_runtime_args(
        writer, core,
        {uint32_t(out->address()), rows * Wt, tile_offset, block_size, mask_padded_data, num_datum_padded});
    curr_row += rows;
  }

  device->command_queue().enqueue_program(program);
  const std::vector<float> y = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out, NC * Ht * Wt), H, W);

  ttnn_ops::Verdict check(
      kOp, [&](size_t i) { return "row " + std::to_string(i / W) + ", column " + std::to_string(i % W); });
  for (uint32_t r = 0; r < H; ++r) {
    double sum = 0;
    for (uint32_t c = 0; c < W; ++c)
      sum += std::exp(double(x[size_t(r) * W + c]));
    for (uint32_t c = 0; c < W; ++c) {
      const double want = std::exp(double(x[size_t(r) * W + c])) / sum;
      check.check(size_t(r) * W + c, y[size_t(r) * W + c], want, std::ldexp(want, -5) + std::ldexp(1.0, -12));
    }
  }
  device->close();
  return check.report();
}

int main() { return ttnn_ops::run_guarded(kOp, run); }
