// The stream of a design with nothing on its grid (no worker, no channel),
// run on the host by LoadedDesign::call. Internal to flow.
//
// Such a stream holds loops only: every other op names a channel or a worker.
// Running it changes nothing but its loop registers, so a call only counts
// the ops the card would have executed, and most loops need no iterating: a
// loop whose body does the same in every iteration (no loop in it reads the
// loop's counter, or the counter of a loop inside it that is not open
// around the reader) counts its body once and multiplies. The other loops
// iterate, looking at the deadline and at tessel::interrupt_requested()
// every kCheckEvery iterations, so a call over large DispatchTime values
// ends in time or fails as a gridded call does.
#pragma once

#include <cstdint>
#include <span>

#include "tessel/flow/design.hpp"
#include "tessel/flow/loaded_design.hpp"

namespace tessel::flow {

// Call `call` (1-based, for messages) of design `s`: CallStats::ops as the
// card counts them (saturating at UINT64_MAX); FlowError "did not end
// within" past timeout_s, Interrupted on an interrupt request.
CallStats run_gridless(const DesignSpec& s, std::span<const int64_t> parameters, uint64_t call, double timeout_s);

} // namespace tessel::flow
