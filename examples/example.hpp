// The example programs: each is a host program plus kernels under
// examples/<name>/, runnable from `tessel run <name>` and from the tests.
// Every example checks its result against a reference computed on the host.
#pragma once

#include <cstdint>
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
  std::string kernel_cache_dir; // empty: the default cache
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

// Compile the program for the queue's device, then run it once; times both.
Timing compile_and_run(CommandQueue& cq, Program& program);

struct Example {
  const char* name;
  const char* description;
  RunResult (*run)(const RunOptions&);
};

std::span<const Example> all_examples();
// Null if there is no example of that name.
const Example* find_example(const std::string& name);

// Absolute path of examples/<example>/kernels/<file> ($TESSEL_EXAMPLES_DIR
// overrides the source tree's examples directory).
std::string kernel_path(const std::string& example, const std::string& file);

} // namespace tessel::examples
