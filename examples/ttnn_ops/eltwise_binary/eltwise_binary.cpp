// ttnn's element-wise add (ttnn.add of two bfloat16 tiled tensors of one
// shape, interleaved in DRAM): the program of the element-wise (not
// broadcast) multi-core factory,
// ttnn/cpp/ttnn/operations/eltwise/binary/device/element_wise_multi_core_program_factory.cpp,
// built here for one shape, with the factory's kernels launched from the
// TT-Metalium checkout at $TT_METAL_HOME:
//   reader  eltwise/binary/device/kernels/dataflow/reader_binary_interleaved_start_id.cpp
//   compute eltwise/binary/device/kernels/compute/eltwise_binary_kernel.cpp
//   writer  eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp
//
// Check: each result within one bfloat16 rounding of the exact sum of the
// stored inputs (the FPU adds in float, 2^-24 relative, and DST rounds the
// sum to bfloat16, half an ULP: 2^-8 relative).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/ttnn_ops.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

using namespace tessel;
namespace ttnn_ops = tessel::examples::ttnn_ops;

namespace {

constexpr const char* kOp = "eltwise_binary";
constexpr const char* kReader =
    "ttnn/cpp/ttnn/operations/eltwise/binary/device/kernels/dataflow/reader_binary_interleaved_start_id.cpp";
constexpr const char* kCompute =
    "ttnn/cpp/ttnn/operations/eltwise/binary/device/kernels/compute/eltwise_binary_kernel.cpp";
constexpr const char* kWriter =
    "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp";

// The tensors: [1, 3, 96, 128], 36 tiles, over a 4x2 grid: 4 cores take 5
// tiles and 4 take 4 (split_work_to_cores' two groups).
constexpr uint32_t kN = 1, kC = 3, kH = 96, kW = 128;
constexpr CoreCoord kGrid{4, 2};

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kCompute, kWriter})) return ttnn_ops::kSkipped;
  auto device = ttnn_ops::open_device(kGrid);
  CommandQueue& cq = device->command_queue();

  const uint32_t num_tiles = kN * kC * kH * kW / kTileHW;
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint64_t bytes = uint64_t(num_tiles) * tile_bytes;
  auto a_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto b_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto c_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});

  // Tiled tensors: the tilized values of each 32x32 tile, tile by tile.
  const std::vector<float> a = ttnn_ops::random_bf16(size_t(num_tiles) * kTileHW, 0xadd0001, -4.0, 4.0);
  const std::vector<float> b = ttnn_ops::random_bf16(a.size(), 0xadd0002, -4.0, 4.0);
  cq.enqueue_write_buffer(*a_buf, ttnn_ops::to_bf16(a));
  cq.enqueue_write_buffer(*b_buf, ttnn_ops::to_bf16(b));

  // --- The factory's program (interleaved inputs and output: no shard spec). ---
  const CoreCoord grid = device->grid(); // compute_with_storage_grid_size
  const CoreRange all_device_cores({0, 0}, {grid.x - 1, grid.y - 1});
  const uint32_t max_block_size = 1; // find_max_block_size only for sharded tensors
  const bool block_or_width_sharded = false;
  Program program;
  // c_0 and c_1 hold 2 * max_block_size tiles of the inputs' formats; the output CB c_2 as many.
  for (uint8_t cb : {0, 1, 2})
    program.add_circular_buffer(all_device_cores,
                                CircularBufferConfig(2 * max_block_size * tile_bytes, {{cb, DataFormat::Float16_b}})
                                    .set_page_size(cb, tile_bytes));

  // Reader: block_or_width_sharded, then an accessor for each input.
  std::vector<uint32_t> reader_ct_args = {block_or_width_sharded ? 1u : 0u};
  TensorAccessorArgs(*a_buf).append_to(reader_ct_args);
  TensorAccessorArgs(*b_buf).append_to(reader_ct_args);
  const KernelHandle reader = program.add_kernel(kReader, all_device_cores, ttnn_ops::reader_config(reader_ct_args));

  // Writer: the output CB index, then the output's accessor.
  std::vector<uint32_t> writer_ct_args = {2};
  TensorAccessorArgs(*c_buf).append_to(writer_ct_args);
  const KernelHandle writer = program.add_kernel(kWriter, all_device_cores, ttnn_ops::writer_config(writer_ct_args));

  // Compute: utils::get_defines(BinaryOpType::ADD, ...) with no fused activations.
  ComputeConfig compute_config;
  compute_config.fp32_dest_acc_en = false;
  compute_config.defines = {{"ELTWISE_OP", "add_tiles"}, {"ELTWISE_OP_TYPE", "EltwiseBinaryType::ELWADD"}};
  const KernelHandle compute = program.add_kernel(kCompute, all_device_cores, compute_config);

  // Runtime args: split_work_to_cores(grid, num_tiles, row_major = true),
  // cores in grid_to_cores' row-major order; a core without tiles gets zeros.
  const WorkSplit split = split_work_to_cores(grid, num_tiles, /*row_wise=*/true);
  const uint32_t g1 = split.group_1.num_cores();
  uint32_t num_tiles_read = 0;
  const std::vector<CoreCoord> cores = ttnn_ops::grid_cores(grid, /*row_wise=*/true);
  for (uint32_t i = 0; i < cores.size(); ++i) {
    const CoreCoord core = cores[i];
    if (i >= split.num_cores) {
      program.set_runtime_args(reader, core, std::vector<uint32_t>(7, 0));
      program.set_runtime_args(compute, core, std::vector<uint32_t>(2, 0));
      program.set_runtime_args(writer, core, std::vector<uint32_t>(3, 0));
      continue;
    }
    const uint32_t tiles = i < g1 ? split.units_per_core_group_1 : split.units_per_core_group_2;
    const uint32_t block_height = 0, block_width = 0, num_shards_per_width = 0; // sharded only
    program.set_runtime_args(
        reader, core,
        {a_buf->address(), b_buf->address(), tiles, num_tiles_read, block_height, block_width, num_shards_per_width});
    program.set_runtime_args(compute, core, {tiles, 1}); // block count, block size
    program.set_runtime_args(writer, core, {c_buf->address(), tiles, num_tiles_read});
    num_tiles_read += tiles;
  }
  cq.enqueue_program(program);

  std::vector<uint16_t> out_bits;
  cq.enqueue_read_buffer(*c_buf, out_bits);
  const std::vector<float> c = ttnn_ops::from_bf16(out_bits);

  ttnn_ops::Verdict verdict(
      kOp, [](size_t i) { return "tile " + std::to_string(i / kTileHW) + ", element " + std::to_string(i % kTileHW); });
  if (num_tiles_read != num_tiles)
    verdict.fail("the split gave " + std::to_string(num_tiles_read) + " of " + std::to_string(num_tiles) + " tiles");
  for (size_t i = 0; i < c.size(); ++i) {
    const double ref = double(a[i]) + double(b[i]);
    verdict.check(i, c[i], ref, std::ldexp(std::fabs(ref), -8) + std::ldexp(std::fabs(ref), -24));
  }
  return verdict.report();
}

} // namespace

int main() { return ttnn_ops::run_guarded(kOp, run); }
