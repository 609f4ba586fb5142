// ttnn's unary exp and relu (ttnn.exp, exact mode, and ttnn.relu of a
// bfloat16 tiled tensor interleaved in DRAM): the program of the unary factory,
// ttnn/cpp/ttnn/operations/eltwise/unary/device/unary_program_factory.cpp
// (UnaryDeviceOperation::ProgramFactory), built here for one shape, with its
// kernels launched from the TT-Metalium checkout at $TT_METAL_HOME:
//   reader  eltwise/unary/device/kernels/dataflow/reader_unary.cpp
//   compute eltwise/unary/device/kernels/compute/eltwise_sfpu.cpp
//   writer  eltwise/unary/device/kernels/dataflow/writer_unary.cpp
// The op reaches the compute kernel as the factory's SFPU op chain defines.
//
// Check: exp in exact mode is computed in float, correctly rounded (2^-24
// relative), and DST rounds it to bfloat16 (2^-8 relative): each result must
// be within that of exp of the stored input. relu is exact (bound 0).
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

constexpr const char* kOp = "eltwise_unary";
constexpr const char* kReader = "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/dataflow/reader_unary.cpp";
constexpr const char* kCompute = "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/compute/eltwise_sfpu.cpp";
constexpr const char* kWriter = "ttnn/cpp/ttnn/operations/eltwise/unary/device/kernels/dataflow/writer_unary.cpp";

// The tensor: [2, 2, 64, 160], 40 tiles, over a 3x2 grid: 4 cores take 7
// tiles and 2 take 6.
constexpr uint32_t kN = 2, kC = 2, kH = 64, kW = 160;
constexpr CoreCoord kGrid{3, 2};

// utils::get_block_defines for a chain of one op in block 0 on DST tile 0:
// the op's init and call, the chain naming them, and the op family's
// include macro.
Defines sfpu_chain_defines(const std::string& init, const std::string& call, const std::string& include_macro) {
  return {{"SFPU_OP_CHAIN_0_INIT_0", init},
          {"SFPU_OP_CHAIN_0_FUNC_0", call},
          {"SFPU_OP_CHAIN_0", "SFPU_OP_CHAIN_0_INIT_0 SFPU_OP_CHAIN_0_FUNC_0 "},
          {include_macro, "1"}};
}

// One op of the chain: what get_op_init_and_func gives for a bfloat16 input
// (exp with fast_and_approximate_mode = false: make_fast_approx's "<0u>"),
// its family's include macro, and the host reference with its bound.
struct UnaryOp {
  const char* name;
  const char* init;
  const char* call;
  const char* include_macro;
  double (*reference)(double);
  double (*bound)(double reference);
};
const UnaryOp kOps[] = {
    {"exp", "exp_tile_init<0u>();", "exp_tile<0u>(0);", "SFPU_OP_EXP_INCLUDE", [](double x) { return std::exp(x); },
     [](double ref) { return std::ldexp(ref, -8) + std::ldexp(ref, -24); }},
    {"relu", "relu_tile_init();", "relu_tile(0);", "SFPU_OP_RELU_FAMILY_INCLUDE",
     [](double x) { return x > 0 ? x : 0.0; }, [](double) { return 0.0; }},
};

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kReader, kCompute, kWriter})) return ttnn_ops::kSkipped;
  auto device = ttnn_ops::open_device(kGrid);
  CommandQueue& cq = device->command_queue();

  const uint32_t num_tiles = kN * kC * kH * kW / kTileHW;
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint64_t bytes = uint64_t(num_tiles) * tile_bytes;
  auto src_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto dst_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  const std::vector<float> x = ttnn_ops::random_bf16(size_t(num_tiles) * kTileHW, 0xe4e0001, -4.0, 4.0);
  cq.enqueue_write_buffer(*src_buf, ttnn_ops::to_bf16(x));

  const char* op_name = "";
  ttnn_ops::Verdict verdict(kOp, [&](size_t i) {
    return std::string(op_name) + ", tile " + std::to_string(i / kTileHW) + ", element " + std::to_string(i % kTileHW);
  });
  for (const UnaryOp& op : kOps) {
    op_name = op.name;
    // --- The factory's program (TILE layout, interleaved: no shard specs). ---
    const CoreCoord grid = device->grid();
    const CoreRange all_device_cores({0, 0}, {grid.x - 1, grid.y - 1}); // the op's worker_grid
    constexpr uint8_t src0_cb_index = 0, output_cb_index = 2;
    Program program;
    for (uint8_t cb : {src0_cb_index, output_cb_index})
      program.add_circular_buffer(
          all_device_cores,
          CircularBufferConfig(2 * tile_bytes, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));

    // Reader and writer: the tensor's accessor (ArgConfig::RuntimeTensorShape,
    // which for an interleaved tensor carries no shape: its plain arguments).
    std::vector<uint32_t> reader_ct_args, writer_ct_args;
    TensorAccessorArgs(*src_buf).append_to(reader_ct_args);
    TensorAccessorArgs(*dst_buf).append_to(writer_ct_args);
    const KernelHandle reader =
        program.add_kernel(kReader, all_device_cores,
                           ttnn_ops::reader_config(reader_ct_args, {{"SRC_SHARDED", "0"}, {"RM_INTERLEAVED", "0"}}));
    const KernelHandle writer =
        program.add_kernel(kWriter, all_device_cores,
                           ttnn_ops::writer_config(writer_ct_args, {{"DST_SHARDED", "0"}, {"RM_INTERLEAVED", "0"}}));

    // Compute: the op's chain defines, INP_FLOAT for a bfloat16 input, HiFi4,
    // no fp32 DST, math_approx_mode false.
    ComputeConfig compute_config;
    compute_config.math_fidelity = MathFidelity::HiFi4;
    compute_config.fp32_dest_acc_en = false;
    compute_config.math_approx_mode = false;
    compute_config.defines = sfpu_chain_defines(op.init, op.call, op.include_macro);
    compute_config.defines["INP_FLOAT"] = "1";
    const KernelHandle compute = program.add_kernel(kCompute, all_device_cores, compute_config);

    // Runtime args: split_work_to_cores(grid, tiles, row_major = true), cores in
    // grid_to_cores' row-major order. Reader and writer: {buffer, tiles,
    // start id} and five row-major chunk fields (0 for tiles); compute: {tiles,
    // packed scalar 1, packed scalar 2} (no scalars for exp or relu). Idle cores get zeros.
    const WorkSplit split = split_work_to_cores(grid, num_tiles, /*row_wise=*/true);
    uint32_t start_tile_id = 0;
    for (const CoreCoord core : ttnn_ops::grid_cores(grid, /*row_wise=*/true)) {
      uint32_t tiles = 0;
      if (split.group_1.contains(core))
        tiles = split.units_per_core_group_1;
      else if (split.group_2.contains(core))
        tiles = split.units_per_core_group_2;
      if (tiles == 0) {
        program.set_runtime_args(reader, core, std::vector<uint32_t>(8, 0));
        program.set_runtime_args(writer, core, std::vector<uint32_t>(8, 0));
        program.set_runtime_args(compute, core, std::vector<uint32_t>(3, 0));
        continue;
      }
      program.set_runtime_args(reader, core, {src_buf->address(), tiles, start_tile_id, 0, 0, 0, 0, 0});
      program.set_runtime_args(writer, core, {dst_buf->address(), tiles, start_tile_id, 0, 0, 0, 0, 0});
      program.set_runtime_args(compute, core, {tiles, 0, 0});
      start_tile_id += tiles;
    }
    cq.enqueue_program(program);

    std::vector<uint16_t> out_bits;
    cq.enqueue_read_buffer(*dst_buf, out_bits);
    const std::vector<float> y = ttnn_ops::from_bf16(out_bits);
    if (start_tile_id != num_tiles)
      verdict.fail("the split gave " + std::to_string(start_tile_id) + " of " + std::to_string(num_tiles) + " tiles");
    for (size_t i = 0; i < y.size(); ++i) {
      const double ref = op.reference(double(x[i]));
      verdict.check(i, y[i], ref, op.bound(ref));
    }
  }
  return verdict.report();
}

} // namespace

int main() { return ttnn_ops::run_guarded(kOp, run); }
