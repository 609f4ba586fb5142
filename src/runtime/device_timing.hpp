// The cycle estimate a device asks for (DeviceConfig::timing, else
// TESSEL_TIMING), and its report in the public spelling (tessel/timing.hpp).
#pragma once

#include "sim/timing.hpp"
#include "tessel/device.hpp"
#include "tessel/timing.hpp"

namespace tessel::runtime {

// Throws ValidationError when TESSEL_TIMING is set to anything but 0 or 1.
bool device_timing(const DeviceConfig& config);

TimingReport timing_report(const sim::RunTimingReport& run);

} // namespace tessel::runtime
