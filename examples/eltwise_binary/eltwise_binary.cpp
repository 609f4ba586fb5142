// eltwise_binary: C = A op B on bf16 tiles for op = add, sub and mul, spread
// over every core of the grid. Each core runs a reader (BRISC: A and B from
// DRAM into CBs 0 and 1), a compute kernel (the op, selected by the defines
// ELTWISE_OP / ELTWISE_OP_INIT, into CB 16) and a writer (NCRISC: CB 16 to
// DRAM). Tiles are split as evenly as possible: the first (tiles % cores)
// cores take one more.
//
// --format picks the CB format: Float16_b (default), Float32 (with
// fp32_dest_acc_en) or Bfp8_b.
//
// Check: the reference is A op B in float64 on the values the FPU sees (the
// stored values; Float32 ones cut to the source registers' 10 mantissa bits).
// The device computes it in float (exact for mul, one float rounding for add
// and sub: 2^-24 relative), rounds it into DST (bf16: half a bf16 ULP,
// 2^-8 relative; nothing with fp32_dest_acc_en) and packs it (Float16_b
// after a bf16 DST: exact; Float32: nothing; Bfp8_b: 2^-6 of the largest
// |value| of its 16-value exponent group). Every element must be within the
// sum of those terms.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "example.hpp"
#include "matmul_common/matmul_common.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::examples {

namespace {
struct Op {
  const char* name;
  const char* call;
  char symbol;
};
const Op kOps[] = {{"add", "add_tiles", '+'}, {"sub", "sub_tiles", '-'}, {"mul", "mul_tiles", '*'}};

double reference(char symbol, double a, double b) { return symbol == '+' ? a + b : symbol == '-' ? a - b : a * b; }
} // namespace

Program make_eltwise_binary_program(CoreCoord grid, const Buffer& a, const Buffer& b, const Buffer& c,
                                    uint32_t num_tiles, const std::string& op_call, DataFormat format) {
  ComputeConfig compute_config;
  compute_config.math_fidelity = MathFidelity::HiFi4;
  compute_config.fp32_dest_acc_en = format == DataFormat::Float32;
  compute_config.defines = {{"ELTWISE_OP", op_call}, {"ELTWISE_OP_INIT", op_call + "_init"}};
  Program program;
  const PipelineKernels k = add_pipeline_kernels(program, grid, "eltwise_binary", "eltwise_binary", "eltwise_binary",
                                                 {0, 1, 16}, format, {&a, &b}, c, compute_config);
  split_tiles(grid, num_tiles, [&](CoreCoord core, uint32_t start, uint32_t count) {
    program.set_runtime_args(k.reader, core, {a.address(), b.address(), start, count});
    program.set_runtime_args(k.compute, core, {count});
    program.set_runtime_args(k.writer, core, {c.address(), start, count});
  });
  return program;
}

RunResult run_eltwise_binary(const RunOptions& o) {
  const DataFormat fmt = example_float_format(o, "eltwise_binary");
  const bool fp32_dest = fmt == DataFormat::Float32;
  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t num_cores = grid.x * grid.y;
  const uint32_t num_tiles = o.size ? o.size : 256;
  const uint32_t tile_bytes = tile_size(fmt);
  const uint64_t bytes = uint64_t(num_tiles) * tile_bytes;

  // Inputs: values in [-4, 4) from a fixed LCG, stored in `fmt`; a and b as
  // the FPU's source registers hold them.
  std::vector<float> a(size_t(num_tiles) * kTileHW), b(a.size());
  Lcg rng(0x2545F4914F6CDD1Dull);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(rng.uniform(-4.0, 4.0));
    b[i] = float(rng.uniform(-4.0, 4.0));
  }
  const std::vector<uint8_t> a_bytes = pack_tiles(a, fmt), b_bytes = pack_tiles(b, fmt);
  auto as_source = [&](const std::vector<uint8_t>& packed) {
    std::vector<float> v = unpack_tiles(packed, fmt);
    if (fmt == DataFormat::Float32)
      for (float& x : v)
        x = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & ~0x1fffu);
    return v;
  };
  a = as_source(a_bytes);
  b = as_source(b_bytes);
  auto a_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto b_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto c_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  cq.enqueue_write_buffer(*a_buf, a_bytes, false);
  cq.enqueue_write_buffer(*b_buf, b_bytes, false);

  RunResult r;
  r.passed = true;
  std::string report;
  std::vector<double> ref(a.size());
  for (const Op& op : kOps) {
    Program program = make_eltwise_binary_program(grid, *a_buf, *b_buf, *c_buf, num_tiles, op.call, fmt);
    const Timing timing = compile_and_run(cq, program);
    r.seconds += timing.run_seconds;
    r.compile_seconds += timing.compile_seconds;

    std::vector<uint8_t> out_bytes;
    cq.enqueue_read_buffer(*c_buf, out_bytes, true);
    const std::vector<float> c = unpack_tiles(out_bytes, fmt);
    for (size_t i = 0; i < ref.size(); ++i)
      ref[i] = reference(op.symbol, a[i], b[i]);
    uint64_t bad = 0;
    double worst = 0; // largest |c - ref| / bound
    for (size_t g = 0; g < c.size(); g += kBfpGroupSize) {
      double group_max = 0;
      for (size_t i = g; i < g + kBfpGroupSize; ++i)
        group_max = std::max(group_max, std::fabs(ref[i]));
      for (size_t i = g; i < g + kBfpGroupSize; ++i) {
        const double mag = std::fabs(ref[i]);
        double bound = std::ldexp(mag, -24) + (fp32_dest ? 0 : std::ldexp(mag, -8));
        if (fmt != DataFormat::Float16_b) bound += pack_error_bound(fmt, ref[i], group_max * (1 + 0x1p-7));
        const double err = std::fabs(double(c[i]) - ref[i]);
        if (!(err <= bound)) ++bad;
        if (bound > 0) worst = std::max(worst, err / bound);
      }
    }
    char worst_text[32];
    std::snprintf(worst_text, sizeof worst_text, "%.2f", worst);
    report += std::string(report.empty() ? "" : ", ") + op.name + " " +
              (bad ? std::to_string(bad) + " VALUES OUTSIDE THE BOUND"
                   : "worst error " + std::string(worst_text) + " of its bound");
    r.passed = r.passed && bad == 0;
  }

  r.summary = "C = A op B on " + std::to_string(num_tiles) + " " + to_string(fmt) + " tiles over " +
              std::to_string(num_cores) + " cores (" + std::to_string(grid.x) + "x" + std::to_string(grid.y) + " " +
              device->arch_name() + "), reader -> compute -> writer: " + report +
              " (bound: float rounding, DST rounding, pack rounding per element)";
  return r;
}

} // namespace tessel::examples
