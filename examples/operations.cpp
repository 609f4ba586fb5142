// The table of examples with an operation (operations.hpp).
#include "operations.hpp"

#include "operation_collective/operation_collective.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {

Operation make_collective(const RunOptions& o) {
  return make_collective_operation(o.format.empty() ? DataFormat::Float16_b : parse_data_format(o.format));
}

RunResult run_collective_runner(Runner& runner, const RunOptions& o) {
  return run_collective_twice(
      o, runner.operation(), runner.kernel("sender"),
      [&](Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
          const RuntimeResourceFactory& factory) { runner.run(device, tensors, launch, factory); });
}

const ExampleOperation kOperations[] = {
    {"operation_collective", "collective", make_collective, run_collective_runner},
};

} // namespace

std::span<const ExampleOperation> all_example_operations() { return kOperations; }

const ExampleOperation* find_operation_of_example(const std::string& example) {
  for (const ExampleOperation& e : kOperations)
    if (example == e.example) return &e;
  return nullptr;
}

const ExampleOperation* find_operation_named(const std::string& operation) {
  for (const ExampleOperation& e : kOperations)
    if (operation == e.operation) return &e;
  return nullptr;
}

} // namespace tessel::examples
