#include "runtime/device_trace.hpp"

#include "base/env.hpp"
#include "base/trace_file.hpp"
#include "base/warning.hpp"
#include "tessel/error.hpp"

namespace tessel::runtime {

sim::TraceOptions open_device_trace(const DeviceConfig& config, const sim::ArchSpec& arch) {
  sim::TraceOptions o;
  const char* ring_expected = "a whole number of events per RISC, 0 (write every event) to 10000000";
  if (config.trace_ring_events) {
    if (*config.trace_ring_events > kMaxTraceRingEvents)
      throw ValidationError("Device::open: DeviceConfig::trace_ring_events is " +
                            std::to_string(*config.trace_ring_events) + ": expected " + ring_expected);
    o.ring_events = *config.trace_ring_events;
  } else {
    o.ring_events = base::env_count("TESSEL_TRACE_RING", kMaxTraceRingEvents, ring_expected).value_or(0);
  }
  const bool from_config = config.trace_path.has_value();
  const std::string path = from_config ? *config.trace_path : base::env_text("TESSEL_TRACE").value_or("");
  if (path.empty()) {
    // A ring with no trace to keep it in: asked for here, an error; from the
    // environment (which may be set for other programs), a warning.
    if (config.trace_ring_events && *config.trace_ring_events)
      throw ValidationError("Device::open: DeviceConfig::trace_ring_events is " +
                            std::to_string(*config.trace_ring_events) +
                            " but no trace is written: expected a trace file as well (DeviceConfig::trace_path or "
                            "TESSEL_TRACE)");
    if (!config.trace_ring_events && o.ring_events) {
      const std::string message = "TESSEL_TRACE_RING=" + std::to_string(o.ring_events) +
                                  " is set but no trace is written (no TESSEL_TRACE or DeviceConfig::trace_path): "
                                  "the ring has no effect";
      if (base::warn_once(message, message) == base::Warned::Strict)
        throw ValidationError(message + base::kStrictSuffix);
    }
    return o;
  }
  o.file = base::TraceFile::open(path, from_config ? "Device::open: DeviceConfig::trace_path" : "TESSEL_TRACE");
  o.label = arch.name + " " + std::to_string(arch.grid_x) + "x" + std::to_string(arch.grid_y);
  return o;
}

} // namespace tessel::runtime
