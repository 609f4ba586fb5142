// The example programs: each is a host program plus kernels under
// examples/<name>/, runnable from `tessel run <name>` and from the tests.
// Every example checks its result against a reference computed on the host.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>

#include "tessel/buffer.hpp"
#include "tessel/core_coord.hpp"
#include "tessel/program.hpp"

namespace tessel {
class CommandQueue;
} // namespace tessel

namespace tessel::examples {

struct RunOptions {
  std::string arch = "blackhole";
  uint32_t grid_x = 0, grid_y = 0; // 0: the arch's full grid
  std::string policy = "deterministic";
  uint32_t size = 0;            // example-specific problem size; 0: its default
  std::string format;           // data format name ("Float16_b", "Float32", "Bfp8_b"); empty: the example's default
  std::string op;               // example-specific op selection (eltwise_sfpu: "exp", reduce: "sum_row"); empty: all
  std::string kernel_cache_dir; // empty: the default cache
  uint32_t mesh_rows = 0, mesh_cols = 0; // multi-chip examples: the mesh (0: the example's default)
  std::string fabric;                    // multi-chip examples: "1d", "1d_ring" or "2d" (empty: the example's default)
  bool mesh_flag = false;                // the mesh came from tessel run --mesh (not TESSEL_MESH)
};

// The examples' input values: a fixed 64-bit linear congruential generator,
// the same sequence on every run and host.
class Lcg {
public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint64_t next() { return state_ = state_ * 6364136223846793005ull + 1442695040888963407ull; }
  // Uniform in [lo, hi), from the top 53 bits of the next state.
  double uniform(double lo, double hi) { return lo + (hi - lo) * (double(next() >> 11) / double(1ull << 53)); }

private:
  uint64_t state_;
};

struct RunResult {
  bool passed = false;
  std::string summary;        // what it did, one line
  double seconds = 0;         // wall time of the device work (after compile)
  double compile_seconds = 0; // planning and kernel builds (cache hits when warm)
};

struct Timing {
  double compile_seconds = 0;
  double run_seconds = 0;
};
// copy_multi_core's program: every core of `grid` copies its run of
// pages_per_core pages of src to dst (interleaved buffers of equal page size)
// through a cb_pages-page CB, reader on BRISC, writer on NCRISC.
Program make_copy_program(CoreCoord grid, const Buffer& src, const Buffer& dst, uint32_t pages_per_core,
                          uint32_t cb_pages);

// How the reuse matmuls (matmul_multicore_reuse, matmul_multicore_reuse_mcast)
// block C = A B (Mt x Kt by Kt x Nt tiles): each core of the
// (Nt / per_core_N) x (Mt / per_core_M) rectangle at logical (0,0) computes a
// per_core_M x per_core_N block of output tiles, walking K in0_block_w
// tiles at a time, in out_subblock_h x out_subblock_w sub-blocks (each at
// most the tiles one DST acquire holds: 8, or 4 with Float32's
// fp32_dest_acc_en). All zero: choose_matmul_blocking picks them.
struct MatmulBlocking {
  uint32_t per_core_M = 0, per_core_N = 0; // output tiles per core
  uint32_t in0_block_w = 0;                // K tiles per block
  uint32_t out_subblock_h = 0, out_subblock_w = 0;
};

// per_core_M (per_core_N): the smallest divisor of Mt (Nt) that needs at most
// grid.y rows (grid.x columns) of cores; in0_block_w: the largest divisor of
// Kt up to 4; the sub-block: the most tiles that fit DST and divide the block
// (squarer first).
MatmulBlocking choose_matmul_blocking(CoreCoord grid, uint32_t Mt, uint32_t Nt, uint32_t Kt, DataFormat format);

// matmul_multicore_reuse's program: every core reads its own in0 and in1
// blocks from DRAM. a (Mt x Kt tiles), b (Kt x Nt) and c (Mt x Nt) are
// interleaved buffers of tile_size(format) pages holding tiles row-major.
// Float32 runs with fp32_dest_acc_en. Throws ValidationError for a blocking
// that does not divide the problem or fit the grid or DST.
Program make_matmul_reuse_program(CoreCoord grid, const Buffer& a, const Buffer& b, const Buffer& c, uint32_t Mt,
                                  uint32_t Nt, uint32_t Kt, DataFormat format, MathFidelity fidelity,
                                  const MatmulBlocking& blocking = {});

// matmul_multicore_reuse_mcast's program: as make_matmul_reuse_program, but
// only the left column reads in0 (multicasting it along its row) and only
// the top row reads in1 (multicasting it down its column), with four
// semaphores (in0/in1 x sender/receiver).
Program make_matmul_mcast_program(CoreCoord grid, const Buffer& a, const Buffer& b, const Buffer& c, uint32_t Mt,
                                  uint32_t Nt, uint32_t Kt, DataFormat format, MathFidelity fidelity,
                                  const MatmulBlocking& blocking = {});

// eltwise_binary's program: C = A op B over num_tiles tiles of `format` in
// the interleaved buffers, split over every core of `grid`; op_call is
// add_tiles, sub_tiles or mul_tiles. Float32 runs with fp32_dest_acc_en.
Program make_eltwise_binary_program(CoreCoord grid, const Buffer& a, const Buffer& b, const Buffer& c,
                                    uint32_t num_tiles, const std::string& op_call,
                                    DataFormat format = DataFormat::Float16_b);

// The element-wise examples' program layout on every core of `grid`: the
// CBs `cbs` (two pages of `format` each), kernels/reader.cpp of
// `reader_example` on BRISC with the accessor args of `inputs`,
// kernels/writer.cpp of `writer_example` on NCRISC with those of `output`
// (the examples share the ones that do the same job), and kernels/compute.cpp
// of `example` with `compute`.
struct PipelineKernels {
  KernelHandle reader, compute, writer;
};
PipelineKernels add_pipeline_kernels(Program& program, CoreCoord grid, const std::string& example,
                                     const std::string& reader_example, const std::string& writer_example,
                                     std::initializer_list<uint8_t> cbs, DataFormat format,
                                     std::initializer_list<const Buffer*> inputs, const Buffer& output,
                                     const ComputeConfig& compute);

// Splits num_tiles over the cores of `grid`, row-major, the first
// (num_tiles % cores) taking one more: fn(core, first tile, tile count).
void split_tiles(CoreCoord grid, uint32_t num_tiles, const std::function<void(CoreCoord, uint32_t, uint32_t)>& fn);

// Compile the program for the queue's device, then run it once; times both.
Timing compile_and_run(CommandQueue& cq, Program& program);

struct Example {
  const char* name;
  const char* description;
  RunResult (*run)(const RunOptions&);
  bool multichip = false; // runs on a mesh (RunOptions::mesh_rows/cols, fabric); others run on one chip
};

std::span<const Example> all_examples();
// Null if there is no example of that name.
const Example* find_example(const std::string& name);

// Absolute path of examples/<example>/kernels/<file> ($TESSEL_EXAMPLES_DIR
// overrides the source tree's examples directory).
std::string kernel_path(const std::string& example, const std::string& file);

} // namespace tessel::examples
