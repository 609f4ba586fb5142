// The launch half of dispatching a planned program (command_queue.cpp),
// shared by enqueue_program and trace replay. Internal to the runtime layer.
#pragma once

#include "runtime/program_state.hpp"
#include <span>

#include "sim/chip.hpp"
#include "tessel/device.hpp"
#include "tessel/program.hpp"

namespace tessel::runtime {

// Per-dispatch setup of every core the plan uses: kernel globals reset, CB
// interfaces, semaphore initial values, runtime and common args (read
// through the plan's pointers), kernel contexts. No allocation.
void configure_cores(const ProgramState& st, const ProgramPlan& plan, sim::Chip& chip);

// The checks and planning before a program launches on `device` (the device
// open, its CBs under the L1 buffers, kernels compiled): the launches to run
// after configure_cores. Throws, changing nothing, naming `call`.
std::span<const sim::Launch> prepare_launch(Device& device, Program& program, const char* call);

struct DeviceState;
// A persistent grid on the device gives way to a host launch (or the launch is refused).
void release_persistent_grid(DeviceState& ds, const char* call);

} // namespace tessel::runtime
