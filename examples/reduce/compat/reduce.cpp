// reduce in TT-Metalium's mesh spellings: {sum, avg, max} x {row, col,
// scalar} reductions of an H x W bfloat16 tensor with reduce_tile, one
// program each (REDUCE_OP / REDUCE_DIM defines). Rows and columns of output
// tiles are split over the grid with split_work_to_cores; scalar runs on one
// core. Row results land in column 0 of their output tile, column results in
// row 0, scalar at [0][0]. Check: max exact; sum and avg within
// (tiles reduced + 2) bfloat16 roundings of s * sum |x| (s: the scaler).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>
#include <tt-metalium/work_split.hpp>

using namespace tt::tt_metal;
using namespace tt::constants;

int main() {
  try {
    auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
    distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();
    const CoreCoord grid = mesh_device->compute_with_storage_grid_size();
    constexpr uint32_t H = 64, W = 128, Ht = H / TILE_HEIGHT, Wt = W / TILE_WIDTH;
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * TILE_HW;

    // Values in [-4, 4), with row 0 and column 0 negative so a max that starts from zero is caught.
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<bfloat16> x(H * W);
    for (uint32_t i = 0; i < H * W; ++i) {
      const float v = dist(rng);
      x[i] = bfloat16(i < W || i % W == 0 ? -0.25f - std::fabs(v) : v);
    }
    distributed::DeviceLocalBufferConfig dram_config{.page_size = tile_bytes, .buffer_type = BufferType::DRAM};
    auto in_buf = distributed::MeshBuffer::create(distributed::ReplicatedBufferConfig{.size = Ht * Wt * tile_bytes},
                                                  dram_config, mesh_device.get());
    auto out_buf = distributed::MeshBuffer::create(
        distributed::ReplicatedBufferConfig{.size = std::max(Ht, Wt) * tile_bytes}, dram_config, mesh_device.get());
    distributed::EnqueueWriteMeshBuffer(cq, in_buf, tilize_nfaces(x, H, W), false);

    enum Dim { Row, Col, Scalar };
    struct Op {
      const char* name;
      const char* pool;
      Dim dim;
    };
    const Op ops[] = {
        {"sum_row", "PoolType::SUM", Row}, {"sum_col", "PoolType::SUM", Col}, {"sum_scalar", "PoolType::SUM", Scalar},
        {"avg_row", "PoolType::AVG", Row}, {"avg_col", "PoolType::AVG", Col}, {"avg_scalar", "PoolType::AVG", Scalar},
        {"max_row", "PoolType::MAX", Row}, {"max_col", "PoolType::MAX", Col}, {"max_scalar", "PoolType::MAX", Scalar}};
    const char* dim_defines[] = {"ReduceDim::REDUCE_ROW", "ReduceDim::REDUCE_COL", "ReduceDim::REDUCE_SCALAR"};

    bool ok = true;
    for (const Op& op : ops) {
      const bool is_max = std::string(op.pool) == "PoolType::MAX";
      const uint32_t outputs = op.dim == Row ? Ht : op.dim == Col ? Wt : 1;
      const uint32_t tiles_per_output = op.dim == Row ? Wt : op.dim == Col ? Ht : Ht * Wt;
      const uint32_t n = op.dim == Row ? W : op.dim == Col ? H : H * W;
      const float scaler = std::string(op.pool) == "PoolType::AVG" ? 1.0f / float(n) : 1.0f;
      const bfloat16 scaler_bf16(scaler);

      auto [num_cores, all_cores, core_group_1, core_group_2, outputs_per_core_1, outputs_per_core_2] =
          split_work_to_cores(grid, outputs);
      Program program = CreateProgram();
      for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_16})
        CreateCircularBuffer(
            program, all_cores,
            CircularBufferConfig(2 * tile_bytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
      CreateCircularBuffer(program, all_cores,
                           CircularBufferConfig(tile_bytes, {{tt::CBIndex::c_2, tt::DataFormat::Float16_b}})
                               .set_page_size(tt::CBIndex::c_2, tile_bytes));
      std::vector<uint32_t> reader_args, writer_args;
      TensorAccessorArgs(*in_buf).append_to(reader_args);
      TensorAccessorArgs(*out_buf).append_to(writer_args);
      KernelHandle reader = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "reduce/kernels/reader_reduce.cpp", all_cores,
                                         ReaderDataMovementConfig(reader_args));
      KernelHandle writer = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "reduce/kernels/writer_reduce.cpp", all_cores,
                                         WriterDataMovementConfig(writer_args));
      KernelHandle compute =
          CreateKernel(program, OVERRIDE_KERNEL_PREFIX "reduce/kernels/reduce.cpp", all_cores,
                       ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                                     .defines = {{"REDUCE_OP", op.pool}, {"REDUCE_DIM", dim_defines[op.dim]}}});
      uint32_t start = 0;
      for (const auto& [group, count] :
           {std::pair{core_group_1, outputs_per_core_1}, std::pair{core_group_2, outputs_per_core_2}})
        for (const CoreCoord& core : corerange_to_cores(group)) {
          // Input tile i of this core's output o: first + o * output_stride + i * input_stride.
          const uint32_t first = op.dim == Row ? start * Wt : op.dim == Col ? start : 0;
          const uint32_t output_stride = op.dim == Row ? Wt : op.dim == Col ? 1 : 0;
          const uint32_t input_stride = op.dim == Col ? Wt : 1;
          SetRuntimeArgs(program, reader, core,
                         {in_buf->address(), scaler_bf16.to_uint16(), count, tiles_per_output, first, output_stride,
                          input_stride});
          SetRuntimeArgs(program, compute, core, {count, tiles_per_output});
          SetRuntimeArgs(program, writer, core, {out_buf->address(), start, count});
          start += count;
        }

      distributed::MeshWorkload workload;
      workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), std::move(program));
      distributed::EnqueueMeshWorkload(cq, workload, false);
      std::vector<bfloat16> out_tiles;
      distributed::ReadShard(cq, out_tiles, out_buf, distributed::MeshCoordinate(0, 0), true);

      // Output value v of output tile t, and the inputs it reduces.
      uint32_t bad = 0;
      const uint32_t values = op.dim == Scalar ? 1 : TILE_WIDTH;
      for (uint32_t t = 0; t < outputs; ++t)
        for (uint32_t v = 0; v < values; ++v) {
          double acc = 0, abs_sum = 0, max = -INFINITY;
          const uint32_t r0 = op.dim == Row ? t * TILE_HEIGHT + v : 0, r1 = op.dim == Row ? r0 + 1 : H;
          const uint32_t c0 = op.dim == Col ? t * TILE_WIDTH + v : 0, c1 = op.dim == Col ? c0 + 1 : W;
          for (uint32_t r = r0; r < r1; ++r)
            for (uint32_t c = c0; c < c1; ++c) {
              const double value = float(x[r * W + c]);
              acc += value, abs_sum += std::fabs(value), max = std::max(max, value);
            }
          const double ref = is_max ? max * scaler : acc * scaler;
          const double allowed = is_max ? 0 : std::ldexp(double(scaler) * abs_sum, -8) * (tiles_per_output + 2);
          // Row results sit in column 0, column results in row 0 (face layout: tile.hpp).
          const uint32_t row = op.dim == Row ? v : 0, col = op.dim == Col ? v : 0;
          const uint32_t pos = (row / 16 * 2 + col / 16) * 256 + (row % 16) * 16 + col % 16;
          const double got = float(out_tiles[t * TILE_HW + pos]);
          if (!(std::fabs(got - ref) <= allowed)) ++bad;
        }
      std::printf("reduce: %s of a %u x %u tensor over %u cores: %s\n", op.name, H, W, num_cores,
                  bad ? "VALUES OUTSIDE THE BOUND" : "every value within its bound");
      ok = ok && bad == 0 && start == outputs;
    }
    mesh_device->close();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reduce: %s\n", e.what());
    return 1;
  }
}
