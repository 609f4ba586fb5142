// Conformance suite for the example programs: every registered example runs
// on the blackhole and wormhole_b0 full grids and on a small custom grid,
// under the deterministic policy, three random seeds, parallel on 2 and 3 threads and the checked NoC mode
// ("checked": deterministic, with TESSEL_NOC=checked). Each example checks
// its own output against a host reference (RunResult::passed); this suite
// also checks that the summary reports the problem size it was given.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "example.hpp"
#include "tessel/error.hpp"

namespace tessel::examples {
namespace {

// A grid to run on: an arch preset, full (0x0) or a custom size.
struct GridCase {
  const char* label;
  const char* arch;
  uint32_t grid_x, grid_y;
  uint32_t full_x, full_y; // the grid the run gets (the preset's when grid_x == 0)
};

const GridCase kGrids[] = {
    {"blackhole", "blackhole", 0, 0, 12, 10},
    {"wormhole_b0", "wormhole_b0", 0, 0, 8, 8},
    {"blackhole_3x2", "blackhole", 3, 2, 3, 2},
};

const char* const kPolicies[] = {"deterministic", "random:1",   "random:2", "random:3",
                                 "parallel:2",    "parallel:3", "checked"};

// What one example is run with, and the text its summary must contain.
struct Expectation {
  const char* example;
  uint32_t size; // small enough that a run takes milliseconds on the full grids
  std::vector<std::string> (*summary_mentions)(uint32_t size, const GridCase& grid);
};

std::string grid_text(const GridCase& g) {
  return std::to_string(g.full_x) + "x" + std::to_string(g.full_y) + " " + g.arch;
}

const Expectation kExpectations[] = {
    {"eltwise_sfpu", 4,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"y = op(x) on " + std::to_string(size) + " Float16_b tiles over " +
                                           std::to_string(g.full_x * g.full_y) + " cores (" + grid_text(g) + ")",
                                       "29 ops: all within their bounds"};
     }},
    {"sfpu_chain", 8,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"in one DST acquire per tile on " + std::to_string(size) +
                                           " Float16_b tiles over " + std::to_string(g.full_x * g.full_y) + " cores (" +
                                           grid_text(g) + ")",
                                       "max rel err"};
     }},
    {"loopback", 16,
     [](uint32_t size, const GridCase&) {
       return std::vector<std::string>{"copied " + std::to_string(size) + " pages"};
     }},
    {"copy_multi_core", 4,
     [](uint32_t size, const GridCase& g) {
       const uint32_t cores = g.full_x * g.full_y;
       return std::vector<std::string>{"copied " + std::to_string(cores * size) + " pages",
                                       std::to_string(cores) + " cores (" + grid_text(g) + ")"};
     }},
    {"semaphore_pingpong", 101,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{
           std::to_string(size) + " hops between cores (0,0) and (1,0) (" + std::string(g.arch) + ")",
           std::to_string(size / 2) + " + " + std::to_string((size + 1) / 2) + " tokens received"};
     }},
    {"multicast", 3,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"multicast " + std::to_string(size) + " blocks of 8192 B",
                                       std::to_string(g.full_x * g.full_y - 1) + " receivers (" + grid_text(g) + ")"};
     }},
    {"eltwise_binary", 250,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"on " + std::to_string(size) + " Float16_b tiles over " +
                                           std::to_string(g.full_x * g.full_y) + " cores (" + grid_text(g) + ")",
                                       "add worst error", "sub worst error", "mul worst error"};
     }},
    {"matmul_single_core", 128,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"M = N = K = " + std::to_string(size) + " Float16_b on core (0,0) (" +
                                           grid_text(g) + ")",
                                       "every value within its rounding bound"};
     }},
    {"matmul_multi_core", 256,
     [](uint32_t size, const GridCase& g) {
       const uint32_t tiles = (size / 32) * (size / 32);
       const uint32_t cores = std::min(tiles, g.full_x * g.full_y);
       return std::vector<std::string>{"M = N = K = " + std::to_string(size) + " Float16_b, " + std::to_string(tiles) +
                                           " output tiles over " + std::to_string(cores) + " cores (" + grid_text(g) +
                                           ")",
                                       "every value within its rounding bound"};
     }},
    {"matmul_multicore_reuse", 256,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"M = N = K = " + std::to_string(size) + " Float16_b, every core reading",
                                       "of the " + grid_text(g) + " grid", "every value within its rounding bound"};
     }},
    {"matmul_multicore_reuse_mcast", 256,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"M = N = K = " + std::to_string(size) + " Float16_b, in0 multicast",
                                       "of the " + grid_text(g) + " grid", "every value within its rounding bound"};
     }},
    {"reduce", 64,
     [](uint32_t size, const GridCase& g) {
       std::vector<std::string> want{"reduce a " + std::to_string(size) + " x " + std::to_string(2 * size) +
                                     " Float16_b tensor (" + grid_text(g) + ")"};
       for (const char* op : {"sum_row", "sum_col", "sum_scalar", "avg_row", "avg_col", "avg_scalar", "max_row",
                              "max_col", "max_scalar"})
         want.push_back(std::string(op) + " max abs err");
       return want;
     }},
    {"ccl_all_gather", 4,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"all-gather of " + std::to_string(size) + " pages of 2048 B per chip on a 1x2 " +
                                       std::string(g.arch) + " mesh over FABRIC_1D_RING (lines): " +
                                       std::to_string(2 * (size + 1)) + " packets, " + std::to_string(2 * (size + 1)) +
                                       " hops"};
     }},
    {"ccl_reduce_scatter", 1,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"reduce-scatter of " + std::to_string(size) +
                                       " bfloat16 tiles per chip on a 1x2 " + std::string(g.arch) +
                                       " mesh over FABRIC_1D_RING (lines): " + std::to_string(2 * (size + 1)) +
                                       " packets"};
     }},
    {"ccl_all_reduce", 2,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"all-reduce of " + std::to_string(size) + " bfloat16 tiles per chip on a 1x2 " +
                                       std::string(g.arch) + " mesh over FABRIC_1D_RING (lines): " +
                                       std::to_string(2 * (size + 1)) + " packets"};
     }},
    {"operation_collective", 4,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{"2 runs of operation 'collective' on cores (0,0) and (1,0) (" +
                                           std::string(g.arch) + "), " + std::to_string(size) + " Float16_b tiles",
                                       "with a program-cache hit: every tile matches"};
     }},
    {"dispatch_map", 0,
     [](uint32_t, const GridCase& g) {
       const uint32_t group = std::min(8u, g.full_x * g.full_y);
       return std::vector<std::string>{"15 jobs of " + std::to_string(group) + " cores doubled " +
                                       std::to_string(15 * group) + " bf16 tiles on " + std::string(g.arch) + " " +
                                       std::to_string(g.full_x) + "x" + std::to_string(g.full_y) + " (0 wrong)"};
     }},
    {"dispatch_broadcast", 3,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{std::to_string(size) + " jobs: core (0,0) multicast 16 blocks of 4 pages",
                                       "to " + std::to_string(g.full_x * g.full_y - 1) + " cores", "0 wrong"};
     }},
    {"dispatch_graph", 0,
     [](uint32_t, const GridCase& g) {
       const uint32_t rows = std::min(60u, g.full_x * g.full_y);
       return std::vector<std::string>{"graph on " + std::to_string(rows) + " rows", "restarted",
                                       "state tensors match the host's loop"};
     }},
    {"dispatch_stream", 0,
     [](uint32_t, const GridCase& g) {
       const uint32_t group = std::min(8u, g.full_x * g.full_y);
       return std::vector<std::string>{"a stream enqueued 24 jobs of " + std::to_string(group) + " cores", "0 wrong",
                                       "progress events 4,8,12,16,20,24"};
     }},
    {"dispatch_thread", 0,
     [](uint32_t, const GridCase& g) {
       const uint32_t group = std::max(1u, std::min(8u, g.full_x * g.full_y / 2));
       return std::vector<std::string>{"an X280 thread summed 65536 values in 4 chunks (total right)",
                                       "15 host jobs and 4 of the thread's on " + std::to_string(group) +
                                           " cores each (0 wrong tiles)"};
     }},
    {"dispatch_measure", 2000,
     [](uint32_t size, const GridCase& g) {
       return std::vector<std::string>{std::to_string(size) + " host-fed NOP commands",
                                       std::to_string(g.full_x * g.full_y) + " cores"};
     }},
};

bool example_is_multichip(const std::string& name) {
  const Example* e = find_example(name);
  return e && e->multichip;
}

const Expectation* find_expectation(const std::string& example) {
  for (const Expectation& e : kExpectations)
    if (example == e.example) return &e;
  return nullptr;
}

std::string cache_dir() {
  const char* dir = std::getenv("TESSEL_CACHE_DIR");
  return dir ? dir : "";
}

// One conformance case: example x grid x policy.
struct Case {
  std::string example;
  const GridCase* grid;
  std::string policy;
};

// How gtest shows a case in test listings (instead of its bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.example << " on " << c.grid->label << " with " << c.policy; }

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const Example& e : all_examples())
    for (const GridCase& g : kGrids)
      for (const char* p : kPolicies)
        cases.push_back({e.name, &g, p});
  return cases;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  std::string policy = info.param.policy;
  for (char& c : policy)
    if (c == ':') c = '_';
  return info.param.example + "_" + info.param.grid->label + "_" + policy;
}

class ExampleConformance : public testing::TestWithParam<Case> {};

TEST_P(ExampleConformance, PassesAndReportsItsSize) {
  const Case& c = GetParam();
  const Expectation* want = find_expectation(c.example);
  ASSERT_NE(want, nullptr) << "example '" << c.example
                           << "' has no entry in kExpectations: add its size and expected summary text";
  const Example* example = find_example(c.example);
  ASSERT_NE(example, nullptr);
  RunOptions o;
  o.arch = c.grid->arch;
  o.grid_x = c.grid->grid_x;
  o.grid_y = c.grid->grid_y;
  const bool checked = c.policy == "checked";
  o.policy = checked ? "deterministic" : c.policy;
  o.size = want->size;
  o.kernel_cache_dir = cache_dir();
  // Multi-chip examples on a 1x2 mesh: every grid case's chips fit in the
  // address space a sanitizer leaves (tests/cli runs them on 8x4 meshes).
  if (example_is_multichip(c.example)) o.mesh_rows = 1, o.mesh_cols = 2;
  struct NocMode { // TESSEL_NOC=checked for the devices the example opens
    explicit NocMode(bool checked) : set(checked) {
      if (set) setenv("TESSEL_NOC", "checked", 1);
    }
    ~NocMode() { end(); }
    void end() {
      if (set) unsetenv("TESSEL_NOC");
      set = false;
    }
    bool set;
  } noc_mode(checked);
  const RunResult r = example->run(o);
  noc_mode.end();
  EXPECT_TRUE(r.passed) << r.summary;
  for (const std::string& text : want->summary_mentions(want->size, *c.grid))
    EXPECT_NE(r.summary.find(text), std::string::npos) << "summary \"" << r.summary << "\" lacks \"" << text << "\"";
  // Race-free programs give the same results on host threads: the same error
  // figures in the summary as under the deterministic policy (persistent
  // dispatch summaries report host timings, so they differ anyway).
  // The checked NoC mode only moves data later, never differently.
  if ((checked || c.policy.rfind("parallel", 0) == 0) && c.example.rfind("dispatch_", 0) != 0) {
    o.policy = "deterministic";
    EXPECT_EQ(r.summary, example->run(o).summary);
  }
}

INSTANTIATE_TEST_SUITE_P(AllExamples, ExampleConformance, testing::ValuesIn(all_cases()), case_name);

// Every expectation names a registered example (no stale entries).
TEST(ExampleRegistry, ExpectationsNameRegisteredExamples) {
  for (const Expectation& e : kExpectations)
    EXPECT_NE(find_example(e.example), nullptr) << e.example;
  EXPECT_EQ(all_examples().size(), std::size(kExpectations));
}

RunOptions small_grid(uint32_t grid_x, uint32_t grid_y, uint32_t size = 0) {
  RunOptions o;
  o.grid_x = grid_x;
  o.grid_y = grid_y;
  o.size = size;
  o.kernel_cache_dir = cache_dir();
  return o;
}

// The examples' own default sizes (what `tessel run` uses).
TEST(SemaphorePingpong, DefaultIsAThousandHops) {
  const RunResult r = find_example("semaphore_pingpong")->run(small_grid(2, 1));
  EXPECT_TRUE(r.passed) << r.summary;
  EXPECT_NE(r.summary.find("1000 hops"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("500 + 500 tokens received"), std::string::npos) << r.summary;
}

TEST(Multicast, DefaultIsEightBlocks) {
  const RunResult r = find_example("multicast")->run(small_grid(2, 2));
  EXPECT_TRUE(r.passed) << r.summary;
  EXPECT_NE(r.summary.find("multicast 8 blocks of 8192 B from core (0,0) to 3 receivers"), std::string::npos)
      << r.summary;
}

// On a one-column grid the players are (0,0) and (0,1); one hop and an even count work too.
TEST(SemaphorePingpong, PlaysDownAColumn) {
  for (uint32_t hops : {1u, 2u, 7u}) {
    const RunResult r = find_example("semaphore_pingpong")->run(small_grid(1, 3, hops));
    EXPECT_TRUE(r.passed) << r.summary;
    EXPECT_NE(r.summary.find(std::to_string(hops) + " hops between cores (0,0) and (0,1)"), std::string::npos)
        << r.summary;
  }
}

// A multicast along one row and one column: the rectangle is a line.
TEST(Multicast, RunsOnARowAndAColumn) {
  for (auto [x, y] : {std::pair{5u, 1u}, std::pair{1u, 4u}}) {
    const RunResult r = find_example("multicast")->run(small_grid(x, y, 2));
    EXPECT_TRUE(r.passed) << r.summary;
    EXPECT_NE(r.summary.find("to " + std::to_string(x * y - 1) + " receivers"), std::string::npos) << r.summary;
  }
}

// Both examples need at least two cores and say so, naming the grid.
TEST(SemaphorePingpong, OneCoreGridFailsClearly) {
  try {
    find_example("semaphore_pingpong")->run(small_grid(1, 1));
    FAIL() << "semaphore_pingpong ran on a 1x1 grid";
  } catch (const ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "semaphore_pingpong needs two cores, but the blackhole grid is 1x1; run it on "
                                     "a grid of at least 2x1 (e.g. --grid 2x1)");
  }
}

TEST(Multicast, OneCoreGridFailsClearly) {
  try {
    find_example("multicast")->run(small_grid(1, 1));
    FAIL() << "multicast ran on a 1x1 grid";
  } catch (const ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "multicast needs a sender and at least one receiver, but the blackhole grid "
                                     "is 1x1; run it on a grid of at least 2 cores (e.g. --grid 2x1)");
  }
}

// operation_collective runs on cores (0,0) and (1,0): a one-column grid and too few tiles fail clearly.
TEST(OperationCollective, NarrowGridAndTooFewTilesFailClearly) {
  try {
    find_example("operation_collective")->run(small_grid(1, 2));
    FAIL() << "operation_collective ran on a 1x2 grid";
  } catch (const ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "operation_collective needs cores (0,0) and (1,0), but the blackhole grid is "
                                     "1x2; run it on a grid of at least 2x1 (e.g. --grid 2x1)");
  }
  try {
    find_example("operation_collective")->run(small_grid(2, 1, 2));
    FAIL() << "operation_collective ran with 2 tiles";
  } catch (const ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "operation_collective needs at least 3 tiles per tensor, got --size 2");
  }
}

// The compute examples in their other data formats, on a grid small enough
// that the reuse matmuls get multi-tile blocks (3x2: 2x2-tile blocks at 128);
// the element-wise ones on 12 tiles (two per core).
TEST(ComputeExamples, FormatsFloat32AndBfp8) {
  for (const char* name : {"matmul_single_core", "matmul_multi_core", "matmul_multicore_reuse",
                           "matmul_multicore_reuse_mcast", "reduce", "eltwise_binary", "eltwise_sfpu", "sfpu_chain"})
    for (const char* format : {"Float32", "Bfp8_b"}) {
      const std::string n = name;
      RunOptions o = small_grid(3, 2, n == "reduce" ? 64 : n.rfind("matmul", 0) == 0 ? 128 : 12);
      o.format = format;
      const RunResult r = find_example(name)->run(o);
      EXPECT_TRUE(r.passed) << name << " " << format << ": " << r.summary;
      EXPECT_NE(r.summary.find(format), std::string::npos) << name << ": " << r.summary;
    }
}

} // namespace
} // namespace tessel::examples
