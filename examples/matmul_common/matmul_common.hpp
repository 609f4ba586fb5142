// Host helpers shared by the matmul examples: problem sizes and formats from
// RunOptions, input generation in the device format, and the check of a
// device result against a float64 reference.
//
// The check (the bound every matmul example states):
//  - PCC(C, reference) >= 0.999, and
//  - for every element, |c - ref| <= bound, where bound is a first-order
//    rounding-error bound for the device's data path, computed from the
//    float64 reference itself:
//      u_dst * sum of |partial sum| after every 16-deep step of K
//        (DST keeps bfloat16 precision, u_dst = 2^-8, unless fp32_dest_acc_en,
//        u_dst = 2^-24; an engine that rounds once per 32-deep tile or once
//        per 16-deep face is covered either way)
//      + u_fmt * |partial| for every partial spilled to the intermediate CB
//        and for the final pack (u_fmt = 2^-8 for Float16_b, 2^-24 for
//        Float32; for Bfp8_b, 2^-6 times the largest |value| of the 16-value
//        exponent group it shares)
//      + 2^-17 * sum_k |a_ik b_kj| (float accumulation inside one tile step;
//        2^-9 for Float32 inputs, which the multiplier cuts to 10 explicit
//        mantissa bits, as the source registers hold them)
//    all times 1.02 for second-order terms. The inputs are generated in the
//    device format, so the reference multiplies exactly the values the device
//    reads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "example.hpp"
#include "tessel/buffer.hpp"
#include "tessel/data_format.hpp"
#include "tessel/device.hpp"
#include "tessel/program.hpp"

namespace tessel::examples {

// The data format of a matmul or reduce run: RunOptions::format, Float16_b
// when empty. Throws ValidationError for formats these examples do not take
// (they take Float16_b, Float32 and Bfp8_b).
DataFormat example_float_format(const RunOptions& o, const char* example);

// M = N = K = size (default_size when 0); throws ValidationError unless it is
// a positive multiple of 32.
uint32_t matmul_size(const RunOptions& o, uint32_t default_size, const char* example);

struct MatmulInputs {
  uint32_t M = 0, N = 0, K = 0;
  DataFormat format = DataFormat::Float16_b;
  std::vector<float> a, b;               // row-major M x K and K x N, values as stored in `format`
  std::vector<uint8_t> a_tiles, b_tiles; // tilized and packed in `format`, one page per tile
};

// Values in [-1, 1) from a fixed LCG, rounded to `format`.
MatmulInputs make_matmul_inputs(uint32_t M, uint32_t N, uint32_t K, DataFormat format);

struct MatmulCheck {
  bool passed = false;
  double pcc = 0;
  double max_abs_err = 0;
  double worst_ratio = 0; // max |err| / bound
  uint64_t outside = 0;   // elements beyond their bound
  std::string text;       // "PCC ..., max abs err ... " for the summary line
};

// Checks `c_tiles` (the device output, packed in in.format) against the
// float64 reference. spill_k_tiles: the K tiles between spills of partials to
// the intermediate CB (0: no spills).
MatmulCheck check_matmul(const MatmulInputs& in, std::span<const uint8_t> c_tiles, bool fp32_dest_acc,
                         uint32_t spill_k_tiles);

// Upper bound of the error that packing `value` into `format` adds, given the
// largest |value| of its Bfp exponent group (ignored for other formats).
double pack_error_bound(DataFormat format, double value, double group_max_abs);

// Pearson correlation of two equally long sequences.
double pearson(std::span<const double> x, std::span<const float> y);

// "1x1 blackhole"-style grid text used in summaries.
std::string grid_text(CoreCoord grid, const std::string& arch);

// What every matmul example starts from: the problem from RunOptions, a
// fresh device, the inputs written to interleaved DRAM buffers a and b (one
// tile per page, row-major tiles) and the output buffer c.
struct MatmulRun {
  DataFormat format = DataFormat::Float16_b;
  uint32_t size = 0, Mt = 0, Nt = 0, Kt = 0, tile_bytes = 0;
  std::shared_ptr<Device> device;
  MatmulInputs in;
  std::shared_ptr<Buffer> a, b, c;
};
MatmulRun start_matmul(const RunOptions& o, const char* example, uint32_t default_size);

// Compiles and runs `program`, reads c and checks it (check_matmul with
// spill_k_tiles): the RunResult with timings, `passed` and a summary of
// "C = A B, M = N = K = <size> <format><where>: <check>".
RunResult finish_matmul(MatmulRun& m, Program& program, uint32_t spill_k_tiles, const std::string& where);

// The mm.cpp kernels of matmul_single_core and matmul_multi_core on `cores`:
// CBs 0, 1 and 16 (two tiles each), `reader` (an examples-relative kernel
// path, on BRISC with a's and b's TensorAccessorArgs), mm.cpp and the
// interleaved writer (NCRISC, c's TensorAccessorArgs).
struct MmKernels {
  KernelHandle reader, compute, writer;
};
MmKernels add_mm_kernels(Program& program, const CoreRangeSet& cores, const MatmulRun& m,
                         const std::string& reader_example, const std::string& reader_file);

// ---- The reuse matmuls' shared program parts -------------------------------

// `blocking` with zeros replaced by choose_matmul_blocking's choice, checked
// against the problem, the grid and DST, and a, b, c checked against the
// problem; throws ValidationError naming `caller` otherwise.
MatmulBlocking resolve_matmul_blocking(const char* caller, CoreCoord grid, const Buffer& a, const Buffer& b,
                                       const Buffer& c, uint32_t Mt, uint32_t Nt, uint32_t Kt, DataFormat format,
                                       const MatmulBlocking& blocking);

// The cores a resolved blocking uses: (Nt / per_core_N) x (Mt / per_core_M) from (0,0).
CoreCoord matmul_cores(const MatmulBlocking& blocking, uint32_t Mt, uint32_t Nt);

struct MatmulBlockKernels {
  KernelHandle compute;
  KernelHandle writer; // runtime args per core: c address, Nt, first tile row, first tile column
};

// On `cores`: CB 0 (two in0 blocks), CB 1 (two in1 blocks), CBs 16 and 24
// sharing one output block of L1, the blocked compute kernel and the writer
// (NCRISC, NoC 1).
MatmulBlockKernels add_matmul_block_kernels(Program& program, const CoreRangeSet& cores, const Buffer& c, uint32_t Kt,
                                            DataFormat format, MathFidelity fidelity, const MatmulBlocking& blocking);

// Runs C = A B with `make` (make_matmul_reuse_program or _mcast) on a fresh
// device and checks it: the shared body of the two examples' run functions.
using MatmulProgramMaker = Program (*)(CoreCoord, const Buffer&, const Buffer&, const Buffer&, uint32_t, uint32_t,
                                       uint32_t, DataFormat, MathFidelity, const MatmulBlocking&);
RunResult run_blocked_matmul(const RunOptions& o, const char* example, uint32_t default_size, MatmulProgramMaker make,
                             const char* how);

} // namespace tessel::examples
