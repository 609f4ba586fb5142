// layernorm: ttnn's interleaved multi-core layer norm with gamma and beta,
// as its program factory builds it for interleaved DRAM bfloat16 tiled
// tensors on one device (LayerNormDefaultProgramConfig: no Welford, no
// legacy reduction or rsqrt; no residual input, no fused activation):
//   ttnn/cpp/ttnn/operations/normalization/layernorm/device/
//     layernorm_op_multi_core.cpp (LayerNormMultiCoreProgramFactory::create_descriptor)
//
// y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta along each row of a
// 1 x 1 x 64 x 256 tensor (2 x 8 tiles); gamma and beta are TILE-layout
// [1, 1, 32, 256] tensors whose row 0 holds the weights. The factory splits
// the 2 tile rows over the grid row-wise (split_work_to_cores): two cores,
// each reading its row of tiles in blocks of 8 (block_size), computing with
// reduce/bcast tiles through CBs 18..24, and writing its output row.
//
// Check: every output against the float64 layer norm of the bfloat16
// inputs, within 3% of |normalized * gamma| + |beta| plus 0.01: x - E[x],
// its square, Var[x] + eps and its reciprocal square root are bfloat16
// tiles (2^-8 relative each), and the factory's default compute config runs
// the SFPU's reciprocal square root in approximate mode.
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
using ttnn_ops::packed_bf16_pair;
using ttnn_ops::tiles_cb;

namespace {

constexpr CoreCoord kGrid = CoreCoord{2, 2};
constexpr const char* kOp = "layernorm";
constexpr const char* kReader =
    "ttnn/cpp/ttnn/operations/normalization/layernorm/device/kernels/dataflow/reader_unary_interleaved_ln.cpp";
constexpr const char* kWriter = "ttnn/cpp/ttnn/operations/normalization/layernorm/device/kernels/dataflow/"
                                "writer_unary_interleaved_start_id_blocked.cpp";
constexpr const char* kCompute =
    "ttnn/cpp/ttnn/operations/normalization/layernorm/device/kernels/compute/layernorm.cpp";

} // namespace

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kWriter, kCompute})) return ttnn_ops::kSkipped;
  constexpr uint32_t NC = 1, Ht = 2, Wt = 8;
  constexpr uint32_t tile_width = kTile, tile_height = kTile;
  constexpr uint32_t W = Wt * tile_width, H = Ht * tile_height;
  constexpr float eps = 1e-5f;

  auto device = ttnn_ops::open_device(kGrid);
  const CoreCoord grid = device->grid();
  const std::vector<float> x = ttnn_ops::random_bf16(size_t(H) * (W), 0x1a7e4 + 1, -2.0f, 2.0f);
  const std::vector<float> gamma_row = ttnn_ops::random_bf16(size_t(1) * (W), 0x1a7e4 + 2, 0.5f, 1.5f);
  const std::vector<float> beta_row = ttnn_ops::random_bf16(size_t(1) * (W), 0x1a7e4 + 3, -0.5f, 0.5f);
  // gamma and beta as TILE-layout [1, 1, 32, W]: row 0 the weights, padding rows zero.
  std::vector<float> gamma_tensor(size_t(tile_height) * W, 0.0f), beta_tensor(size_t(tile_height) * W, 0.0f);
  std::copy(gamma_row.begin(), gamma_row.end(), gamma_tensor.begin());
  std::copy(beta_row.begin(), beta_row.end(), beta_tensor.begin());

  auto a = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  auto gamma = ttnn_ops::dram_tiles(device, Wt);
  auto beta = ttnn_ops::dram_tiles(device, Wt);
  auto out = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  ttnn_ops::write_tiles(*a, ttnn_ops::bf16_tiles(x, H, W));
  ttnn_ops::write_tiles(*gamma, ttnn_ops::bf16_tiles(gamma_tensor, tile_height, W));
  ttnn_ops::write_tiles(*beta, ttnn_ops::bf16_tiles(beta_tensor, tile_height, W));

  // ---- create_descriptor ----
  // ttnn's default layer_norm compute config: HiFi4, approximate SFPU math,
  // no fp32 DEST accumulation.
  const bool fp32_dest_acc_en = false, math_approx_mode = true;
  const uint32_t block_size = fp32_dest_acc_en ? 4 : 8;
  const DataFormat cb_data_format = DataFormat::Float16_b; // fp32_dest_acc_en ? Float32 : Float16_b
  const uint32_t single_tile_size = kTileBf16Bytes, in_single_tile_size = kTileBf16Bytes;
  const uint32_t out_single_tile_size = kTileBf16Bytes, bfloat16_tile_size = kTileBf16Bytes;

  const uint32_t Wt_next_block_up = (Wt + block_size - 1) / block_size * block_size;
  const uint32_t in0_t = Wt_next_block_up, out0_t = block_size * 2;
  const uint32_t im0_t = Wt_next_block_up, im3_t = Wt_next_block_up;
  const uint32_t in5_t = Wt_next_block_up, in6_t = Wt_next_block_up;
  const uint32_t im5_t = 2 * block_size, im4_t = 8, im1_t = 2, in2_t = 2, in3_t = 2, im2_t = 2;
  // These CBs fit in L1 many times over, so the single-pass kernels run
  // (large_tensor_needed stays false).

  const uint32_t num_tile_rows = NC * Ht;
  const WorkSplit split = split_work_to_cores(grid, num_tile_rows, /*row_wise=*/true);

  std::vector<uint32_t> reader_ct = {block_size, 0 /* use_welford */, W};
  TensorAccessorArgs(*a).append_to(reader_ct);
  reader_ct.insert(reader_ct.end(), {0u, 0u}); // TensorAccessorArgs(nullptr): no residual input b
  TensorAccessorArgs(*gamma).append_to(reader_ct);
  TensorAccessorArgs(*beta).append_to(reader_ct);
  reader_ct.push_back(in_single_tile_size); // gamma and beta are tiles, not row-major sticks

  // The CB indices the kernels take by name (kernel chaining): the factory's
  // fixed assignment, c_0 input ... c_24 x - E[x]. Without a residual input
  // or Welford, cb_x is cb_in and cb_x_welford is cb_in too.
  const NamedCompileArgs cb_names = {
      {"cb_in", 0},      {"cb_inb", 1},       {"cb_scaler", 2},         {"cb_eps", 3},
      {"cb_gamma", 5},   {"cb_beta", 6},      {"cb_out", 16},           {"cb_ex", 18},
      {"cb_ex2", 19},    {"cb_xmm2", 20},     {"cb_ex2pe", 21},         {"cb_fusion", 22},
      {"cb_x", 23},      {"cb_xmm", 24},      {"cb_accumulate", 26},    {"cb_in_rm", 27},
      {"cb_out_rm", 28}, {"cb_x_welford", 0}, {"welford_fp32_alias", 0}};
  std::vector<uint32_t> writer_ct = {block_size};
  TensorAccessorArgs(*out).append_to(writer_ct);

  const Defines reader_defines = {{"FUSE_GAMMA", "1"}, {"FUSE_BETA", "1"}};
  const bool float32_reduction = false, legacy_rsqrt = false;
  const std::vector<uint32_t> compute_args = {
      Wt, block_size, 1 /* gamma */, 1 /* beta */, fp32_dest_acc_en, float32_reduction, legacy_rsqrt, W, tile_width};

  Program program;
  const CoreRangeSet& all_cores = split.all_cores;
  // Reader and writer: Metalium's ReaderConfigDescriptor and WriterConfigDescriptor.
  const KernelHandle reader = program.add_kernel(kReader, all_cores, [&] {
    DataMovementConfig c = ttnn_ops::reader_config(reader_ct, reader_defines);
    c.named_compile_args = cb_names;
    return c;
  }());
  DataMovementConfig writer_config = ttnn_ops::writer_config(writer_ct);
  writer_config.named_compile_args = cb_names;
  const KernelHandle writer = program.add_kernel(kWriter, all_cores, writer_config);
  ComputeConfig compute_config;
  compute_config.math_fidelity = MathFidelity::HiFi4;
  compute_config.fp32_dest_acc_en = fp32_dest_acc_en;
  compute_config.math_approx_mode = math_approx_mode;
  compute_config.compile_args = compute_args;
  compute_config.named_compile_args = cb_names;
  const KernelHandle compute = program.add_kernel(kCompute, all_cores, compute_config);

  program.add_circular_buffer(all_cores, tiles_cb(0, in0_t, DataFormat::Float16_b, in_single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(16, out0_t, DataFormat::Float16_b, out_single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(18, im1_t, cb_data_format, single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(2, in2_t, DataFormat::Float16_b, bfloat16_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(3, in3_t, DataFormat::Float16_b, bfloat16_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(19, im2_t, cb_data_format, single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(24, im0_t, cb_data_format, single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(20, im3_t, cb_data_format, single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(21, im4_t, cb_data_format, single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(22, im5_t, cb_data_format, single_tile_size));
  program.add_circular_buffer(all_cores, tiles_cb(5, in5_t, DataFormat::Float16_b, kTileBf16Bytes));
  program.add_circular_buffer(all_cores, tiles_cb(6, in6_t, DataFormat::Float16_b, kTileBf16Bytes));

  // Per-core runtime arguments, cores row-major (corerange_to_cores(all_cores, num_cores, true)).
  const uint32_t packed_one_value = packed_bf16_pair(1.0f);
  uint32_t curr_row = 0;
  for (uint32_t i = 0; i < split.num_cores; ++i) {
    const CoreCoord core{i % grid.x, i / grid.x};
    const uint32_t rows = split.group_1.contains(core) ? split.units_per_core_group_1 : split.units_per_core_group_2;
    const uint32_t tile_offset = curr_row * Wt;
    program.set_runtime_args(reader, core,
                             {uint32_t(a->address()), rows, Wt, curr_row /* first tile row */, packed_one_value,
                              std::bit_cast<uint32_t>(eps), uint32_t(gamma->address()), uint32_t(beta->address()),
                              0 /* b */, W, tile_width, tile_height});
    program.set_runtime_args(writer, core, {uint32_t(out->address()), Wt, rows, tile_offset});
    program.set_runtime_args(compute, core, {rows});
    curr_row += rows;
  }

  device->command_queue().enqueue_program(program);
  const std::vector<float> y = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out, NC * Ht * Wt), H, W);

  ttnn_ops::Verdict check(
      kOp, [&](size_t i) { return "row " + std::to_string(i / W) + ", column " + std::to_string(i % W); });
  for (uint32_t r = 0; r < H; ++r) {
    double mean = 0, var = 0;
    for (uint32_t c = 0; c < W; ++c)
      mean += x[size_t(r) * W + c];
    mean /= W;
    for (uint32_t c = 0; c < W; ++c)
      var += (x[size_t(r) * W + c] - mean) * (x[size_t(r) * W + c] - mean);
    var /= W;
    const double inv_std = 1.0 / std::sqrt(var + eps);
    for (uint32_t c = 0; c < W; ++c) {
      const double scaled = (x[size_t(r) * W + c] - mean) * inv_std * gamma_row[c];
      const double want = scaled + beta_row[c];
      const double bound = 0.03 * (std::fabs(scaled) + std::fabs(beta_row[c])) + 0.01;
      check.check(size_t(r) * W + c, y[size_t(r) * W + c], want, bound);
    }
  }
  device->close();
  return check.report();
}

int main() { return ttnn_ops::run_guarded(kOp, run); }
