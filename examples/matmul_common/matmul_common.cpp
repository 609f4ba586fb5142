#include "matmul_common/matmul_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tessel/command_queue.hpp"
#include "tessel/error.hpp"
#include "tessel/tensor_accessor_args.hpp"
#include "tessel/tile.hpp"

namespace tessel::examples {

DataFormat example_float_format(const RunOptions& o, const char* example) {
  if (o.format.empty()) return DataFormat::Float16_b;
  const DataFormat f = parse_data_format(o.format);
  if (f != DataFormat::Float16_b && f != DataFormat::Float32 && f != DataFormat::Bfp8_b)
    throw ValidationError(std::string(example) + " takes --format Float16_b, Float32 or Bfp8_b, not " + o.format);
  return f;
}

uint32_t matmul_size(const RunOptions& o, uint32_t default_size, const char* example) {
  const uint32_t size = o.size ? o.size : default_size;
  if (size % kTileWidth != 0)
    throw ValidationError(std::string(example) + ": --size " + std::to_string(size) +
                          " is not a multiple of 32 (M = N = K = size must be whole tiles)");
  return size;
}

namespace {
// Values in [-1, 1), rounded to `format` through the tile packer.
std::vector<float> random_matrix(uint32_t rows, uint32_t cols, DataFormat format, uint64_t seed,
                                 std::vector<uint8_t>& packed) {
  std::vector<float> m(size_t(rows) * cols);
  Lcg rng(seed);
  for (float& v : m)
    v = float(rng.uniform(-1.0, 1.0));
  packed = pack_tiles(tilize(m, rows, cols), format);
  return untilize(unpack_tiles(packed, format), rows, cols);
}

// Largest |v| of the 16-value exponent group of element j in a row-major row
// (groups are aligned runs of 16 columns: one face row of a tile).
void group_max_abs(std::span<const double> row, std::span<double> out) {
  for (size_t g = 0; g < row.size(); g += kBfpGroupSize) {
    double m = 0;
    for (size_t j = g; j < g + kBfpGroupSize && j < row.size(); ++j)
      m = std::max(m, std::fabs(row[j]));
    for (size_t j = g; j < g + kBfpGroupSize && j < row.size(); ++j)
      out[j] = m;
  }
}
} // namespace

double pack_error_bound(DataFormat format, double value, double group_max_abs) {
  switch (format) {
  case DataFormat::Float32: return std::ldexp(std::fabs(value), -24);
  case DataFormat::Float16_b: return std::ldexp(std::fabs(value), -8);
  // Half an LSB of the group's scale, or a whole one when rounding carries
  // out and the magnitude clamps (docs/numerics.md).
  case DataFormat::Bfp8_b: return std::ldexp(group_max_abs, -6);
  case DataFormat::Bfp4_b: return std::ldexp(group_max_abs, -2);
  default: return std::fabs(value);
  }
}

double pearson(std::span<const double> x, std::span<const float> y) {
  const size_t n = x.size();
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= double(n);
  my /= double(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = x[i] - mx, dy = double(y[i]) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx == 0 || syy == 0) return sxx == syy ? 1.0 : 0.0;
  return sxy / std::sqrt(sxx * syy);
}

std::string grid_text(CoreCoord grid, const std::string& arch) {
  return std::to_string(grid.x) + "x" + std::to_string(grid.y) + " " + arch;
}

MatmulInputs make_matmul_inputs(uint32_t M, uint32_t N, uint32_t K, DataFormat format) {
  MatmulInputs in;
  in.M = M;
  in.N = N;
  in.K = K;
  in.format = format;
  in.a = random_matrix(M, K, format, 0x9E3779B97F4A7C15ull, in.a_tiles);
  in.b = random_matrix(K, N, format, 0xD1B54A32D192ED03ull, in.b_tiles);
  return in;
}

MatmulCheck check_matmul(const MatmulInputs& in, std::span<const uint8_t> c_tiles, bool fp32_dest_acc,
                         uint32_t spill_k_tiles) {
  const uint32_t M = in.M, N = in.N, K = in.K;
  const DataFormat fmt = in.format;
  const std::vector<float> c = untilize(unpack_tiles(c_tiles, fmt), M, N);
  std::vector<float> bt(size_t(N) * K);
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t j = 0; j < N; ++j)
      bt[size_t(j) * K + k] = in.b[size_t(k) * N + j];

  const double u_dst = fp32_dest_acc ? std::ldexp(1.0, -24) : std::ldexp(1.0, -8);
  const uint32_t spill_k = spill_k_tiles * kTileWidth;
  const uint32_t num_spills = spill_k ? K / spill_k - 1 : 0;
  constexpr uint32_t kStep = 16; // the finest K step after which DST may round

  std::vector<double> ref(size_t(M) * N);
  std::vector<double> row_bound(N), row_ref(N), row_partial(N), group(N);
  std::vector<double> row_partials(size_t(num_spills) * N);
  MatmulCheck r;
  for (uint32_t i = 0; i < M; ++i) {
    const float* a_row = &in.a[size_t(i) * K];
    for (uint32_t j = 0; j < N; ++j) {
      const float* b_col = &bt[size_t(j) * K];
      double acc = 0, dst_sum = 0, abs_sum = 0;
      for (uint32_t k0 = 0; k0 < K; k0 += kStep) {
        for (uint32_t k = k0; k < k0 + kStep; ++k) {
          const double p = double(a_row[k]) * double(b_col[k]);
          acc += p;
          abs_sum += std::fabs(p);
        }
        dst_sum += std::fabs(acc);
        const uint32_t done = k0 + kStep;
        if (spill_k && done % spill_k == 0 && done < K) row_partials[size_t(done / spill_k - 1) * N + j] = acc;
      }
      row_ref[j] = acc;
      row_bound[j] = u_dst * dst_sum + std::ldexp(abs_sum, fmt == DataFormat::Float32 ? -9 : -17);
    }
    for (uint32_t s = 0; s < num_spills; ++s) {
      const std::span<const double> part(&row_partials[size_t(s) * N], N);
      group_max_abs(part, group);
      for (uint32_t j = 0; j < N; ++j)
        row_bound[j] += pack_error_bound(fmt, part[j], group[j]);
    }
    group_max_abs(row_ref, group);
    for (uint32_t j = 0; j < N; ++j) {
      const double bound = 1.02 * (row_bound[j] + pack_error_bound(fmt, row_ref[j], group[j]));
      const double err = std::fabs(double(c[size_t(i) * N + j]) - row_ref[j]);
      ref[size_t(i) * N + j] = row_ref[j];
      if (!(err <= bound)) ++r.outside; // NaN counts as outside
      r.max_abs_err = std::max(r.max_abs_err, err);
      if (bound > 0) r.worst_ratio = std::max(r.worst_ratio, err / bound);
    }
  }
  r.pcc = pearson(ref, c);
  r.passed = r.outside == 0 && r.pcc >= 0.999;
  char text[200];
  std::snprintf(text, sizeof text, "PCC %.6f (>= 0.999), max abs err %.3g, %s (worst err/bound %.2f)", r.pcc,
                r.max_abs_err,
                r.outside ? (std::to_string(r.outside) + " VALUES OUTSIDE THEIR BOUND").c_str()
                          : "every value within its rounding bound",
                r.worst_ratio);
  r.text = text;
  return r;
}

MatmulRun start_matmul(const RunOptions& o, const char* example, uint32_t default_size) {
  MatmulRun m;
  m.format = example_float_format(o, example);
  m.size = matmul_size(o, default_size, example);
  m.Mt = m.size / kTileHeight;
  m.Nt = m.size / kTileWidth;
  m.Kt = m.size / kTileWidth;
  m.tile_bytes = tile_size(m.format);
  m.device = Device::open({o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir});
  m.in = make_matmul_inputs(m.size, m.size, m.size, m.format);
  m.a = Buffer::create(m.device, {m.in.a_tiles.size(), m.tile_bytes, BufferType::DRAM});
  m.b = Buffer::create(m.device, {m.in.b_tiles.size(), m.tile_bytes, BufferType::DRAM});
  m.c = Buffer::create(m.device, {uint64_t(m.Mt) * m.Nt * m.tile_bytes, m.tile_bytes, BufferType::DRAM});
  CommandQueue& cq = m.device->command_queue();
  cq.enqueue_write_buffer(*m.a, m.in.a_tiles, false);
  cq.enqueue_write_buffer(*m.b, m.in.b_tiles, false);
  return m;
}

RunResult finish_matmul(MatmulRun& m, Program& program, uint32_t spill_k_tiles, const std::string& where) {
  CommandQueue& cq = m.device->command_queue();
  const Timing timing = compile_and_run(cq, program);
  std::vector<uint8_t> c_tiles;
  cq.enqueue_read_buffer(*m.c, c_tiles, true);
  const MatmulCheck check = check_matmul(m.in, c_tiles, m.format == DataFormat::Float32, spill_k_tiles);
  RunResult r;
  r.passed = check.passed;
  r.seconds = timing.run_seconds;
  r.compile_seconds = timing.compile_seconds;
  r.summary = "C = A B, M = N = K = " + std::to_string(m.size) + " " + to_string(m.format) + where + ": " + check.text;
  return r;
}

MmKernels add_mm_kernels(Program& program, const CoreRangeSet& cores, const MatmulRun& m,
                         const std::string& reader_example, const std::string& reader_file) {
  for (uint8_t cb : {0, 1, 16})
    program.add_circular_buffer(
        cores, CircularBufferConfig(2 * m.tile_bytes, {{cb, m.format}}).set_page_size(cb, m.tile_bytes));
  std::vector<uint32_t> reader_cta, writer_cta;
  TensorAccessorArgs(*m.a).append_to(reader_cta);
  TensorAccessorArgs(*m.b).append_to(reader_cta);
  TensorAccessorArgs(*m.c).append_to(writer_cta);
  MmKernels k;
  k.reader = program.add_kernel(kernel_path(reader_example, reader_file), cores,
                                DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, reader_cta});
  k.writer = program.add_kernel(kernel_path("matmul_single_core", "writer_unary_interleaved_start_id.cpp"), cores,
                                DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, writer_cta});
  ComputeConfig compute_config;
  compute_config.math_fidelity = MathFidelity::HiFi4;
  compute_config.fp32_dest_acc_en = m.format == DataFormat::Float32;
  k.compute = program.add_kernel(kernel_path("matmul_single_core", "mm.cpp"), cores, compute_config);
  return k;
}

} // namespace tessel::examples
