// eltwise_sfpu: y = op(x) for each SFPU unary op, one program per op, over
// every core of the grid. Each core runs a reader (BRISC: X from DRAM into
// CB 0), a compute kernel (copy_tile to DST, the op in place, pack_tile into
// CB 16; the op comes from the defines SFPU_OP_INIT / SFPU_OP, as in
// TT-Metalium's eltwise_sfpu example) and eltwise_binary's writer (NCRISC:
// CB 16 to DRAM).
// --size is the tile count per op (default 64), split as evenly as possible
// over the cores; --op runs one op (e.g. exp, gelu_approx), none runs all;
// --format picks the CB format (Float16_b default, Float32, Bfp8_b).
// Float32 runs with fp32_dest_acc_en, the others with a 16-bit DST.
//
// Check: every value against a float64 reference computed on the value DST
// held (the input as stored in --format, rounded to bfloat16 by a 16-bit
// DST). The table states each op's bound in ULPs of the result precision
// (bfloat16 for a 16-bit DST or a Float16_b output, float otherwise) or
// relative to the result (the approximations, docs/numerics.md "SFPU ops");
// every value may also differ by what the data path adds: half a float ULP
// where a float result is rounded to bfloat16, 2^-126 where a tiny result is
// flushed to zero, and one LSB of its 16-value exponent group for Bfp8_b.
#include <cmath>
#include <cstdio>
#include <string>

#include "example.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::examples {

namespace {

struct Bound {
  double ulps; // of the result precision
  double rel;  // relative to the reference
  double abs;
};
constexpr Bound kExact{0, 0, 0};               // the result is exactly representable
constexpr Bound kRounded{0.5 + 0x1p-20, 0, 0}; // correctly rounded (float64 reference)

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }

struct SfpuOp {
  const char* name;
  const char* init; // SFPU_OP_INIT
  const char* call; // SFPU_OP ({IN}: the input format's name)
  double lo, hi;    // inputs uniform in [lo, hi]; with signed_magnitude, |x| is, and the sign is random
  bool signed_magnitude;
  double (*ref)(double);
  Bound bound;
};

// clang-format off
const SfpuOp kOps[] = {
  // name            init                          call                                      domain           reference                                                 bound
  {"exp",            "exp_tile_init()",            "exp_tile(0)",                            -10, 10, false,  [](double x) { return std::exp(x); },                     kRounded},
  {"exp_approx",     "exp_tile_init<true>()",      "exp_tile<true>(0)",                      -10, 10, false,  [](double x) { return std::exp(x); },                     {0.5, 0x1p-13, 0}},
  {"exp2",           "exp2_tile_init()",           "exp2_tile(0)",                           -14, 14, false,  [](double x) { return std::exp2(x); },                    kRounded},
  {"log",            "log_tile_init()",            "log_tile(0)",                            0.25, 12, false, [](double x) { return std::log(x); },                     kRounded},
  {"sqrt",           "sqrt_tile_init()",           "sqrt_tile(0)",                           0, 100, false,   [](double x) { return std::sqrt(x); },                    kRounded},
  {"rsqrt",          "rsqrt_tile_init()",          "rsqrt_tile(0)",                          0.25, 12, false, [](double x) { return 1 / std::sqrt(x); },                kRounded},
  {"recip",          "recip_tile_init()",          "recip_tile(0)",                          0.25, 8, true,   [](double x) { return 1 / x; },                           kRounded},
  {"relu",           "relu_tile_init()",           "relu_tile(0)",                           -4, 4, false,    [](double x) { return std::max(x, 0.0); },                kExact},
  {"relu_max",       "relu_max_tile_init()",       "relu_max_tile(0, 0x40200000u)",          -4, 4, false,    [](double x) { return std::min(std::max(x, 0.0), 2.5); }, kExact},
  {"relu_min",       "relu_min_tile_init()",       "relu_min_tile(0, 0x3f000000u)",          -4, 4, false,    [](double x) { return std::max(x, 0.5); },                kExact},
  {"leaky_relu",     "leaky_relu_tile_init()",     "leaky_relu_tile(0, 0x3e000000u)",        -4, 4, false,    [](double x) { return x < 0 ? x * 0.125 : x; },           kExact},
  {"gelu",           "gelu_tile_init<false>()",    "gelu_tile<false>(0)",                    -6, 6, false,    [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }, kRounded},
  {"gelu_approx",    "gelu_tile_init<true>()",     "gelu_tile<true>(0)",                     -6, 6, false,    gelu_tanh,                                                {0.5, 0x1p-12, 0x1p-119}},
  {"sigmoid",        "sigmoid_tile_init()",        "sigmoid_tile(0)",                        -10, 10, false,  sigmoid,                                                  kRounded},
  {"sigmoid_approx", "sigmoid_tile_init<true>()",  "sigmoid_tile<VectorMode::RC, true>(0)",  -10, 10, false,  sigmoid,                                                  {0.5, 0x1p-13, 0x1p-126}},
  {"tanh",           "tanh_tile_init()",           "tanh_tile(0)",                           -5, 5, false,    [](double x) { return std::tanh(x); },                    kRounded},
  {"tanh_approx",    "tanh_tile_init<true>()",     "tanh_tile<true>(0)",                     -5, 5, false,    [](double x) { return std::tanh(x); },                    {0.5, 0x1p-13, 0}},
  {"silu",           "silu_tile_init()",           "silu_tile(0)",                           -8, 8, false,    [](double x) { return x * sigmoid(x); },                  kRounded},
  {"abs",            "abs_tile_init()",            "abs_tile(0)",                            -4, 4, false,    [](double x) { return std::fabs(x); },                    kExact},
  {"negative",       "negative_tile_init()",       "negative_tile(0)",                       -4, 4, false,    [](double x) { return -x; },                              kExact},
  {"square",         "square_tile_init()",         "square_tile(0)",                         -4, 4, false,    [](double x) { return x * x; },                           kRounded},
  {"power",          "power_tile_init()",          "power_tile(0, 3)",                       -3, 3, false,    [](double x) { return x * x * x; },                       kRounded},
  {"sin",            "sin_tile_init()",            "sin_tile(0)",                            -6.3, 6.3, false, [](double x) { return std::sin(x); },                    kRounded},
  {"cos",            "cos_tile_init()",            "cos_tile(0)",                            -6.3, 6.3, false, [](double x) { return std::cos(x); },                    kRounded},
  {"sign",           "sign_tile_init()",           "sign_tile(0)",                           -4, 4, false,    [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }, kExact},
  {"floor",          "rounding_op_tile_init()",    "floor_tile(0)",                          -8, 8, false,    [](double x) { return std::floor(x); },                   kExact},
  {"ceil",           "rounding_op_tile_init()",    "ceil_tile(0)",                           -8, 8, false,    [](double x) { return std::ceil(x); },                    kExact},
  {"fill",           "fill_tile_init()",           "fill_tile(0, -1.75f)",                   -4, 4, false,    [](double) { return -1.75; },                             kExact},
  {"typecast",       "typecast_tile_init()",       "typecast_tile<(uint32_t)DataFormat::{IN}, (uint32_t)DataFormat::Float16_b>(0)",
                                                                                             -4, 4, false,    [](double x) { return double(bf16_to_float(float_to_bf16(float(x)))); }, kExact},
};
// clang-format on

DataFormat sfpu_format(const RunOptions& o) {
  if (o.format.empty()) return DataFormat::Float16_b;
  const DataFormat f = parse_data_format(o.format);
  if (f != DataFormat::Float16_b && f != DataFormat::Float32 && f != DataFormat::Bfp8_b)
    throw ValidationError("eltwise_sfpu takes --format Float16_b, Float32 or Bfp8_b, not " + o.format);
  return f;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// One ULP of a value with `mantissa_bits` explicit bits at the magnitude of r
// (the spacing at 2^-126 below it).
double ulp(double r, int mantissa_bits) {
  int e = 0;
  std::frexp(r, &e);
  return std::ldexp(1.0, std::max(e - 1, -126) - mantissa_bits);
}

// The allowed |y - ref| of each value (see the file comment).
std::vector<double> allowances(const std::vector<double>& refs, const Bound& b, bool bf16_result, DataFormat out) {
  std::vector<double> a(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    const double r = refs[i];
    a[i] = b.ulps * ulp(r, bf16_result ? 7 : 23) + b.rel * std::fabs(r) + b.abs + 0x1p-126 +
           (bf16_result ? 0.5 * ulp(r, 23) : 0.0);
  }
  if (out == DataFormat::Bfp8_b)
    for (size_t g = 0; g < refs.size(); g += kBfpGroupSize) {
      double max_ref = 0;
      for (size_t j = g; j < g + kBfpGroupSize; ++j)
        max_ref = std::max(max_ref, std::fabs(refs[j]));
      int e = 0;
      std::frexp(max_ref * (1 + 0x1p-7), &e); // the group's shared exponent, rounding up included
      for (size_t j = g; j < g + kBfpGroupSize; ++j)
        a[j] += std::ldexp(1.0, e - 1 - 6);
    }
  return a;
}

} // namespace

RunResult run_eltwise_sfpu(const RunOptions& o) {
  const DataFormat fmt = sfpu_format(o);
  std::vector<const SfpuOp*> ops;
  for (const SfpuOp& op : kOps)
    if (o.op.empty() || o.op == op.name) ops.push_back(&op);
  if (ops.empty()) {
    std::string names;
    for (const SfpuOp& op : kOps)
      names += std::string(names.empty() ? "" : ", ") + op.name;
    throw ValidationError("eltwise_sfpu: unknown --op '" + o.op + "'; choose one of " + names + " (or none for all)");
  }

  auto device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  CommandQueue& cq = device->command_queue();
  const CoreCoord grid = device->grid();
  const uint32_t num_cores = grid.x * grid.y;
  const uint32_t num_tiles = o.size ? o.size : 64;
  const uint32_t tile_bytes = tile_size(fmt);
  const uint64_t bytes = uint64_t(num_tiles) * tile_bytes;
  const bool fp32_dest = fmt == DataFormat::Float32;
  const bool bf16_result = !fp32_dest || fmt == DataFormat::Float16_b;

  auto x_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});
  auto y_buf = Buffer::create(device, {bytes, tile_bytes, BufferType::DRAM});

  RunResult r;
  r.passed = true;
  std::string failures;
  const char* worst_op = "";
  double worst_ratio = 0; // largest error / allowance over all ops
  Lcg rng(0x2545F4914F6CDD1Dull);
  for (const SfpuOp* op : ops) {
    // Inputs in the op's domain, as stored in fmt; what DST holds of them.
    std::vector<float> x(size_t(num_tiles) * kTileHW);
    for (float& v : x) {
      const uint64_t state = rng.next();
      const double u = double(state >> 11) / double(1ull << 53);
      v = float(op->lo + (op->hi - op->lo) * u);
      if (op->signed_magnitude && (state >> 7 & 1)) v = -v;
    }
    const std::vector<uint8_t> x_bytes = pack_tiles(x, fmt);
    std::vector<float> in_dst = unpack_tiles(x_bytes, fmt);
    if (!fp32_dest)
      for (float& v : in_dst)
        v = bf16_to_float(float_to_bf16(v));
    cq.enqueue_write_buffer(*x_buf, x_bytes, false);

    ComputeConfig compute_config;
    compute_config.fp32_dest_acc_en = fp32_dest;
    // Float32 inputs reach the 32-bit DST with all their bits (not through SrcA).
    if (fmt == DataFormat::Float32) compute_config.unpack_to_dest_mode = {UnpackToDestMode::UnpackToDestFp32};
    compute_config.defines = {{"SFPU_OP_INIT", op->init}, {"SFPU_OP", replace_all(op->call, "{IN}", to_string(fmt))}};
    Program program;
    const PipelineKernels k = add_pipeline_kernels(program, grid, "eltwise_sfpu", "eltwise_sfpu", "eltwise_binary",
                                                   {0, 16}, fmt, {x_buf.get()}, *y_buf, compute_config);
    split_tiles(grid, num_tiles, [&](CoreCoord core, uint32_t start, uint32_t count) {
      program.set_runtime_args(k.reader, core, {x_buf->address(), start, count});
      program.set_runtime_args(k.compute, core, {count});
      program.set_runtime_args(k.writer, core, {y_buf->address(), start, count});
    });

    const Timing timing = compile_and_run(cq, program);
    r.seconds += timing.run_seconds;
    r.compile_seconds += timing.compile_seconds;

    std::vector<uint8_t> out_bytes(bytes);
    cq.enqueue_read_buffer(*y_buf, out_bytes, true);
    const std::vector<float> y = unpack_tiles(out_bytes, fmt);
    std::vector<double> refs(y.size());
    for (size_t i = 0; i < y.size(); ++i)
      refs[i] = op->ref(in_dst[i]);
    const std::vector<double> allowed = allowances(refs, op->bound, bf16_result, fmt);
    uint64_t bad = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      const double ratio = std::fabs(double(y[i]) - refs[i]) / allowed[i];
      if (!(ratio <= 1)) ++bad;
      if (ratio > worst_ratio) worst_ratio = ratio, worst_op = op->name;
    }
    if (bad) failures += std::string(failures.empty() ? "" : ", ") + op->name + " " + std::to_string(bad);
    r.passed = r.passed && bad == 0;
  }

  char worst_text[64];
  std::snprintf(worst_text, sizeof worst_text, "%.2f of its bound", worst_ratio);
  r.summary =
      "y = op(x) on " + std::to_string(num_tiles) + " " + to_string(fmt) + " tiles over " + std::to_string(num_cores) +
      " cores (" + std::to_string(grid.x) + "x" + std::to_string(grid.y) + " " + device->arch_name() + "), " +
      std::to_string(ops.size()) + (ops.size() == 1 ? " op: " : " ops: ") +
      (failures.empty() ? "all within their bounds (largest error: " + std::string(worst_op) + ", " + worst_text + ")"
                        : "VALUES OUTSIDE THE BOUND: " + failures) +
      " (bounds: 0.5 ULP where correctly rounded, exact ops exact, approximations relative, per op)";
  return r;
}

} // namespace tessel::examples
