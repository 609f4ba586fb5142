// ttnn's tilize (ttnn.tilize of a bfloat16 row-major tensor interleaved in
// DRAM, one page per row, to a tiled one): the program of the multi-core
// interleaved factory,
// ttnn/cpp/ttnn/operations/data_movement/tilize/device/tilize_multi_core_default_program_factory.cpp
// (TilizeMultiCoreDefaultProgramFactory), built here for one shape, with
// its kernels launched from the TT-Metalium checkout at $TT_METAL_HOME:
//   reader  data_movement/tilize/device/kernels/dataflow/reader_unary_stick_layout_split_rows_multicore.cpp
//   compute ttnn/cpp/ttnn/kernel/compute/tilize.cpp (shared by the tilize factories)
//   writer  eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp
// A block is one row of tiles: 32 rows of the tensor.
//
// Check: tilizing moves values, so every output value must equal its input
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

constexpr const char* kOp = "tilize";
constexpr const char* kReader = "ttnn/cpp/ttnn/operations/data_movement/tilize/device/kernels/dataflow/"
                                "reader_unary_stick_layout_split_rows_multicore.cpp";
constexpr const char* kCompute = "ttnn/cpp/ttnn/kernel/compute/tilize.cpp";
constexpr const char* kWriter =
    "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp";

// The tensor: [1, 1, 352, 96], 11 blocks of 3 tiles, over a 4x2 grid: 5
// cores take 2 blocks and a cliff core takes 1.
constexpr uint32_t kN = 1, kC = 1, kH = 352, kW = 96;
constexpr CoreCoord kGrid{4, 2};

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kCompute, kWriter})) return ttnn_ops::kSkipped;
  auto device = ttnn_ops::open_device(kGrid);
  CommandQueue& cq = device->command_queue();

  const uint32_t rows = kN * kC * kH;
  const uint32_t page_size = kW * sizeof(uint16_t); // one row of the row-major tensor
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint32_t ntiles = rows * kW / kTileHW;
  auto src_buf = Buffer::create(device, {uint64_t(rows) * page_size, page_size, BufferType::DRAM});
  auto dst_buf = Buffer::create(device, {uint64_t(ntiles) * tile_bytes, tile_bytes, BufferType::DRAM});
  const std::vector<float> x = ttnn_ops::random_bf16(size_t(rows) * kW, 0x711e001, -100.0, 100.0);
  cq.enqueue_write_buffer(*src_buf, ttnn_ops::to_bf16(x));

  // --- The factory's program (interleaved input: one page per row). ---
  const uint32_t ntiles_per_block = (kW + kTileWidth - 1) / kTileWidth;
  const uint32_t nblocks = (ntiles + ntiles_per_block - 1) / ntiles_per_block;
  const ttnn_ops::BlockSplit split = ttnn_ops::split_blocks_for_tilize(device->grid(), nblocks);
  std::vector<CoreCoord> all_cores = split.full_cores;
  all_cores.insert(all_cores.end(), split.cliff_cores.begin(), split.cliff_cores.end());
  const CoreRangeSet all(all_cores), core_range(split.full_cores), core_range_cliff(split.cliff_cores);

  constexpr uint8_t input_cb_index = 0, output_cb_index = 16;
  Program program;
  for (uint8_t cb : {input_cb_index, output_cb_index})
    program.add_circular_buffer(all, CircularBufferConfig(ntiles_per_block * tile_bytes, {{cb, DataFormat::Float16_b}})
                                         .set_page_size(cb, tile_bytes));

  // Reader: the aligned page size, pages per row (1: interleaved), the valid
  // bytes of a row's last page, then the input's accessor.
  const uint32_t dram_alignment = device->dram_alignment();
  const uint32_t aligned_page_size = (page_size + dram_alignment - 1) / dram_alignment * dram_alignment;
  std::vector<uint32_t> reader_ct_args = {aligned_page_size, 1, page_size};
  TensorAccessorArgs(*src_buf).append_to(reader_ct_args);
  const KernelHandle reader = program.add_kernel(kReader, all, ttnn_ops::reader_config(reader_ct_args));
  std::vector<uint32_t> writer_ct_args = {output_cb_index};
  TensorAccessorArgs(*dst_buf).append_to(writer_ct_args);
  const KernelHandle writer = program.add_kernel(kWriter, all, ttnn_ops::writer_config(writer_ct_args));

  // Compute: one kernel for the full cores and one for the cliff core, each
  // with its block count (fp32_dest_acc_en only for Float32 input).
  ComputeConfig compute_config;
  compute_config.compile_args = {split.blocks_per_core, ntiles_per_block};
  program.add_kernel(kCompute, core_range, compute_config);
  if (!split.cliff_cores.empty()) {
    compute_config.compile_args = {split.blocks_per_core_cliff, ntiles_per_block};
    program.add_kernel(kCompute, core_range_cliff, compute_config);
  }

  // Runtime args, core by core: reader {src, rows, page size, tiles per
  // block, block width in bytes, full blocks per row (1), leftover tiles (0),
  // leftover width (0), first page}; writer {dst, tiles, first tile}.
  uint32_t tile_start_id = 0, page_start_id = 0;
  for (size_t i = 0; i < all_cores.size(); ++i) {
    const uint32_t blocks = i < split.full_cores.size() ? split.blocks_per_core : split.blocks_per_core_cliff;
    program.set_runtime_args(
        reader, all_cores[i],
        {src_buf->address(), blocks * kTileHeight, page_size, ntiles_per_block, page_size, 1, 0, 0, page_start_id});
    program.set_runtime_args(writer, all_cores[i], {dst_buf->address(), ntiles_per_block * blocks, tile_start_id});
    tile_start_id += ntiles_per_block * blocks;
    page_start_id += kTileHeight * blocks;
  }
  cq.enqueue_program(program);

  std::vector<uint16_t> out_bits;
  cq.enqueue_read_buffer(*dst_buf, out_bits);
  const std::vector<float> y = untilize(ttnn_ops::from_bf16(out_bits), rows, kW);

  ttnn_ops::Verdict verdict(
      kOp, [](size_t i) { return "row " + std::to_string(i / kW) + ", column " + std::to_string(i % kW); });
  if (tile_start_id != ntiles)
    verdict.fail("the split gave " + std::to_string(tile_start_id) + " of " + std::to_string(ntiles) + " tiles");
  for (size_t i = 0; i < x.size(); ++i)
    verdict.check(i, y[i], x[i], 0.0);
  return verdict.report();
}

} // namespace

int main() { return ttnn_ops::run_guarded(kOp, run); }
