// operation_collective: an Operation with a runtime resource factory. Two
// cores, one captured data-movement Kernel "sender" specialised per core,
// per-core words and a caller semaphore from the factory. The example runs
// the operation twice with different factory values; `tessel runner` emits
// it as a runner and runs that with the same checks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "example.hpp"
#include "tessel/operation.hpp"

namespace tessel::examples {

// The operation "collective" on cores (0,0) and (1,0): kernels/collective.cpp
// as the captured Kernel "sender" (compile arg 0: role 0, specialised to role
// 1 on core (1,0)), define COLLECTIVE_CB=0, and a one-tile CB 0 of `format`.
// Tensors: the input and the output, interleaved, one tile per page.
Operation make_collective_operation(DataFormat format = DataFormat::Float16_b);

// What one run moves: core (0,0) copies input tile first_src to output tile
// first_dst and signals core (1,0), which copies output tile first_dst to
// output tile second_dst.
struct CollectiveTiles {
  uint32_t first_src = 0, first_dst = 0, second_dst = 0;
};

// The factory: a caller semaphore (the first free id, on the launch range)
// and each core's words for `sender`. receiver_noc: core (1,0)'s NoC
// coordinates.
RuntimeResourceFactory make_collective_factory(const Kernel& sender, CoreCoord receiver_noc, CollectiveTiles tiles);

// Executes an operation built like make_collective_operation (an Operation
// or a Runner of one).
using OperationRun = std::function<void(Device&, const std::vector<std::shared_ptr<Buffer>>&, const CoreRangeSet&,
                                        const RuntimeResourceFactory&)>;

// Opens the device `o` describes and runs `op` (through `run`, with factories
// selecting `sender`) twice with different tiles into fresh outputs; passes
// when every output tile is as expected and the second run was a
// program-cache hit. o.size: tiles per tensor (at least 3; default 4).
RunResult run_collective_twice(const RunOptions& o, const Operation& op, const Kernel& sender, const OperationRun& run);

} // namespace tessel::examples
