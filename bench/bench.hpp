// Benchmarks printed by `tessel bench <name>`: one line per figure,
// "<figure> <value> <unit>". Figures that have a reference are printed with a
// ratio against it, measured in the same process (machines are noisy).
#pragma once

#include <span>
#include <string>

namespace tessel {
class CommandQueue;
class Program;
} // namespace tessel

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

// The best wall time, in seconds, of `repeats` runs of an already compiled program.
double best_run_seconds(CommandQueue& cq, Program& program, int repeats);

} // namespace tessel::bench
