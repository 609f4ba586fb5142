// layernorm_welford: ttnn's interleaved multi-core layer norm with gamma and
// beta computing E[x] and Var[x] with Welford's algorithm (use_welford in
// LayerNormDefaultProgramConfig), as its program factory builds it for
// interleaved DRAM bfloat16 tiled tensors on one device (no residual input,
// no fused activation, fp32_dest_acc_en off, so no fp32 alias CBs):
//   ttnn/cpp/ttnn/operations/normalization/layernorm/device/
//     layernorm_op_multi_core.cpp (LayerNormMultiCoreProgramFactory::create_descriptor)
//
// y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta along each row of a
// 1 x 1 x 64 x 250 tensor of values in [2, 6) (a mean far from 0, so that a
// wrong reciprocal shows), padded to 64 x 256 (2 x 8 tiles; the padding
// columns hold 1000s, which welford_update_rows leaves out of the
// statistics). The compute kernel (layernorm_welford.cpp) transposes each
// input tile into DST, streams it through welford_update with the
// reciprocal table 1 / (i + 1), i < W, that the factory places in L1 on
// every core (a Float32 tensor the CB cb_reciprocals, c_25, borrows; here
// an interleaved L1 buffer with one W-word page in each bank), and
// finalizes to a row. The factory's source is not part of the kernel
// layout: what differs from the default program (layernorm) follows what
// the Welford kernels read.
//
// Check: every valid output against the float64 layer norm of the bfloat16
// inputs over the 250 valid columns, within layernorm's bound (3% of
// |normalized * gamma| + |beta| plus 0.01) plus 2^-7 |E[x]| / sqrt(Var[x] +
// eps) |gamma| (E[x] passes through a bfloat16 tile before x - E[x]).
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
constexpr const char* kOp = "layernorm_welford";
constexpr const char* kReader =
    "ttnn/cpp/ttnn/operations/normalization/layernorm/device/kernels/dataflow/reader_unary_interleaved_ln.cpp";
constexpr const char* kWriter = "ttnn/cpp/ttnn/operations/normalization/layernorm/device/kernels/dataflow/"
                                "writer_unary_interleaved_start_id_blocked.cpp";
constexpr const char* kCompute =
    "ttnn/cpp/ttnn/operations/normalization/layernorm/device/kernels/compute/layernorm_welford.cpp";

} // namespace

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kWriter, kCompute})) return ttnn_ops::kSkipped;
  constexpr uint32_t NC = 1, Ht = 2, Wt = 8;
  constexpr uint32_t tile_width = kTile, tile_height = kTile;
  constexpr uint32_t W = 250; // logical width; Wt tiles hold it
  constexpr uint32_t padded_W = Wt * tile_width, H = Ht * tile_height;
  constexpr float eps = 1e-5f;

  auto device = ttnn_ops::open_device(kGrid);
  const CoreCoord grid = device->grid();
  std::vector<float> x = ttnn_ops::random_bf16(size_t(H) * padded_W, 0x1a7e4 + 5, 2.0f, 6.0f);
  for (uint32_t r = 0; r < H; ++r)
    for (uint32_t c = W; c < padded_W; ++c)
      x[size_t(r) * padded_W + c] = 1000.0f; // padding
  const std::vector<float> gamma_row = ttnn_ops::random_bf16(padded_W, 0x1a7e4 + 6, 0.5f, 1.5f);
  const std::vector<float> beta_row = ttnn_ops::random_bf16(padded_W, 0x1a7e4 + 7, -0.5f, 0.5f);
  // gamma and beta as TILE-layout [1, 1, 32, W]: row 0 the weights, padding rows zero.
  std::vector<float> gamma_tensor(size_t(tile_height) * padded_W, 0.0f);
  std::vector<float> beta_tensor(size_t(tile_height) * padded_W, 0.0f);
  std::copy(gamma_row.begin(), gamma_row.end(), gamma_tensor.begin());
  std::copy(beta_row.begin(), beta_row.end(), beta_tensor.begin());

  auto a = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  auto gamma = ttnn_ops::dram_tiles(device, Wt);
  auto beta = ttnn_ops::dram_tiles(device, Wt);
  auto out = ttnn_ops::dram_tiles(device, NC * Ht * Wt);
  ttnn_ops::write_tiles(*a, ttnn_ops::bf16_tiles(x, H, padded_W));
  ttnn_ops::write_tiles(*gamma, ttnn_ops::bf16_tiles(gamma_tensor, tile_height, padded_W));
  ttnn_ops::write_tiles(*beta, ttnn_ops::bf16_tiles(beta_tensor, tile_height, padded_W));

  // The reciprocal table, 1 / (i + 1) for i < W as Float32, in every core's
  // L1 at one address: an interleaved L1 buffer with one page per bank (a
  // worker core each), the page rounded up to the L1 alignment.
  const uint32_t recip_page_bytes =
      (W * 4 + device->l1_alignment() - 1) / device->l1_alignment() * device->l1_alignment();
  const uint32_t l1_banks = grid.x * grid.y;
  auto recip = Buffer::create(device, {uint64_t(l1_banks) * recip_page_bytes, recip_page_bytes, BufferType::L1});
  {
    std::vector<uint32_t> words(size_t(l1_banks) * recip_page_bytes / 4, 0);
    for (uint32_t bank = 0; bank < l1_banks; ++bank)
      for (uint32_t i = 0; i < W; ++i)
        words[size_t(bank) * recip_page_bytes / 4 + i] = std::bit_cast<uint32_t>(1.0f / float(i + 1));
    recip->write(words.data(), words.size() * 4);
  }

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
  const uint32_t im5_t = 2 * block_size, im4_t = 8, im1_t = 2, in3_t = 2, im2_t = 2;
  // These CBs fit in L1 many times over, so the single-pass kernels run
  // (large_tensor_needed stays false).

  const uint32_t num_tile_rows = NC * Ht;
  const WorkSplit split = split_work_to_cores(grid, num_tile_rows, /*row_wise=*/true);

  std::vector<uint32_t> reader_ct = {block_size, 1 /* use_welford */, W};
  TensorAccessorArgs(*a).append_to(reader_ct);
  reader_ct.insert(reader_ct.end(), {0u, 0u}); // TensorAccessorArgs(nullptr): no residual input b
  TensorAccessorArgs(*gamma).append_to(reader_ct);
  TensorAccessorArgs(*beta).append_to(reader_ct);
  reader_ct.push_back(in_single_tile_size); // gamma and beta are tiles, not row-major sticks

  // The CB indices the kernels take by name (kernel chaining): the factory's
  // fixed assignment, c_0 input ... c_25 the reciprocal table. Without a
  // residual input or the fp32 alias, cb_x_welford is cb_in.
  const NamedCompileArgs cb_names = {{"cb_in", 0},
                                     {"cb_inb", 1},
                                     {"cb_scaler", 2},
                                     {"cb_eps", 3},
                                     {"cb_gamma", 5},
                                     {"cb_beta", 6},
                                     {"cb_out", 16},
                                     {"cb_ex", 18},
                                     {"cb_ex2", 19},
                                     {"cb_xmm2", 20},
                                     {"cb_ex2pe", 21},
                                     {"cb_fusion", 22},
                                     {"cb_x", 23},
                                     {"cb_xmm", 24},
                                     {"cb_accumulate", 26},
                                     {"cb_in_rm", 27},
                                     {"cb_out_rm", 28},
                                     {"cb_x_welford", 0},
                                     {"welford_fp32_alias", 0},
                                     {"cb_reciprocals", 25}};
  std::vector<uint32_t> writer_ct = {block_size};
  TensorAccessorArgs(*out).append_to(writer_ct);

  const Defines reader_defines = {{"FUSE_GAMMA", "1"}, {"FUSE_BETA", "1"}};
  // layernorm_welford.cpp: {Wt, block size, gamma, beta, FLOAT32_DTYPE, W,
  // tile width, (not read), fuse_pre_add}.
  const std::vector<uint32_t> compute_args = {
      Wt, block_size, 1 /* gamma */, 1 /* beta */, fp32_dest_acc_en, W, tile_width, 0, 0 /* fuse_pre_add */};

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
  program.add_circular_buffer(all_cores, CircularBufferConfig(recip_page_bytes, {{uint8_t(25), DataFormat::Float32}})
                                             .set_page_size(25, recip_page_bytes)
                                             .set_globally_allocated_address(*recip));
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
  const std::vector<float> y = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out, NC * Ht * Wt), H, padded_W);

  ttnn_ops::Verdict check(kOp, [&](size_t i) {
    return "row " + std::to_string(i / padded_W) + ", column " + std::to_string(i % padded_W);
  });
  for (uint32_t r = 0; r < H; ++r) {
    double mean = 0, var = 0;
    for (uint32_t c = 0; c < W; ++c)
      mean += x[size_t(r) * padded_W + c];
    mean /= W;
    for (uint32_t c = 0; c < W; ++c)
      var += (x[size_t(r) * padded_W + c] - mean) * (x[size_t(r) * padded_W + c] - mean);
    var /= W;
    const double inv_std = 1.0 / std::sqrt(var + eps);
    for (uint32_t c = 0; c < W; ++c) {
      const double scaled = (x[size_t(r) * padded_W + c] - mean) * inv_std * gamma_row[c];
      const double want = scaled + beta_row[c];
      // As layernorm's bound, plus E[x] rounded to bfloat16 (cb_ex) before
      // x - E[x]: 2^-8 of |E[x]|, normalized and scaled, with a factor 2.
      const double bound = 0.03 * (std::fabs(scaled) + std::fabs(beta_row[c])) + 0.01 +
                           std::ldexp(std::fabs(mean), -7) * inv_std * std::fabs(gamma_row[c]);
      check.check(size_t(r) * padded_W + c, y[size_t(r) * padded_W + c], want, bound);
    }
  }
  device->close();
  return check.report();
}

int main() { return ttnn_ops::run_guarded(kOp, run); }
