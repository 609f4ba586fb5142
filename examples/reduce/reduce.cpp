// reduce: reductions of an H x W tensor (H = --size, W = 2 * --size; size a
// multiple of 32, default 256) in --format (Float16_b default, Float32,
// Bfp8_b) with TT-Metalium's reduce_tile semantics, one program per op:
//   {sum, avg, max} x {row, col, scalar}; --op picks one (e.g. sum_row,
//   max_col, avg_scalar), empty runs all nine.
//   row    (REDUCE_ROW):    along the width; output tile r holds the
//                           results of rows 32r.. in column 0.
//   col    (REDUCE_COL):    along the height; output tile c holds the
//                           results of columns 32c.. in row 0.
//   scalar (REDUCE_SCALAR): everything, into element [0][0] of one tile.
// sum and max use the scaler 1, avg the scaler 1/N (N = W, H or H * W), taken
// by reduce_tile from a Float16_b scaler tile the reader fills (CB 2).
// Row reductions split the tile rows over the grid and column reductions
// the tile columns (split_work_to_cores); scalar runs on core (0,0). Each
// core: reader (BRISC) -> CB 0 -> compute (reduce_init<REDUCE_OP,
// REDUCE_DIM>, reduce_tile per input tile into one DST tile per output,
// reduce_uninit) -> CB 16 -> writer (NCRISC). Float32 runs with
// fp32_dest_acc_en.
//
// Check: every result against the float64 reference (exact 1/N for avg),
// within a first-order rounding bound, times 1.02:
//   max: exact, up to the output pack (and Float32 inputs cut to the
//     multiplier's 10 explicit mantissa bits: 2^-10 |ref|);
//   sum, avg: 2^-8 (bf16 DST; 2^-24 with fp32_dest_acc_en) times the sum of
//     |partial results| after each input tile, plus the scaler's bf16
//     rounding |s' - s| sum|x|, plus 2^-13 s sum|x| (float sums within a
//     tile; 2^-10 more for Float32 inputs), plus the output pack (2^-8 |ref|
//     for Float16_b, 2^-6 of the exponent group's max for Bfp8_b).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "example.hpp"
#include "matmul_common/matmul_common.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {

enum class Pool { Sum, Avg, Max };
enum class Dim { Row, Col, Scalar };

struct ReduceOp {
  const char* name;
  Pool pool;
  Dim dim;
};

const ReduceOp kOps[] = {
    {"sum_row", Pool::Sum, Dim::Row}, {"sum_col", Pool::Sum, Dim::Col}, {"sum_scalar", Pool::Sum, Dim::Scalar},
    {"avg_row", Pool::Avg, Dim::Row}, {"avg_col", Pool::Avg, Dim::Col}, {"avg_scalar", Pool::Avg, Dim::Scalar},
    {"max_row", Pool::Max, Dim::Row}, {"max_col", Pool::Max, Dim::Col}, {"max_scalar", Pool::Max, Dim::Scalar},
};

const char* pool_define(Pool p) {
  return p == Pool::Sum ? "PoolType::SUM" : p == Pool::Avg ? "PoolType::AVG" : "PoolType::MAX";
}
const char* dim_define(Dim d) {
  return d == Dim::Row ? "ReduceDim::REDUCE_ROW" : d == Dim::Col ? "ReduceDim::REDUCE_COL" : "ReduceDim::REDUCE_SCALAR";
}

struct Tensor {
  uint32_t H, W;
  std::vector<float> x; // row-major, as stored in the device format
  float at(uint32_t r, uint32_t c) const { return x[size_t(r) * W + c]; }
};

// One op's comparison over all its output values.
struct Outcome {
  double max_abs_err = 0, worst_ratio = 0;
  uint64_t outside = 0;
};

struct Result {
  double ref = 0, bound = 0; // bound before the output pack's rounding and the 1.02
};

// Reference and bound of one output value from its inputs grouped by input
// tile, in the order the device reduces them (one reduce_tile call each).
// s: the exact scaler; s_used: the bf16 scaler the device multiplies by.
Result reduce_reference(Pool pool, double s, double s_used, bool fp32_dest, bool fp32_in,
                        const std::vector<std::vector<float>>& tiles) {
  Result r;
  if (pool == Pool::Max) {
    double m = -INFINITY;
    for (const auto& t : tiles)
      for (float v : t)
        m = std::max(m, double(v));
    r.ref = m * s;
    r.bound = fp32_in ? std::ldexp(std::fabs(r.ref), -10) : 0;
    return r;
  }
  const double u_dst = fp32_dest ? std::ldexp(1.0, -24) : std::ldexp(1.0, -8);
  double acc = 0, abs_sum = 0, partials = 0;
  for (const auto& t : tiles) {
    for (float v : t) {
      acc += double(v);
      abs_sum += std::fabs(double(v));
    }
    partials += std::fabs(acc * s);
  }
  r.ref = acc * s;
  r.bound = u_dst * partials + std::fabs(s_used - s) * abs_sum + std::ldexp(s * abs_sum, -13) +
            (fp32_in ? std::ldexp(s * abs_sum, -10) : 0);
  return r;
}

} // namespace

RunResult run_reduce(const RunOptions& o) {
  const DataFormat fmt = example_float_format(o, "reduce");
  const uint32_t size = o.size ? o.size : 256;
  if (size % kTileHeight != 0)
    throw ValidationError("reduce: --size " + std::to_string(size) +
                          " is not a multiple of 32 (the tensor is size x 2*size, whole tiles)");
  std::vector<const ReduceOp*> ops;
  for (const ReduceOp& op : kOps)
    if (o.op.empty() || o.op == op.name) ops.push_back(&op);
  if (ops.empty()) {
    std::string names;
    for (const ReduceOp& op : kOps)
      names += std::string(names.empty() ? "" : ", ") + op.name;
    throw ValidationError("reduce: unknown --op '" + o.op + "'; choose one of " + names + " (or none for all)");
  }

  const uint32_t H = size, W = 2 * size, Ht = H / kTileHeight, Wt = W / kTileWidth;
  const bool fp32 = fmt == DataFormat::Float32;
  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();

  // Input: values in [-4, 4), as stored in fmt, except that row 0 and
  // column 0 are all negative, so a max that starts from DST's zero is caught.
  Tensor in{H, W, std::vector<float>(size_t(H) * W)};
  Lcg rng(0x2545F4914F6CDD1Dull);
  for (size_t i = 0; i < in.x.size(); ++i) {
    const double v = rng.uniform(-4.0, 4.0);
    in.x[i] = float(i < W || i % W == 0 ? -0.25 - std::fabs(v) : v);
  }
  const std::vector<uint8_t> in_tiles = pack_tiles(tilize(in.x, H, W), fmt);
  in.x = untilize(unpack_tiles(in_tiles, fmt), H, W);
  const uint32_t tile_bytes = tile_size(fmt);
  auto in_buf = Buffer::create(device, {in_tiles.size(), tile_bytes, BufferType::DRAM});
  auto out_buf = Buffer::create(device, {uint64_t(std::max(Ht, Wt)) * tile_bytes, tile_bytes, BufferType::DRAM});
  cq.enqueue_write_buffer(*in_buf, in_tiles, false);

  std::vector<uint32_t> reader_cta, writer_cta;
  TensorAccessorArgs(*in_buf).append_to(reader_cta);
  TensorAccessorArgs(*out_buf).append_to(writer_cta);

  RunResult r;
  r.passed = true;
  std::string report;
  for (const ReduceOp* op : ops) {
    // Work: one unit per output tile.
    const uint32_t outputs = op->dim == Dim::Row ? Ht : op->dim == Dim::Col ? Wt : 1;
    const uint32_t tiles_per_output = op->dim == Dim::Row ? Wt : op->dim == Dim::Col ? Ht : Ht * Wt;
    const uint32_t n = op->dim == Dim::Row ? W : op->dim == Dim::Col ? H : H * W;
    const double s = op->pool == Pool::Avg ? 1.0 / n : 1.0;
    const uint16_t s_bits = float_to_bf16(float(s));
    const double s_used = bf16_to_float(s_bits);
    const WorkSplit split = split_work_to_cores(grid, outputs);

    Program program;
    program.add_circular_buffer(split.all_cores,
                                CircularBufferConfig(2 * tile_bytes, {{0, fmt}}).set_page_size(0, tile_bytes));
    const uint32_t bf16_tile = tile_size(DataFormat::Float16_b);
    program.add_circular_buffer(
        split.all_cores, CircularBufferConfig(bf16_tile, {{2, DataFormat::Float16_b}}).set_page_size(2, bf16_tile));
    program.add_circular_buffer(split.all_cores,
                                CircularBufferConfig(2 * tile_bytes, {{16, fmt}}).set_page_size(16, tile_bytes));
    KernelHandle reader =
        program.add_kernel(kernel_path("reduce", "reader_reduce.cpp"), split.all_cores,
                           DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, reader_cta});
    KernelHandle writer =
        program.add_kernel(kernel_path("reduce", "writer_reduce.cpp"), split.all_cores,
                           DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, writer_cta});
    ComputeConfig compute_config;
    compute_config.math_fidelity = MathFidelity::HiFi4;
    compute_config.fp32_dest_acc_en = fp32;
    compute_config.defines = {{"REDUCE_OP", pool_define(op->pool)}, {"REDUCE_DIM", dim_define(op->dim)}};
    KernelHandle compute = program.add_kernel(kernel_path("reduce", "reduce.cpp"), split.all_cores, compute_config);

    // Cores in split_work_to_cores' order (column-major) take consecutive outputs.
    uint32_t start = 0;
    for (uint32_t i = 0; i < split.num_cores; ++i) {
      const CoreCoord core{i / grid.y, i % grid.y};
      const uint32_t count = split.group_1.contains(core) ? split.units_per_core_group_1 : split.units_per_core_group_2;
      // Tile (o, i) of this core = first + o * output_stride + i * input_stride.
      const uint32_t first = op->dim == Dim::Row ? start * Wt : op->dim == Dim::Col ? start : 0;
      const uint32_t output_stride = op->dim == Dim::Row ? Wt : op->dim == Dim::Col ? 1 : 0;
      const uint32_t input_stride = op->dim == Dim::Col ? Wt : 1;
      program.set_runtime_args(
          reader, core, {in_buf->address(), s_bits, count, tiles_per_output, first, output_stride, input_stride});
      program.set_runtime_args(compute, core, {count, tiles_per_output});
      program.set_runtime_args(writer, core, {out_buf->address(), start, count});
      start += count;
    }

    const Timing timing = compile_and_run(cq, program);
    r.seconds += timing.run_seconds;
    r.compile_seconds += timing.compile_seconds;
    std::vector<uint8_t> out_bytes;
    cq.enqueue_read_buffer(*out_buf, out_bytes, true);
    out_bytes.resize(size_t(outputs) * tile_bytes);
    const std::vector<float> out = unpack_tiles(out_bytes, fmt);

    // Each output value: its position in the output tiles and its inputs, by tile.
    const uint32_t values_per_tile = op->dim == Dim::Scalar ? 1 : kTileWidth;
    Outcome oc;
    std::vector<Result> results(values_per_tile);
    std::vector<double> group(values_per_tile);
    for (uint32_t t = 0; t < outputs; ++t) {
      for (uint32_t v = 0; v < values_per_tile; ++v) {
        std::vector<std::vector<float>> tiles(tiles_per_output);
        for (uint32_t i = 0; i < tiles_per_output; ++i) {
          auto& vals = tiles[i];
          if (op->dim == Dim::Row) // row 32t + v, tile column i
            for (uint32_t c = 0; c < kTileWidth; ++c)
              vals.push_back(in.at(t * kTileHeight + v, i * kTileWidth + c));
          else if (op->dim == Dim::Col) // column 32t + v, tile row i
            for (uint32_t rr = 0; rr < kTileHeight; ++rr)
              vals.push_back(in.at(i * kTileHeight + rr, t * kTileWidth + v));
          else // tile (i / Wt, i % Wt), all of it
            for (uint32_t rr = 0; rr < kTileHeight; ++rr)
              for (uint32_t c = 0; c < kTileWidth; ++c)
                vals.push_back(in.at((i / Wt) * kTileHeight + rr, (i % Wt) * kTileWidth + c));
        }
        results[v] = reduce_reference(op->pool, s, s_used, fp32, fp32, tiles);
      }
      // Bfp exponent groups: the 16 values of a face row. Row results share
      // theirs with zeros; column results with 15 neighbours in row 0.
      for (uint32_t v = 0; v < values_per_tile; ++v) {
        double m = 0;
        if (op->dim == Dim::Col)
          for (uint32_t u = v / 16 * 16; u < v / 16 * 16 + 16; ++u)
            m = std::max(m, std::fabs(results[u].ref));
        else
          m = std::fabs(results[v].ref);
        group[v] = m;
      }
      for (uint32_t v = 0; v < values_per_tile; ++v) {
        const uint32_t row = op->dim == Dim::Row ? v : 0, col = op->dim == Dim::Col ? v : 0;
        const uint32_t pos = (row / 16 * 2 + col / 16) * kFaceHW + (row % 16) * kFaceWidth + col % 16;
        const double got = out[size_t(t) * kTileHW + pos];
        const double bound = 1.02 * (results[v].bound + pack_error_bound(fmt, results[v].ref, group[v]));
        const double err = std::fabs(got - results[v].ref);
        if (!(err <= bound)) ++oc.outside;
        oc.max_abs_err = std::max(oc.max_abs_err, err);
        if (bound > 0) oc.worst_ratio = std::max(oc.worst_ratio, err / bound);
      }
    }
    char text[160];
    std::snprintf(text, sizeof text, "%s max abs err %.3g (worst err/bound %.2f)", op->name, oc.max_abs_err,
                  oc.worst_ratio);
    report += std::string(report.empty() ? "" : ", ") +
              (oc.outside ? std::string(op->name) + " " + std::to_string(oc.outside) + " VALUES OUTSIDE THE BOUND"
                          : std::string(text));
    r.passed = r.passed && oc.outside == 0;
  }

  r.summary = "reduce a " + std::to_string(H) + " x " + std::to_string(W) + " " + to_string(fmt) + " tensor (" +
              grid_text(grid, device->arch_name()) + "): " + report +
              " (bounds: max exact up to the output format, and Float32's 10-bit multiplier operands; sum and avg "
              "first-order: DST rounding of every partial, the scaler's and the output format's rounding)";
  return r;
}

} // namespace tessel::examples
