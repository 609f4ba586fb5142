// sfpu_chain: z = relu(sigmoid(exp(x)) * tanh(y)) with every step on the
// SFPU inside one DST acquire per tile: x and y are copied to DST tiles 0 and
// 1, exp and sigmoid run on tile 0, tanh on tile 1, the SFPU binary multiply
// writes tile 0, relu runs on it, and one pack_tile stores it. Each core of
// the grid runs a reader (BRISC: X and Y into CBs 0 and 1), the compute
// kernel and a writer (NCRISC: CB 16 to Z); the reader and writer are
// eltwise_binary's. --size is the tile count
// (default 64); --format picks the CB format (Float16_b default, Float32
// with fp32_dest_acc_en, Bfp8_b).
//
// Check, first order in the unit roundoff u of DST (2^-8 for a 16-bit DST,
// 2^-24 with fp32_dest_acc_en), against float64 on the values DST held:
// every op is correctly rounded to float and then to DST's precision
// (relative error u' = u + 2^-24 each). sigmoid passes exp's relative error
// on scaled by t (1 - sigmoid(t)) <= 0.28 at t = e^x, and the product adds
// the two operands' errors and its own; relu is exact. So
//   |z - ref| <= (3 + 0.28) u' |ref|, checked as 3.5 u' |ref|,
// plus the output pack (u = 2^-8 relative for Float16_b from a float DST,
// one LSB of the 16-value group for Bfp8_b) and 2^-126 for flushed results.
#include <cmath>
#include <cstdio>
#include <string>

#include "example.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::examples {

namespace {

DataFormat chain_format(const RunOptions& o) {
  if (o.format.empty()) return DataFormat::Float16_b;
  const DataFormat f = parse_data_format(o.format);
  if (f != DataFormat::Float16_b && f != DataFormat::Float32 && f != DataFormat::Bfp8_b)
    throw ValidationError("sfpu_chain takes --format Float16_b, Float32 or Bfp8_b, not " + o.format);
  return f;
}

double chain(double x, double y) {
  const double a = 1 / (1 + std::exp(-std::exp(x)));
  return std::max(a * std::tanh(y), 0.0);
}

} // namespace

RunResult run_sfpu_chain(const RunOptions& o) {
  const DataFormat fmt = chain_format(o);
  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t num_cores = grid.x * grid.y;
  const uint32_t num_tiles = o.size ? o.size : 64;
  const uint32_t tile_bytes = tile_size(fmt);
  const uint64_t bytes = uint64_t(num_tiles) * tile_bytes;
  const bool fp32_dest = fmt == DataFormat::Float32;

  // Inputs uniform in [-2, 2], as stored in fmt; what DST holds of them.
  std::vector<float> x(size_t(num_tiles) * kTileHW), y(x.size());
  Lcg rng(0x9E3779B97F4A7C15ull);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = float(rng.uniform(-2.0, 2.0));
    y[i] = float(rng.uniform(-2.0, 2.0));
  }
  const std::vector<uint8_t> x_bytes = pack_tiles(x, fmt), y_bytes = pack_tiles(y, fmt);
  auto in_dst = [&](const std::vector<uint8_t>& b) {
    std::vector<float> v = unpack_tiles(b, fmt);
    if (!fp32_dest)
      for (float& f : v)
        f = bf16_to_float(float_to_bf16(f));
    return v;
  };
  const std::vector<float> xd = in_dst(x_bytes), yd = in_dst(y_bytes);

  auto x_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto y_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto z_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  cq.enqueue_write_buffer(*x_buf, x_bytes, false);
  cq.enqueue_write_buffer(*y_buf, y_bytes, false);

  ComputeConfig compute_config;
  compute_config.fp32_dest_acc_en = fp32_dest;
  // Float32 inputs reach the 32-bit DST with all their bits (not through SrcA).
  if (fmt == DataFormat::Float32)
    compute_config.unpack_to_dest_mode = {UnpackToDestMode::UnpackToDestFp32, UnpackToDestMode::UnpackToDestFp32};
  Program program;
  const PipelineKernels k = add_pipeline_kernels(program, grid, "sfpu_chain", "eltwise_binary", "eltwise_binary",
                                                 {0, 1, 16}, fmt, {x_buf.get(), y_buf.get()}, *z_buf, compute_config);
  split_tiles(grid, num_tiles, [&](CoreCoord core, uint32_t start, uint32_t count) {
    program.set_runtime_args(k.reader, core, {x_buf->address(), y_buf->address(), start, count});
    program.set_runtime_args(k.compute, core, {count});
    program.set_runtime_args(k.writer, core, {z_buf->address(), start, count});
  });

  RunResult r;
  const Timing timing = compile_and_run(cq, program);
  r.seconds = timing.run_seconds;
  r.compile_seconds = timing.compile_seconds;

  std::vector<uint8_t> out_bytes(bytes);
  cq.enqueue_read_buffer(*z_buf, out_bytes, true);
  const std::vector<float> z = unpack_tiles(out_bytes, fmt);
  const double u = fp32_dest ? 0x1p-24 : 0x1p-8;
  const double chain_bound = 3.5 * (u + 0x1p-24);
  std::vector<double> refs(z.size());
  for (size_t i = 0; i < z.size(); ++i)
    refs[i] = chain(xd[i], yd[i]);
  uint64_t bad = 0;
  double worst = 0; // largest |z - ref| / |ref| (ref != 0)
  for (size_t i = 0; i < z.size(); ++i) {
    double allowed = chain_bound * std::fabs(refs[i]) + 0x1p-126;
    if (fmt == DataFormat::Float16_b && fp32_dest) allowed += 0x1p-8 * std::fabs(refs[i]);
    if (fmt == DataFormat::Bfp8_b) {
      const size_t g = i / kBfpGroupSize * kBfpGroupSize;
      double max_ref = 0;
      for (size_t j = g; j < g + kBfpGroupSize; ++j)
        max_ref = std::max(max_ref, std::fabs(refs[j]));
      int e = 0;
      std::frexp(max_ref * (1 + 0x1p-7), &e); // the group's shared exponent, rounding up included
      allowed += std::ldexp(1.0, e - 1 - 6);
    }
    const double err = std::fabs(double(z[i]) - refs[i]);
    if (!(err <= allowed)) ++bad;
    if (refs[i] != 0) worst = std::max(worst, err / std::fabs(refs[i]));
  }
  r.passed = bad == 0;

  char text[96];
  std::snprintf(text, sizeof text, "max rel err %.2g (bound %.2g + output format)", worst, chain_bound);
  r.summary = "z = relu(sigmoid(exp(x)) * tanh(y)) in one DST acquire per tile on " + std::to_string(num_tiles) + " " +
              to_string(fmt) + " tiles over " + std::to_string(num_cores) + " cores (" + std::to_string(grid.x) + "x" +
              std::to_string(grid.y) + " " + device->arch_name() +
              "): " + (bad ? std::to_string(bad) + " VALUES OUTSIDE THE BOUND" : std::string(text));
  return r;
}

} // namespace tessel::examples
