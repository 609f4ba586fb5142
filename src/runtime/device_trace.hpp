// The event trace a device asks for (DeviceConfig::trace_path and
// trace_ring_events, else TESSEL_TRACE and TESSEL_TRACE_RING): checked, and
// its file opened, before the device builds anything else.
#pragma once

#include "sim/arch.hpp"
#include "sim/trace.hpp"
#include "tessel/device.hpp"

namespace tessel::runtime {

// Options with a null file when the device is not traced. Throws
// ValidationError for a ring size that is not a number in range, or a path
// that cannot be written.
sim::TraceOptions open_device_trace(const DeviceConfig& config, const sim::ArchSpec& arch);

} // namespace tessel::runtime
