// The examples whose work is an Operation with a compiled-in runtime
// resource factory: what `tessel runner emit` writes out and what
// `tessel runner run` can drive from an emitted runner (found by the
// manifest's operation name).
#pragma once

#include <span>
#include <string>

#include "example.hpp"
#include "tessel/operation.hpp"
#include "tessel/runner.hpp"

namespace tessel::examples {

struct ExampleOperation {
  const char* example;   // the example that runs the operation (tessel run <example>)
  const char* operation; // the Operation's name, as an emitted runner's manifest records it
  // The operation the example runs (o.format where the example has it).
  Operation (*make)(const RunOptions& o);
  // Runs a runner loaded from an emitted directory the way the example runs
  // its operation (the factory compiled in), with the same checks.
  RunResult (*run_runner)(Runner& runner, const RunOptions& o);
};

std::span<const ExampleOperation> all_example_operations();
// Null if none.
const ExampleOperation* find_operation_of_example(const std::string& example);
const ExampleOperation* find_operation_named(const std::string& operation);

} // namespace tessel::examples
