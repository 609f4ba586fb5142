// matmul_1d_mcast: ttnn's 1D multicast-reuse matmul, in0 multicast
// (MatmulMultiCoreReuseMultiCast1DProgramConfig with mcast_in0 = true), as
// its program factory builds it for interleaved DRAM bfloat16 tiled inputs
// on one device, no bias, no fused activation:
//   ttnn/cpp/ttnn/operations/matmul/device/factory/
//     matmul_multicore_reuse_mcast_1d_program_factory.cpp
//     (process_mcast_in0_program_and_create_override_variables)
//
// C[M x N] = A[M x K] * B[K x N], M = 64, K = 128, N = 256 (2 x 4 x 8 tiles),
// per_core_M = 2, per_core_N = 2: four cores in a row, each computing a
// 2 x 2-tile block of C. The first core reads A's blocks from DRAM and
// multicasts them to the other three (in0 sender / receiver, NCRISC on
// NoC 1); every core reads its own columns of B and writes its C block
// (in1 sender-writer with SKIP_MCAST, BRISC on NoC 0). The compute kernel
// accumulates K in in0_block_w = 2 tile blocks, spilling the partial block
// through CB 5 between them.
//
// The in1 sender-writer gets the compile-time arguments its kernel reads:
// its accessor arguments start at 32, without the factory's later
// compact_output word before them.
//
// Check: every C element against the float64 product of the bfloat16
// inputs, within 2^-8 (bfloat16's half ulp is 2^-9 relative) per rounding of
// a partial (after each K block, and the output pack) of sum_k |a_ik b_kj|.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
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

namespace {

constexpr CoreCoord kGrid = CoreCoord{4, 2};
constexpr const char* kOp = "matmul_1d_mcast";
constexpr const char* kIn0Sender =
    "ttnn/cpp/ttnn/operations/matmul/device/kernels/dataflow/reader_bmm_tile_layout_in0_sender_padding.cpp";
constexpr const char* kIn0Receiver =
    "ttnn/cpp/ttnn/operations/matmul/device/kernels/dataflow/reader_bmm_tile_layout_in0_receiver.cpp";
constexpr const char* kIn1SenderWriter =
    "ttnn/cpp/ttnn/operations/matmul/device/kernels/dataflow/reader_bmm_tile_layout_in1_sender_writer_padding.cpp";
constexpr const char* kCompute =
    "ttnn/cpp/ttnn/operations/matmul/device/kernels/compute/bmm_large_block_zm_fused_bias_activation.cpp";

// Metalium's hostdevcommon INVALID, the semaphores' initial value.
constexpr uint32_t kInvalid = 0;
// The factory's MCAST_INPUT_BUFFERING_DEPTH: in0 and in1 blocks are double
// buffered when there is more than one block to stream.
constexpr uint32_t kMcastInputBufferingDepth = 2;

// TensorAccessorArgs() with no tensor, the factory's placeholder for the
// sparsity tensor: the two words of an interleaved accessor's arguments.
void append_placeholder_accessor(std::vector<uint32_t>& args) { args.insert(args.end(), {0u, 0u}); }

} // namespace

int run() {
  if (!ttnn_ops::have_checkout(kOp, {kIn0Sender, kIn0Receiver, kIn1SenderWriter, kCompute})) return ttnn_ops::kSkipped;
  // The problem, in tiles, and the program config the factory is given.
  constexpr uint32_t B = 1, M = 2, K = 4, N = 8;
  constexpr uint32_t in0_block_w = 2, per_core_M = 2, per_core_N = 2;
  constexpr uint32_t out_block_h = per_core_M, out_block_w = per_core_N;
  constexpr uint32_t out_subblock_h = 1, out_subblock_w = 2;
  constexpr bool bcast_batch = true; // B's batch is 1

  auto device = ttnn_ops::open_device(kGrid);
  const CoreCoord grid = device->grid();
  const std::vector<float> a = ttnn_ops::random_bf16(size_t(M * kTile) * (K * kTile), 0x7e55e1 + 1, -1.0f, 1.0f);
  const std::vector<float> b = ttnn_ops::random_bf16(size_t(K * kTile) * (N * kTile), 0x7e55e1 + 2, -1.0f, 1.0f);
  auto in0 = ttnn_ops::dram_tiles(device, M * K);
  auto in1 = ttnn_ops::dram_tiles(device, K * N);
  auto out = ttnn_ops::dram_tiles(device, M * N);
  ttnn_ops::write_tiles(*in0, ttnn_ops::bf16_tiles(a, M * kTile, K * kTile));
  ttnn_ops::write_tiles(*in1, ttnn_ops::bf16_tiles(b, K * kTile, N * kTile));

  // ---- process_mcast_in0_program_and_create_override_variables ----
  const uint32_t num_blocks = K / in0_block_w;
  const uint32_t tile_size = kTileBf16Bytes; // bfloat16; already DRAM-aligned
  const uint32_t in0_block_h = out_block_h, in1_block_w = out_block_w;
  const uint32_t in0_num_blocks_y = per_core_M / out_block_h;
  const uint32_t in1_num_blocks_x = per_core_N / out_block_w;
  const uint32_t out_num_blocks_x = in1_num_blocks_x, out_num_blocks_y = in0_num_blocks_y;

  const uint32_t in0_block_tiles = in0_block_h * in0_block_w;
  const uint32_t in0_CB_tiles = in0_block_tiles * (B * num_blocks > 1 ? kMcastInputBufferingDepth : 1);
  const uint32_t in1_block_tiles = out_block_w * in0_block_w;
  const uint32_t in1_CB_tiles = in1_block_tiles * (B * num_blocks > 1 ? kMcastInputBufferingDepth : 1);
  const uint32_t out_block_tiles = out_block_h * out_block_w;

  const uint32_t num_blocks_y = (M - 1) / per_core_M + 1;
  const uint32_t num_blocks_x = (N - 1) / per_core_N + 1;
  const uint32_t num_cores = num_blocks_y * num_blocks_x; // in0 interleaved: one sender, all cores work
  if (num_blocks_y != 1 || num_cores > grid.x * grid.y)
    throw std::runtime_error("the shape needs M <= per_core_M and a core per N block");

  // Cores row-major from (0, 0) over the grid; the first is the in0 sender.
  std::vector<CoreCoord> cores;
  for (uint32_t i = 0; i < num_cores; ++i)
    cores.push_back({i % grid.x, i / grid.x});
  CoreRangeSet all_cores;
  for (const CoreCoord& c : cores)
    all_cores = all_cores.merge(CoreRangeSet(CoreRange(c, c)));
  const CoreCoord start_core = cores.front();
  CoreRangeSet receivers;
  for (size_t i = 1; i < cores.size(); ++i)
    receivers = receivers.merge(CoreRangeSet(CoreRange(cores[i], cores[i])));
  const CoreRange box = all_cores.bounding_box();
  const uint32_t in0_mcast_receiver_num_cores = box.size(); // always multicast to the full box

  Program program;
  const uint32_t in0_mcast_sender_semaphore_id = program.add_semaphore(all_cores, kInvalid);
  const uint32_t in0_mcast_receiver_semaphore_id = program.add_semaphore(all_cores, kInvalid);
  const CoreCoord top_left_physical = device->worker_core_from_logical_core(box.start_coord);
  const CoreCoord bottom_right_physical = device->worker_core_from_logical_core(box.end_coord);

  const uint32_t in0_num_subblocks = out_block_h / out_subblock_h;
  const uint32_t in0_block_num_tiles = out_subblock_h * in0_block_w * in0_num_subblocks;
  // K is a whole number of tiles and A is not transposed: no partial last K tile.
  const uint32_t in0_last_ktile_w = 0, in0_last_ktile_h = 0;
  // get_in0_transpose_strides without transpose_a: along K by 1, along M by K.
  const uint32_t in0_tensor_stride_w = 1, in0_tensor_stride_h = K;
  const uint32_t in0_tensor_next_block_stride = in0_block_w * in0_tensor_stride_w;
  const uint32_t in0_tensor_next_h_dim_block_stride = in0_block_h * in0_tensor_stride_h;
  const uint32_t in0_tensor_start_tile_id_stride = per_core_M * in0_tensor_stride_h;
  const uint32_t in1_tensor_stride_w = 1, in1_tensor_stride_h = N; // no transpose_b
  const uint32_t in1_tensor_next_block_stride = in0_block_w * in1_tensor_stride_h;
  const uint32_t in1_tensor_next_w_dim_block_stride = in1_block_w * in1_tensor_stride_w;
  const uint32_t in1_tensor_start_tile_id_stride = per_core_N * in1_tensor_stride_w;

  // The in0 sender's compile-time arguments, in the order its kernel reads them.
  std::vector<uint32_t> in0_sender_args = {in0_tensor_stride_w,
                                           in0_tensor_stride_h,
                                           in0_tensor_next_block_stride,
                                           in0_tensor_next_h_dim_block_stride,
                                           in0_block_w,
                                           in0_block_h,
                                           in0_block_num_tiles,
                                           in0_last_ktile_w,
                                           in0_last_ktile_h,
                                           0,
                                           0,
                                           0, // extract_shard_sub_blocks, shard width and height (interleaved)
                                           num_blocks,
                                           out_num_blocks_x,
                                           out_num_blocks_y,
                                           in0_mcast_sender_semaphore_id,
                                           in0_mcast_receiver_semaphore_id,
                                           num_cores - 1,
                                           in0_mcast_receiver_num_cores - 1,
                                           M * K,
                                           B, // in0's batch
                                           B, // in1's batch
                                           0, // reuse_in0_in_CB
                                           0,
                                           0,  // batchB, sparsity_pagesize: no sparsity
                                           1,  // bcast_A
                                           0,  // get_batch_from_reader
                                           0}; // fuse_op: no all-gather
  TensorAccessorArgs(*in0).append_to(in0_sender_args);
  append_placeholder_accessor(in0_sender_args);
  in0_sender_args.push_back(0); // num_batch_compute: sparsity is off

  std::vector<uint32_t> in1_sender_writer_args = {
      in1_tensor_stride_w, in1_tensor_stride_h, in1_tensor_next_block_stride, in1_tensor_next_w_dim_block_stride,
      in1_block_w, in0_block_w, in1_block_w * in0_block_w, num_blocks, out_num_blocks_x, out_num_blocks_y, 0, 0, 0,
      0,                                     // in1 multicast semaphores and destinations: in1 is not multicast
      K * N, B, bcast_batch ? 1u : 0u, 0, 0, // batchB, sparsity_pagesize
      // writer: the output's strides, subblocks and batch
      1, N, out_subblock_w, out_subblock_h * N, out_block_w, out_block_h * N, out_subblock_w, out_subblock_h,
      out_subblock_w * out_subblock_h, M * N,
      0,     // in3_tensor_stride_w: no bias
      0, 0}; // fused all-gather, reduce-scatter: none
  TensorAccessorArgs(*in1).append_to(in1_sender_writer_args);
  append_placeholder_accessor(in1_sender_writer_args);
  TensorAccessorArgs(*out).append_to(in1_sender_writer_args);

  const std::vector<uint32_t> in0_receiver_args = {in0_block_num_tiles,
                                                   num_blocks,
                                                   out_num_blocks_x,
                                                   out_num_blocks_y,
                                                   in0_mcast_sender_semaphore_id,
                                                   in0_mcast_receiver_semaphore_id,
                                                   B,
                                                   0 /* get_batch_from_reader */};

  // Defines: no bias, activation, packer L1 accumulation or fp32 DEST; on
  // Blackhole no stagger or throttle defines; more than one receiver, so
  // the in0 sender multicasts; in1 is never multicast in this layout.
  const Defines in0_sender_defines = in0_mcast_receiver_num_cores == 1 ? Defines{{"SKIP_MCAST", "1"}} : Defines{};
  const Defines in1_sender_writer_defines = {{"SKIP_MCAST", "1"}};

  // preferred_noc_for_dram_write / _read: in0 on NoC 1, in1 on NoC 0.
  const NOC in0_noc = NOC::NOC_1, in1_noc = NOC::NOC_0;
  DataMovementConfig in0_sender{DataMovementProcessor::RISCV_1, in0_noc, in0_sender_args, in0_sender_defines};
  in0_sender.named_compile_args = {
      {"cb_in0", 0}, {"cb_in0_sharded", 2}, {"cb_l1_array", 6}, {"cb_sparsity", 6}, {"num_active", 0}};
  const KernelHandle in0_sender_kernel =
      program.add_kernel(kIn0Sender, CoreRangeSet(CoreRange(start_core, start_core)), in0_sender);
  KernelHandle in0_receiver_kernel = 0;
  if (!receivers.empty()) {
    DataMovementConfig in0_receiver{DataMovementProcessor::RISCV_1, in0_noc, in0_receiver_args};
    in0_receiver.named_compile_args = {{"cb_in0", 0}};
    in0_receiver_kernel = program.add_kernel(kIn0Receiver, receivers, in0_receiver);
  }
  DataMovementConfig in1_sender_writer{DataMovementProcessor::RISCV_0, in1_noc, in1_sender_writer_args,
                                       in1_sender_writer_defines};
  in1_sender_writer.named_compile_args = {
      {"cb_in1", 1}, {"cb_bias", 3}, {"cb_out", 4}, {"cb_sparsity", 7}, {"num_active", 0}};
  const KernelHandle in1_kernel = program.add_kernel(kIn1SenderWriter, all_cores, in1_sender_writer);

  const uint32_t in0_subblock_num_tiles = out_subblock_h * in0_block_w;
  const uint32_t in1_num_subblocks = out_block_w / out_subblock_w;
  const uint32_t in1_block_num_tiles = out_subblock_w * in0_block_w * in1_num_subblocks;
  const uint32_t in1_per_core_w = out_subblock_w * in1_num_subblocks;
  ComputeConfig compute;
  compute.math_fidelity = MathFidelity::HiFi4;
  compute.fp32_dest_acc_en = false;
  compute.math_approx_mode = false;
  compute.compile_args = {in0_block_w,
                          in0_num_subblocks,
                          in0_block_num_tiles,
                          in0_subblock_num_tiles,
                          in1_num_subblocks,
                          in1_block_num_tiles,
                          in1_per_core_w,
                          num_blocks,
                          out_num_blocks_x,
                          out_num_blocks_y,
                          out_subblock_h,
                          out_subblock_w,
                          out_subblock_h * out_subblock_w,
                          B,
                          out_block_tiles,
                          0 /* untilize_out */,
                          0 /* get_batch_from_reader */,
                          0 /* in0_transpose_tile */};
  compute.named_compile_args = {{"cb_in0", 0},
                                {"cb_in1", 1},
                                {"cb_bias", 3},
                                {"cb_out", 4},
                                {"cb_intermed0", 5},
                                {"cb_in0_transposed", 10},
                                {"bias_ntiles", in1_per_core_w}};
  program.add_kernel(kCompute, all_cores, compute);

  // CBs: in0 (c_0), in1 (c_1), and the output (c_4) sharing its memory with
  // the partials (c_5): both bfloat16, so the factory places them in place.
  program.add_circular_buffer(
      all_cores,
      CircularBufferConfig(in0_CB_tiles * tile_size, {{0, DataFormat::Float16_b}}).set_page_size(0, tile_size));
  program.add_circular_buffer(
      all_cores,
      CircularBufferConfig(in1_CB_tiles * tile_size, {{1, DataFormat::Float16_b}}).set_page_size(1, tile_size));
  program.add_circular_buffer(all_cores, CircularBufferConfig(out_block_tiles * tile_size,
                                                              {{4, DataFormat::Float16_b}, {5, DataFormat::Float16_b}})
                                             .set_page_size(4, tile_size)
                                             .set_page_size(5, tile_size));

  // Runtime arguments: no padding in this shape, so every core's last
  // block is a full one.
  const uint32_t last_per_core_N = N % per_core_N == 0 ? per_core_N : N % per_core_N;
  const uint32_t last_out_block_w = last_per_core_N % out_block_w == 0 ? out_block_w : last_per_core_N % out_block_w;
  const uint32_t last_out_num_blocks_w = (last_per_core_N - 1) / out_block_w + 1;
  const uint32_t last_block_num_nonzero_subblocks_w = (last_out_block_w - 1) / out_subblock_w + 1;
  const uint32_t last_subblock_of_last_block_w =
      last_out_block_w % out_subblock_w == 0 ? out_subblock_w : last_out_block_w % out_subblock_w;
  const uint32_t last_block_padded_subblock_tiles_addr_skip =
      tile_size * (out_subblock_w - last_subblock_of_last_block_w);
  const uint32_t last_block_padded_block_tiles_w_skip =
      (out_subblock_w * out_subblock_h) * (out_block_w / out_subblock_w - last_block_num_nonzero_subblocks_w);
  const uint32_t in0_last_per_core_M = M < per_core_M ? M : per_core_M;
  const uint32_t in0_last_out_block_h =
      in0_last_per_core_M % out_block_h == 0 ? out_block_h : in0_last_per_core_M % out_block_h;
  const uint32_t in0_last_block_num_nonzero_subblocks_h = (in0_last_out_block_h - 1) / out_subblock_h + 1;
  const uint32_t in0_last_subblock_of_last_block_h =
      in0_last_out_block_h % out_subblock_h == 0 ? out_subblock_h : in0_last_out_block_h % out_subblock_h;
  const uint32_t in0_last_block_padded_block_tiles_h_skip =
      (out_block_h / out_subblock_h - in0_last_block_num_nonzero_subblocks_h) * (out_block_w * out_subblock_h);

  // in0 multicasts on NoC 1, which runs the other way: swap the rectangle's corners.
  CoreCoord start_core_noc = top_left_physical, end_core_noc = bottom_right_physical;
  if (in0_noc == NOC::NOC_1) std::swap(start_core_noc, end_core_noc);

  for (uint32_t i = 0; i < num_cores; ++i) {
    const CoreCoord core = cores[i];
    const uint32_t output_idx_x = i % num_blocks_x, output_idx_y = i / num_blocks_x;
    if (core == start_core)
      program.set_runtime_args(in0_sender_kernel, core,
                               {uint32_t(in0->address()), in0_tensor_start_tile_id_stride * output_idx_y,
                                uint32_t(start_core_noc.x), uint32_t(start_core_noc.y), uint32_t(end_core_noc.x),
                                uint32_t(end_core_noc.y), in0_last_out_block_h, 0 /* sparsity_addr */});
    else
      program.set_runtime_args(in0_receiver_kernel, core,
                               {uint32_t(top_left_physical.x), uint32_t(top_left_physical.y)});
    const bool last_x = output_idx_x == num_blocks_x - 1;
    std::vector<uint32_t> args = {uint32_t(in1->address()),
                                  in1_tensor_start_tile_id_stride * output_idx_x,
                                  0,
                                  0,
                                  0,
                                  0, // in1 multicast rectangle: unused
                                  0, // sparsity_addr
                                  uint32_t(out->address()),
                                  output_idx_x * per_core_N + output_idx_y * per_core_M * N,
                                  last_x ? last_out_block_w : out_block_w,
                                  in0_last_block_num_nonzero_subblocks_h,
                                  in0_last_subblock_of_last_block_h,
                                  in0_last_block_padded_block_tiles_h_skip,
                                  out_block_w / out_subblock_w,
                                  last_x ? last_block_num_nonzero_subblocks_w : out_block_w / out_subblock_w,
                                  last_x ? last_subblock_of_last_block_w : out_subblock_w,
                                  last_x ? last_block_padded_subblock_tiles_addr_skip : 0,
                                  last_x ? last_block_padded_block_tiles_w_skip : 0,
                                  0,
                                  0, // bias address and first tile: no bias
                                  last_x ? last_out_num_blocks_w : out_num_blocks_x};
    program.set_runtime_args(in1_kernel, core, args);
  }

  device->command_queue().enqueue_program(program);
  const std::vector<float> c = ttnn_ops::float_tiles(ttnn_ops::read_tiles(*out, M * N), M * kTile, N * kTile);

  ttnn_ops::Verdict check(kOp, [&](size_t i) {
    return "C row " + std::to_string(i / (N * kTile)) + ", column " + std::to_string(i % (N * kTile));
  });
  const uint32_t rows = M * kTile, inner = K * kTile, cols = N * kTile;
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t j = 0; j < cols; ++j) {
      double want = 0, magnitude = 0;
      for (uint32_t k = 0; k < inner; ++k) {
        want += double(a[i * inner + k]) * double(b[k * cols + j]);
        magnitude += std::fabs(double(a[i * inner + k]) * double(b[k * cols + j]));
      }
      const double bound = std::ldexp(magnitude, -8) * (num_blocks + 1);
      check.check(size_t(i) * cols + j, c[size_t(i) * cols + j], want, bound);
    }
  device->close();
  return check.report();
}

int main() { return ttnn_ops::run_guarded(kOp, run); }
