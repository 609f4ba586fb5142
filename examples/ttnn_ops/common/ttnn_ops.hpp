// What the ttnn_ops host programs share: finding the TT-Metalium checkout
// whose operation kernels they launch, the device they run on, bfloat16
// inputs, and the one-line verdict each prints.
//
// Each program under examples/ttnn_ops/<op>/ builds the program one of
// ttnn's program factories builds for one shape, launching the factory's
// kernels by their checkout paths (relative: tessel looks them up under
// $TT_METAL_HOME), and checks the result against a host reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/device.hpp"
#include "tessel/program.hpp"

namespace tessel::examples::ttnn_ops {

// The exit status of a program that could not run (ctest's SKIP_RETURN_CODE).
inline constexpr int kSkipped = 77;

// True when $TT_METAL_HOME is set and holds every kernel (paths relative to
// the checkout). Otherwise prints "<op>: SKIPPED: ..." (and, for a checkout
// without a kernel, which one is missing) and returns false.
bool have_checkout(const std::string& op, std::initializer_list<const char*> kernels);

// A device whose worker grid is grid.x columns by grid.y rows: the
// factories spread their work over the device's whole grid, so a small grid
// gives a few cores work. The rest of the configuration comes from the
// environment (TESSEL_ARCH, TESSEL_POLICY, TESSEL_CACHE_DIR, ...).
std::shared_ptr<tessel::Device> open_device(tessel::CoreCoord grid);

// TT-Metalium's ReaderDataMovementConfig (NCRISC, NoC 0) and
// WriterDataMovementConfig (BRISC, NoC 1), which the factories use.
tessel::DataMovementConfig reader_config(std::vector<uint32_t> compile_args, tessel::Defines defines = {});
tessel::DataMovementConfig writer_config(std::vector<uint32_t> compile_args, tessel::Defines defines = {});

// The cores of a grid in order: row by row (x fastest) when row_wise, else
// column by column (y fastest), as TT-Metalium's grid_to_cores orders them.
std::vector<tessel::CoreCoord> grid_cores(tessel::CoreCoord grid, bool row_wise);

// ttnn::split_blocks_for_tilize (ttnn/operations/core/work_split/
// work_split_tilize.hpp), which the tilize and untilize factories use:
// ceil(blocks / cores) blocks on each of the first cores of the grid in row
// order, and the remainder, if any, on one more core (the cliff core).
struct BlockSplit {
  uint32_t blocks_per_core = 0;
  std::vector<tessel::CoreCoord> full_cores;  // blocks_per_core blocks each
  std::vector<tessel::CoreCoord> cliff_cores; // none, or one core with blocks_per_core_cliff blocks
  uint32_t blocks_per_core_cliff = 0;
};
BlockSplit split_blocks_for_tilize(tessel::CoreCoord grid, uint32_t blocks);

// n values uniform in [lo, hi), each rounded to bfloat16 (so the host
// reference sees exactly what the device reads), from a fixed seed.
std::vector<float> random_bf16(size_t n, uint64_t seed, double lo, double hi);

// float <-> bfloat16 bits, element by element (the buffers hold bf16).
std::vector<uint16_t> to_bf16(const std::vector<float>& values);
// Both bfloat16 halves of a word holding `value` truncated (the factories'
// pack_two_bfloat16_into_uint32 of one value, as scaler arguments take it).
uint32_t packed_bf16_pair(float value);
std::vector<float> from_bf16(const std::vector<uint16_t>& bits);

// Compares results with their references, each within its own bound, and
// prints the verdict: "<op>: PASSED (max abs err X, bound Y)" with Y the
// largest bound any value had, or "<op>: FAILED: ..." naming how many
// values were outside their bounds and the first of them (`where` says
// where index i lies, e.g. "row 3, column 40").
class Verdict {
public:
  Verdict(std::string op, std::function<std::string(size_t)> where);
  void check(size_t i, double got, double want, double bound);
  // A failure that is not a value (a missing output, ...).
  void fail(std::string what);
  // Prints the line; returns the exit status (0 passed, 1 failed).
  int report() const;

private:
  std::string op_;
  std::function<std::string(size_t)> where_;
  size_t checked_ = 0, bad_ = 0;
  double max_err_ = 0, max_bound_ = 0;
  std::string first_bad_, failure_;
};

// Runs body(), turning an exception into "<op>: FAILED: <what>" and status 1.
int run_guarded(const std::string& op, const std::function<int()>& body);

} // namespace tessel::examples::ttnn_ops
