// Traces of program launches: what a capture records and replay runs.
// Internal to the runtime layer (the API is CommandQueue's).
//
// A captured launch owns everything its replay reads, so neither later
// changes to the Program nor its destruction reach it:
//  - the runtime args of each (core, RISC) and the common args of each
//    kernel as they were at capture, with a copy of the kernels (sources
//    dropped: the binaries are built);
//  - a copy of the program's plan (sharing its kernel binaries, which keeps
//    them loaded), whose argument pointers and kernel names are redirected
//    into that copy.
// Invariant: a CapturedLaunch never moves once built (the plan points into
// it), hence unique_ptr.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/program_state.hpp"

namespace tessel::runtime {

struct CapturedLaunch {
  ProgramState state;                      // kernels (with common args) and plan only
  std::vector<std::vector<uint32_t>> args; // per (core, RISC) with args, in plan order
};

struct Trace {
  std::vector<std::unique_ptr<CapturedLaunch>> launches;
  uint32_t cb_end = 0; // the highest L1 offset above any launch's CBs

  void append(std::unique_ptr<CapturedLaunch> launch) {
    launches.push_back(std::move(launch));
    cb_end = launches.back()->state.plan.cb_end > cb_end ? launches.back()->state.plan.cb_end : cb_end;
  }
};

// The launch of `st` as planned by `plan` (built for a device whose worker
// grid is grid_x cores wide), frozen.
std::unique_ptr<CapturedLaunch> capture_launch(const ProgramState& st, const ProgramPlan& plan, uint32_t grid_x);

} // namespace tessel::runtime
