// Benchmarks printed by `tessel bench <name>`: one line per figure,
// "<figure> <value> <unit>", and notes starting with '#'. Figures that have a reference are printed with a
// ratio against it, measured in the same process (machines are noisy).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::bench {

struct Benchmark {
  const char* name;
  const char* description;
  void (*run)();
};

std::span<const Benchmark> all_benchmarks();
const Benchmark* find_benchmark(const std::string& name);

// Print one figure line.
void figure(const std::string& name, double value, const char* unit);

// Print a note for the reader beside the figures: "# <text>" (what a
// reference was, e.g.). Not a figure: tools reading figures skip '#' lines.
void note(const std::string& text);

// Seconds on the steady clock since t0.
double seconds_since(std::chrono::steady_clock::time_point t0);

// The median of `values` (the upper middle one of an even count).
double median(std::vector<double> values);

// Two measurements (each call returns one run's seconds) in `rounds` rounds
// of two runs of each, alternating which goes first: a shared host's slow
// spells last longer than a round, so each round sees about the same host,
// and the second run of each pair finds its data in the caches again after
// the other's. `after_b`, when given, runs after each round's two runs of b
// (untimed: a settle). The best run of each, and the median over the rounds
// of b's best over a's.
struct PairedRounds {
  double a = 0, b = 0, median_b_over_a = 0;
};
PairedRounds paired_rounds(int rounds, const std::function<double()>& a, const std::function<double()>& b,
                           const std::function<void()>& after_b = {});

// A device with three bf16 DRAM buffers of tiles_per_core tiles per core on
// its whole grid (a and b filled), and, compiled and run once, the
// element-wise add c = a + b (eltwise_binary's program) or the copy a -> c
// (copy_multi_core's).
struct ProgramSetup {
  std::shared_ptr<Device> device;
  std::shared_ptr<Buffer> a, b, c;
  Program program;
};
ProgramSetup make_program_setup(const DeviceConfig& config, bool eltwise, uint32_t tiles_per_core);

// The copy program's data movement (DRAM -> a core's L1 slot -> DRAM, page
// by page, the same interleaved addresses) done by a plain loop on the
// simulated memory, its cores split over `threads` host threads: the best
// wall time of `repeats` rounds. The reference for the pipeline figures.
double native_copy_seconds(Device& device, const Buffer& src, const Buffer& dst, uint32_t tiles_per_core,
                           uint32_t cb_pages, int repeats, uint32_t threads);

// The best wall time, in seconds, of `repeats` runs of an already compiled program.
double best_run_seconds(CommandQueue& cq, Program& program, int repeats);

// Two setups' programs timed in turns, three rounds of `repeats` runs each,
// so that drift hits both alike: their best times, and each a nanoseconds
// per tile figure (label_<a_name>_ns_per_tile, ...) and the ratio
// label_<a_name>_over_<b_name>.
void compare_setups(const std::string& label, ProgramSetup& a, const char* a_name, ProgramSetup& b, const char* b_name,
                    uint32_t tiles, int repeats);

} // namespace tessel::bench
