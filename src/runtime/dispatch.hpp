// The launch half of dispatching a planned program (command_queue.cpp),
// shared by enqueue_program and trace replay. Internal to the runtime layer.
#pragma once

#include "runtime/program_state.hpp"
#include "sim/chip.hpp"

namespace tessel::runtime {

// Per-dispatch setup of every core the plan uses: kernel globals reset, CB
// interfaces, semaphore initial values, runtime and common args (read
// through the plan's pointers), kernel contexts. No allocation.
void configure_cores(const ProgramState& st, const ProgramPlan& plan, sim::Chip& chip);

} // namespace tessel::runtime
