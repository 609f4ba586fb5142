// The persistent dispatcher's figures (spec: the host-fed command cost and
// the exclusive-command period), measured on a simulated card.
#pragma once

#include <cstdint>

#include "tessel/dispatch/session.hpp"

namespace tessel::examples {

struct HostFedOptions {
  uint32_t n = 100000, depth = 16, group = 1, batch = 64, host_depth = 64;
};
// Microseconds per host-fed NOP command (submit_many, then drain).
double measure_host_fed_us(dispatch::Session& session, const HostFedOptions& options);

// The period of back-to-back exclusive NOPs on `cores` cores, from the cores'
// trace: the first core's take of one command to that of the next, median
// of 99 after 10 commands of warm-up, in microseconds.
double measure_exclusive_period_us(dispatch::Session& session, uint32_t cores);

// The measure program (its kernels serve NOPs only).
dispatch::ProgramSpec measure_program(uint32_t depth);

} // namespace tessel::examples
