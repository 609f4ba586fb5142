// ttnn's transpose of the last two dimensions (ttnn.transpose(x, -2, -1) of
// a bfloat16 tiled tensor interleaved in DRAM): the tiled path of the WH
// factory,
// ttnn/cpp/ttnn/operations/data_movement/transpose/device/transpose_wh_program_factory.cpp
// (TransposeWHProgramFactory), built here for one shape, with its kernels
// launched from the TT-Metalium checkout at $TT_METAL_HOME:
//   reader  data_movement/transpose/device/kernels/dataflow/reader_unary_transpose_wh_interleaved_start_id.cpp
//   compute data_movement/transpose/device/kernels/compute/transpose_wh.cpp
//   writer  eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp
// The reader visits the input's tiles column by column (the output's tile
// order), the compute kernel transposes each tile, the writer writes them in
// order.
//
// Check: a transpose moves values, so every output value must equal its
// input value exactly (bound 0).
#include <cstdio>
#include <string>
#include <vector>

#include "common/ttnn_ops.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

using namespace tessel;
namespace ttnn_ops = tessel::examples::ttnn_ops;

namespace {

constexpr const char* kOp = "transpose_wh";
constexpr const char* kReader = "ttnn/cpp/ttnn/operations/data_movement/transpose/device/kernels/dataflow/"
                                "reader_unary_transpose_wh_interleaved_start_id.cpp";
constexpr const char* kCompute =
    "ttnn/cpp/ttnn/operations/data_movement/transpose/device/kernels/compute/transpose_wh.cpp";
constexpr const char* kWriter =
    "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp";

// The input: [1, 2, 96, 160] (Ht 3, Wt 5), 30 tiles, over a 4x2 grid: 6
// cores take 4 tiles and 2 take 3, so a core's run crosses from one
// [96, 160] plane into the next.
constexpr uint32_t kN = 1, kC = 2, kH = 96, kW = 160;
constexpr CoreCoord kGrid{4, 2};

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kCompute, kWriter})) return ttnn_ops::kSkipped;
  auto device = ttnn_ops::open_device(kGrid);
  CommandQueue& cq = device->command_queue();

  const uint32_t NC = kN * kC, Ht = kH / kTileHeight, Wt = kW / kTileWidth, HtWt = Ht * Wt;
  const uint32_t num_tensor_tiles = NC * HtWt;
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint64_t bytes = uint64_t(num_tensor_tiles) * tile_bytes;
  auto src_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto dst_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});

  // The input row-major as [NC * H, W]; tilized, its tiles lie in the
  // tensor's tile order (plane, tile row, tile column).
  const std::vector<float> x = ttnn_ops::random_bf16(size_t(NC) * kH * kW, 0x7a45001, -100.0, 100.0);
  cq.enqueue_write_buffer(*src_buf, ttnn_ops::to_bf16(tilize(x, NC * kH, kW)));

  // --- The factory's program (TILE layout: the tiled path). ---
  const CoreCoord grid = device->grid();
  const uint32_t num_cores_y = grid.y, num_cores_total = grid.x * grid.y;
  const CoreRange total_cores({0, 0}, {grid.x - 1, grid.y - 1});
  const WorkSplit split = split_work_to_cores(grid, num_tensor_tiles); // column-major, as the factory's default
  constexpr uint8_t src0_cb_index = 0, output_cb_index = 16;
  Program program;
  for (uint8_t cb : {src0_cb_index, output_cb_index})
    program.add_circular_buffer(
        total_cores, CircularBufferConfig(2 * tile_bytes, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
  // The accessors (ArgConfig::RuntimeTensorShape, which for an interleaved
  // tensor carries no shape: their plain arguments); the writer's after the
  // output CB index.
  std::vector<uint32_t> reader_ct_args;
  TensorAccessorArgs(*src_buf).append_to(reader_ct_args);
  std::vector<uint32_t> writer_ct_args = {output_cb_index};
  TensorAccessorArgs(*dst_buf).append_to(writer_ct_args);
  const KernelHandle reader = program.add_kernel(kReader, total_cores, ttnn_ops::reader_config(reader_ct_args));
  const KernelHandle writer = program.add_kernel(kWriter, total_cores, ttnn_ops::writer_config(writer_ct_args));
  ComputeConfig compute_config; // fp32_dest_acc_en only for Float32 input
  const KernelHandle compute = program.add_kernel(kCompute, total_cores, compute_config);

  // set_runtime_args_wh_tiled: core i is (i / num_cores_y, i % num_cores_y);
  // a core starts at output tile num_tiles_read, which is input tile row h,
  // tile column w of its plane.
  uint32_t num_tiles_read = 0;
  for (uint32_t i = 0; i < num_cores_total; ++i) {
    const CoreCoord core{i / num_cores_y, i % num_cores_y};
    uint32_t tiles = 0;
    if (split.group_1.contains(core))
      tiles = split.units_per_core_group_1;
    else if (split.group_2.contains(core))
      tiles = split.units_per_core_group_2;
    const uint32_t h = num_tiles_read % Ht;
    const uint32_t w = num_tiles_read / Ht % Wt;
    const uint32_t start_id = num_tiles_read / HtWt * HtWt + h * Wt + w; // round_down(read, HtWt) + h * Wt + w
    program.set_runtime_args(reader, core, {src_buf->address(), tiles, start_id, h, w, Ht, Wt, HtWt});
    program.set_runtime_args(compute, core, {tiles});
    program.set_runtime_args(writer, core, {dst_buf->address(), tiles, num_tiles_read});
    num_tiles_read += tiles;
  }
  cq.enqueue_program(program);

  std::vector<uint16_t> out_bits;
  cq.enqueue_read_buffer(*dst_buf, out_bits);
  // The output, [NC * W, H] row-major.
  const std::vector<float> y = untilize(ttnn_ops::from_bf16(out_bits), NC * kW, kH);

  ttnn_ops::Verdict verdict(kOp, [&](size_t i) {
    const size_t row = i / kH, col = i % kH;
    return "plane " + std::to_string(row / kW) + ", row " + std::to_string(row % kW) + ", column " +
           std::to_string(col);
  });
  if (num_tiles_read != num_tensor_tiles)
    verdict.fail("the split gave " + std::to_string(num_tiles_read) + " of " + std::to_string(num_tensor_tiles) +
                 " tiles");
  for (uint32_t nc = 0; nc < NC; ++nc)
    for (uint32_t w = 0; w < kW; ++w)
      for (uint32_t h = 0; h < kH; ++h) {
        const size_t out = (size_t(nc) * kW + w) * kH + h;
        verdict.check(out, y[out], x[(size_t(nc) * kH + h) * kW + w], 0.0);
      }
  return verdict.report();
}

} // namespace

int main() { return ttnn_ops::run_guarded(kOp, run); }
