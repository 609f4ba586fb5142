// ttnn's untilize (ttnn.untilize of a bfloat16 tiled tensor interleaved in
// DRAM, to a row-major one with one page per row): the program of the
// multi-core interleaved factory,
// ttnn/cpp/ttnn/operations/data_movement/untilize/device/factories/untilize_multi_core_program_factory.cpp
// (UntilizeMultiCoreProgramFactory), built here for one shape, with its
// kernels launched from the TT-Metalium checkout at $TT_METAL_HOME:
//   reader  data_movement/untilize/device/kernels/dataflow/reader_unary_start_id.cpp
//   compute data_movement/untilize/device/kernels/compute/untilize_variable_num_blocks.cpp
//   writer  data_movement/untilize/device/kernels/dataflow/writer_unary_stick_layout_split_rows_multi_core.cpp
// An input block is one row of tiles (32 rows of the tensor); the work is
// split by blocks, a cliff core taking the remainder.
//
// Check: untilizing moves values, so every output value must equal its input
// value exactly (bound 0).
#include <cstdio>
#include <string>
#include <vector>

#include "common/ttnn_ops.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

using namespace tessel;
namespace ttnn_ops = tessel::examples::ttnn_ops;

namespace {

constexpr const char* kOp = "untilize";
constexpr const char* kReader =
    "ttnn/cpp/ttnn/operations/data_movement/untilize/device/kernels/dataflow/reader_unary_start_id.cpp";
constexpr const char* kCompute =
    "ttnn/cpp/ttnn/operations/data_movement/untilize/device/kernels/compute/untilize_variable_num_blocks.cpp";
constexpr const char* kWriter = "ttnn/cpp/ttnn/operations/data_movement/untilize/device/kernels/dataflow/"
                                "writer_unary_stick_layout_split_rows_multi_core.cpp";

// The tensor: [1, 1, 288, 128], 9 blocks of 4 tiles, over a 4x2 grid: 4
// cores take 2 blocks and a cliff core takes 1.
constexpr uint32_t kN = 1, kC = 1, kH = 288, kW = 128;
constexpr CoreCoord kGrid{4, 2};

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kCompute, kWriter})) return ttnn_ops::kSkipped;
  auto device = ttnn_ops::open_device(kGrid);
  CommandQueue& cq = device->command_queue();

  const uint32_t tensor_width = kW, tensor_height = kN * kC * kH;
  const uint32_t element_size = sizeof(uint16_t);
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint32_t ntiles = tensor_height * tensor_width / kTileHW;
  const uint32_t stick_size = tensor_width * element_size;
  auto src_buf = Buffer::create(device, {uint64_t(ntiles) * tile_bytes, tile_bytes, BufferType::DRAM});
  auto dst_buf = Buffer::create(device, {uint64_t(tensor_height) * stick_size, stick_size, BufferType::DRAM});
  // The tensor row-major as [rows, W]; the device gets its tiles.
  const std::vector<float> x = ttnn_ops::random_bf16(size_t(tensor_height) * kW, 0x0471e001, -100.0, 100.0);
  cq.enqueue_write_buffer(*src_buf, ttnn_ops::to_bf16(tilize(x, tensor_height, tensor_width)));

  // --- The factory's program (interleaved input and output). ---
  const uint32_t num_tiles_per_row = tensor_width / kTileWidth;
  const uint32_t num_tiles_per_col = tensor_height / kTileHeight;
  const ttnn_ops::BlockSplit split = ttnn_ops::split_blocks_for_tilize(device->grid(), num_tiles_per_col);
  std::vector<CoreCoord> all_cores = split.full_cores;
  all_cores.insert(all_cores.end(), split.cliff_cores.begin(), split.cliff_cores.end());
  const CoreRangeSet compute_core_range(all_cores), full_range(split.full_cores), cliff_range(split.cliff_cores);

  // One input block spans the width; a core with 2+ blocks double-buffers.
  const uint32_t num_tiles_per_input_block = num_tiles_per_row;
  const uint32_t cb_tiles = split.blocks_per_core == 1 ? num_tiles_per_input_block : 2 * num_tiles_per_input_block;
  constexpr uint8_t src0_cb_index = 0, output_cb_index = 16;
  Program program;
  for (uint8_t cb : {src0_cb_index, output_cb_index})
    program.add_circular_buffer(
        compute_core_range,
        CircularBufferConfig(cb_tiles * tile_bytes, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));

  std::vector<uint32_t> reader_ct_args = {src0_cb_index};
  TensorAccessorArgs(*src_buf).append_to(reader_ct_args);
  const KernelHandle reader = program.add_kernel(kReader, compute_core_range, ttnn_ops::reader_config(reader_ct_args));

  // Writer: output CB, stick size, tile height, tiles per input block,
  // output blocks across the width (1: interleaved), element size, columns
  // per input block and per output block, then the output's accessor.
  const uint32_t output_num_blocks_across_width = 1;
  const uint32_t num_cols_per_input_block = num_tiles_per_input_block * kTileWidth;
  const uint32_t num_cols_per_output_block = tensor_width / output_num_blocks_across_width;
  std::vector<uint32_t> writer_ct_args = {output_cb_index,
                                          stick_size / output_num_blocks_across_width,
                                          kTileHeight,
                                          num_tiles_per_input_block,
                                          output_num_blocks_across_width,
                                          element_size,
                                          num_cols_per_input_block,
                                          num_cols_per_output_block};
  TensorAccessorArgs(*dst_buf).append_to(writer_ct_args);
  const KernelHandle writer = program.add_kernel(kWriter, compute_core_range, ttnn_ops::writer_config(writer_ct_args));

  // Compute: tiles per block, input CB, output CB (its block count is a
  // runtime argument); one kernel for the full cores and one for the cliff
  // core, as the factory creates them.
  ComputeConfig compute_config; // fp32_dest_acc_en off for bfloat16
  compute_config.compile_args = {num_tiles_per_input_block, src0_cb_index, output_cb_index};
  const KernelHandle compute_full = program.add_kernel(kCompute, full_range, compute_config);
  const KernelHandle compute_cliff =
      split.cliff_cores.empty() ? compute_full : program.add_kernel(kCompute, cliff_range, compute_config);

  // Runtime args, full cores in row order then the cliff core: reader {src,
  // tiles, first tile}; writer {dst, blocks, first block (height-wise),
  // unpadded columns per block, first output block (width-wise) 0, columns
  // already written in it 0}; compute {blocks}.
  uint32_t tile_start_index = 0, block_start_index = 0;
  for (size_t i = 0; i < all_cores.size(); ++i) {
    const uint32_t blocks = i < split.full_cores.size() ? split.blocks_per_core : split.blocks_per_core_cliff;
    const uint32_t tiles = num_tiles_per_input_block * blocks;
    program.set_runtime_args(reader, all_cores[i], {src_buf->address(), tiles, tile_start_index});
    program.set_runtime_args(writer, all_cores[i],
                             {dst_buf->address(), blocks, block_start_index, num_cols_per_input_block, 0, 0});
    program.set_runtime_args(i < split.full_cores.size() ? compute_full : compute_cliff, all_cores[i], {blocks});
    tile_start_index += tiles;
    block_start_index += blocks;
  }
  cq.enqueue_program(program);

  std::vector<uint16_t> out_bits;
  cq.enqueue_read_buffer(*dst_buf, out_bits);
  const std::vector<float> y = ttnn_ops::from_bf16(out_bits);

  ttnn_ops::Verdict verdict(
      kOp, [](size_t i) { return "row " + std::to_string(i / kW) + ", column " + std::to_string(i % kW); });
  if (tile_start_index != ntiles)
    verdict.fail("the split gave " + std::to_string(tile_start_index) + " of " + std::to_string(ntiles) + " tiles");
  for (size_t i = 0; i < x.size(); ++i)
    verdict.check(i, y[i], x[i], 0.0);
  return verdict.report();
}

} // namespace

int main() { return ttnn_ops::run_guarded(kOp, run); }
