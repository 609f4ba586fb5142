// eltwise_binary: C = A op B on bf16 tiles for op = add, sub and mul, spread
// over every core of the grid. Each core runs a reader (BRISC: A and B from
// DRAM into CBs 0 and 1), a compute kernel (the op, selected by the defines
// ELTWISE_OP / ELTWISE_OP_INIT, into CB 16) and a writer (NCRISC: CB 16 to
// DRAM). Tiles are split as evenly as possible: the first (tiles % cores)
// cores take one more.
//
// Check: inputs are bf16 values, so A op B is computed exactly in float for
// mul and, up to one float rounding, for add and sub; DST then rounds it to
// bf16 (nearest, ties to even) and pack_tile stores that. The result must be
// within half a bf16 ULP of the float64 reference: |c - ref| <= 2^-8 |ref|
// (bf16 has 8 significant bits), with a 2^-24 relative allowance for the
// float rounding before the bf16 one.
#include <cmath>
#include <cstdio>

#include "example.hpp"
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
                                    uint32_t num_tiles, const std::string& op_call) {
  ComputeConfig compute_config;
  compute_config.math_fidelity = MathFidelity::HiFi4;
  compute_config.defines = {{"ELTWISE_OP", op_call}, {"ELTWISE_OP_INIT", op_call + "_init"}};
  Program program;
  const PipelineKernels k = add_pipeline_kernels(program, grid, "eltwise_binary", "eltwise_binary", "eltwise_binary",
                                                 {0, 1, 16}, DataFormat::Float16_b, {&a, &b}, c, compute_config);
  split_tiles(grid, num_tiles, [&](CoreCoord core, uint32_t start, uint32_t count) {
    program.set_runtime_args(k.reader, core, {a.address(), b.address(), start, count});
    program.set_runtime_args(k.compute, core, {count});
    program.set_runtime_args(k.writer, core, {c.address(), start, count});
  });
  return program;
}

RunResult run_eltwise_binary(const RunOptions& o) {
  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t num_cores = grid.x * grid.y;
  const uint32_t num_tiles = o.size ? o.size : 256;
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  const uint64_t bytes = uint64_t(num_tiles) * tile_bytes;

  // Inputs: bf16 values in [-4, 4) from a fixed LCG.
  std::vector<float> a(size_t(num_tiles) * kTileHW), b(a.size());
  uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return bf16_to_float(float_to_bf16(float(double(state >> 40) / double(1ull << 24) * 8.0 - 4.0)));
  };
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = next();
    b[i] = next();
  }
  auto a_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto b_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto c_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  cq.enqueue_write_buffer(*a_buf, pack_tiles(a, DataFormat::Float16_b), false);
  cq.enqueue_write_buffer(*b_buf, pack_tiles(b, DataFormat::Float16_b), false);

  RunResult r;
  r.passed = true;
  std::string report;
  for (const Op& op : kOps) {
    Program program = make_eltwise_binary_program(grid, *a_buf, *b_buf, *c_buf, num_tiles, op.call);
    const Timing timing = compile_and_run(cq, program);
    r.seconds += timing.run_seconds;
    r.compile_seconds += timing.compile_seconds;

    std::vector<uint8_t> out_bytes;
    out_bytes.resize(bytes);
    cq.enqueue_read_buffer(*c_buf, out_bytes, true);
    const std::vector<float> c = unpack_tiles(out_bytes, DataFormat::Float16_b);
    uint64_t bad = 0;
    double worst = 0; // largest |c - ref| / |ref| (ref != 0)
    for (size_t i = 0; i < c.size(); ++i) {
      const double ref = reference(op.symbol, a[i], b[i]);
      const double err = std::fabs(double(c[i]) - ref);
      if (err > std::ldexp(std::fabs(ref), -8) * (1 + std::ldexp(1.0, -24))) ++bad;
      if (ref != 0) worst = std::max(worst, err / std::fabs(ref));
    }
    char worst_text[32];
    std::snprintf(worst_text, sizeof worst_text, "%.2g", worst);
    report += std::string(report.empty() ? "" : ", ") + op.name + " " +
              (bad ? std::to_string(bad) + " VALUES OUTSIDE THE BOUND" : "max rel err " + std::string(worst_text));
    r.passed = r.passed && bad == 0;
  }

  r.summary = "C = A op B on " + std::to_string(num_tiles) + " bf16 tiles over " + std::to_string(num_cores) +
              " cores (" + std::to_string(grid.x) + "x" + std::to_string(grid.y) + " " + device->arch_name() +
              "), reader -> compute -> writer: " + report + " (bound 2^-8 relative, half a bf16 ULP)";
  return r;
}

} // namespace tessel::examples
