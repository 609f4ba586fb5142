// The parts matmul_multicore_reuse and matmul_multicore_reuse_mcast share:
// choosing and checking the blocking, the CBs, the blocked compute kernel and
// the writer, and the run-and-check body of their examples.
#include <cstdlib>
#include <string>

#include "matmul_common/matmul_common.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {
std::string num(uint32_t v) { return std::to_string(v); }

// The smallest divisor d of n with n / d <= max_parts.
uint32_t smallest_divisor_within(uint32_t n, uint32_t max_parts) {
  for (uint32_t d = 1; d < n; ++d)
    if (n % d == 0 && n / d <= max_parts) return d;
  return n;
}

uint32_t dst_tiles(DataFormat format) { return format == DataFormat::Float32 ? 4 : 8; }
} // namespace

MatmulBlocking choose_matmul_blocking(CoreCoord grid, uint32_t Mt, uint32_t Nt, uint32_t Kt, DataFormat format) {
  if (grid.x == 0 || grid.y == 0 || Mt == 0 || Nt == 0 || Kt == 0)
    throw ValidationError("choose_matmul_blocking: grid " + num(grid.x) + "x" + num(grid.y) +
                          " and Mt, Nt, Kt = " + num(Mt) + ", " + num(Nt) + ", " + num(Kt) + " must all be positive");
  MatmulBlocking b;
  b.per_core_M = smallest_divisor_within(Mt, grid.y);
  b.per_core_N = smallest_divisor_within(Nt, grid.x);
  for (uint32_t w = 1; w <= 4 && w <= Kt; ++w)
    if (Kt % w == 0) b.in0_block_w = w;
  // The largest sub-block that fits DST, the squarer of equal sizes.
  uint32_t best_area = 0, best_skew = 0;
  for (uint32_t h = 1; h <= b.per_core_M; ++h)
    for (uint32_t w = 1; w <= b.per_core_N && h * w <= dst_tiles(format); ++w) {
      if (b.per_core_M % h || b.per_core_N % w) continue;
      const uint32_t skew = h > w ? h - w : w - h;
      if (h * w > best_area || (h * w == best_area && skew < best_skew)) {
        best_area = h * w;
        best_skew = skew;
        b.out_subblock_h = h;
        b.out_subblock_w = w;
      }
    }
  return b;
}

MatmulBlocking resolve_matmul_blocking(const char* caller, CoreCoord grid, const Buffer& a, const Buffer& b,
                                       const Buffer& c, uint32_t Mt, uint32_t Nt, uint32_t Kt, DataFormat format,
                                       const MatmulBlocking& blocking) {
  const std::string who(caller);
  if (format != DataFormat::Float16_b && format != DataFormat::Float32 && format != DataFormat::Bfp8_b &&
      format != DataFormat::Bfp4_b)
    throw ValidationError(who + ": format " + to_string(format) +
                          " is not a float tile format (Float16_b, Float32, Bfp8_b or Bfp4_b)");
  const MatmulBlocking bl = blocking.per_core_M == 0 && blocking.per_core_N == 0 && blocking.in0_block_w == 0 &&
                                    blocking.out_subblock_h == 0 && blocking.out_subblock_w == 0
                                ? choose_matmul_blocking(grid, Mt, Nt, Kt, format)
                                : blocking;
  const std::string shape = "per_core_M " + num(bl.per_core_M) + ", per_core_N " + num(bl.per_core_N) +
                            ", in0_block_w " + num(bl.in0_block_w) + ", sub-block " + num(bl.out_subblock_h) + "x" +
                            num(bl.out_subblock_w);
  if (!bl.per_core_M || !bl.per_core_N || !bl.in0_block_w || !bl.out_subblock_h || !bl.out_subblock_w ||
      Mt % bl.per_core_M || Nt % bl.per_core_N || Kt % bl.in0_block_w || bl.per_core_M % bl.out_subblock_h ||
      bl.per_core_N % bl.out_subblock_w)
    throw ValidationError(who + ": blocking (" + shape + ") does not divide Mt, Nt, Kt = " + num(Mt) + ", " + num(Nt) +
                          ", " + num(Kt) +
                          ": every field must be positive, per_core_M | Mt, per_core_N | Nt, in0_block_w | Kt and "
                          "the sub-block must divide the per-core block");
  if (bl.out_subblock_h * bl.out_subblock_w > dst_tiles(format))
    throw ValidationError(who + ": sub-block " + num(bl.out_subblock_h) + "x" + num(bl.out_subblock_w) + " needs " +
                          num(bl.out_subblock_h * bl.out_subblock_w) + " DST tiles, but one acquire holds " +
                          num(dst_tiles(format)) + " with " + to_string(format));
  if (Mt / bl.per_core_M > grid.y || Nt / bl.per_core_N > grid.x)
    throw ValidationError(who + ": blocking (" + shape + ") needs " + num(Nt / bl.per_core_N) + "x" +
                          num(Mt / bl.per_core_M) + " cores, more than the " + num(grid.x) + "x" + num(grid.y) +
                          " grid");
  const uint32_t tile_bytes = tile_size(format);
  const struct {
    const Buffer& buf;
    const char* name;
    uint64_t tiles;
  } operands[] = {{a, "a", uint64_t(Mt) * Kt}, {b, "b", uint64_t(Kt) * Nt}, {c, "c", uint64_t(Mt) * Nt}};
  for (const auto& op : operands)
    if (op.buf.page_size() != tile_bytes || op.buf.size() < op.tiles * tile_bytes)
      throw ValidationError(who + ": buffer " + op.name + " has " + std::to_string(op.buf.size()) + " B in pages of " +
                            num(op.buf.page_size()) + " B; it must hold " + std::to_string(op.tiles) + " " +
                            to_string(format) + " tiles, one per " + num(tile_bytes) + " B page");
  return bl;
}

CoreCoord matmul_cores(const MatmulBlocking& blocking, uint32_t Mt, uint32_t Nt) {
  return {Nt / blocking.per_core_N, Mt / blocking.per_core_M};
}

MatmulBlockKernels add_matmul_block_kernels(Program& program, const CoreRangeSet& cores, const Buffer& c, uint32_t Kt,
                                            DataFormat format, MathFidelity fidelity, const MatmulBlocking& bl) {
  const uint32_t tile_bytes = tile_size(format);
  const uint32_t in0_block_tiles = bl.per_core_M * bl.in0_block_w;
  const uint32_t in1_block_tiles = bl.in0_block_w * bl.per_core_N;
  const uint32_t out_block_tiles = bl.per_core_M * bl.per_core_N;
  constexpr uint8_t kIn0 = 0, kIn1 = 1, kOut = 16, kInterm = 24;
  program.add_circular_buffer(
      cores, CircularBufferConfig(2 * in0_block_tiles * tile_bytes, {{kIn0, format}}).set_page_size(kIn0, tile_bytes));
  program.add_circular_buffer(
      cores, CircularBufferConfig(2 * in1_block_tiles * tile_bytes, {{kIn1, format}}).set_page_size(kIn1, tile_bytes));
  // One region for the output and the partials (see bmm_large_block_zm.cpp).
  program.add_circular_buffer(cores,
                              CircularBufferConfig(out_block_tiles * tile_bytes, {{kOut, format}, {kInterm, format}})
                                  .set_page_size(kOut, tile_bytes)
                                  .set_page_size(kInterm, tile_bytes));

  const uint32_t in0_num_subblocks = bl.per_core_M / bl.out_subblock_h;
  const uint32_t in1_num_subblocks = bl.per_core_N / bl.out_subblock_w;
  ComputeConfig compute;
  compute.math_fidelity = fidelity;
  compute.fp32_dest_acc_en = format == DataFormat::Float32;
  compute.compile_args = {bl.in0_block_w,
                          in0_num_subblocks,
                          in0_block_tiles,
                          bl.out_subblock_h * bl.in0_block_w,
                          in1_num_subblocks,
                          in1_block_tiles,
                          bl.per_core_N,
                          Kt / bl.in0_block_w,
                          bl.out_subblock_h,
                          bl.out_subblock_w,
                          bl.out_subblock_h * bl.out_subblock_w,
                          1};
  MatmulBlockKernels k;
  k.compute = program.add_kernel(kernel_path("matmul_common", "bmm_large_block_zm.cpp"), cores, compute);
  std::vector<uint32_t> writer_cta;
  TensorAccessorArgs(c).append_to(writer_cta);
  writer_cta.insert(writer_cta.end(), {bl.out_subblock_h, bl.out_subblock_w, in0_num_subblocks, in1_num_subblocks});
  k.writer = program.add_kernel(kernel_path("matmul_common", "writer_bmm_tile_layout.cpp"), cores,
                                DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, writer_cta});
  return k;
}

RunResult run_blocked_matmul(const RunOptions& o, const char* example, uint32_t default_size, MatmulProgramMaker make,
                             const char* how) {
  MatmulRun m = start_matmul(o, example, default_size);
  const CoreCoord grid = m.device->grid();
  const MatmulBlocking bl = choose_matmul_blocking(grid, m.Mt, m.Nt, m.Kt, m.format);
  Program program = make(grid, *m.a, *m.b, *m.c, m.Mt, m.Nt, m.Kt, m.format, MathFidelity::HiFi4, bl);
  const CoreCoord used = matmul_cores(bl, m.Mt, m.Nt);
  return finish_matmul(m, program, bl.in0_block_w,
                       ", " + std::string(how) + " on " + num(used.x) + "x" + num(used.y) + " cores of the " +
                           grid_text(grid, m.device->arch_name()) + " grid, " + num(bl.per_core_M) + "x" +
                           num(bl.per_core_N) + " output tiles per core in " + num(bl.out_subblock_h) + "x" +
                           num(bl.out_subblock_w) + " sub-blocks, K blocks of " + num(bl.in0_block_w) + " tiles");
}

} // namespace tessel::examples
