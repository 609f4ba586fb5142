#include "runtime/device_timing.hpp"

#include <cstdio>

#include "base/env.hpp"
#include "sim/chip.hpp"
#include "tessel/error.hpp"

namespace tessel::runtime {

bool device_timing(const DeviceConfig& config) {
  if (config.timing) return *config.timing;
  const std::optional<std::string> text = base::env_text("TESSEL_TIMING");
  if (!text || *text == "0") return false;
  if (*text == "1") return true;
  throw ValidationError("Device::open: TESSEL_TIMING='" + *text +
                        "' is not valid: expected 0 (off) or 1 (estimate cycles, docs/timing.md)");
}

TimingReport timing_report(const sim::RunTimingReport& run) {
  TimingReport r;
  r.clock_mhz = run.clock_mhz;
  r.kernel_cycles = run.kernel_cycles;
  r.dispatch_cycles = run.dispatch_cycles;
  r.device_cycles = run.device_cycles;
  r.runs = run.runs;
  r.stopped = run.stopped;
  r.riscs.reserve(run.riscs.size());
  for (const sim::RiscTimingReport& x : run.riscs)
    r.riscs.push_back({{x.core_x, x.core_y}, sim::Chip::risc_name(x.risc), x.busy_cycles, x.wait_cycles});
  return r;
}

} // namespace tessel::runtime

namespace tessel {

ProcessTimingReport process_timing() {
  const sim::ProcessTiming p = sim::process_timing();
  return {runtime::timing_report(p.last), p.runs, p.device_cycles};
}

std::string format_timing_report(const ProcessTimingReport& p) {
  char line[256];
  std::string out = "estimated timing (a cost model's estimate, not a measurement: docs/timing.md)\n";
  const TimingReport& r = p.last_run;
  if (p.runs == 0) return out + "  no timed run\n";
  std::snprintf(line, sizeof line, "  runs: %llu, estimated device time %llu cycles = %.3f us at %.0f MHz\n",
                static_cast<unsigned long long>(p.runs), static_cast<unsigned long long>(p.device_cycles),
                p.device_us(), r.clock_mhz);
  out += line;
  std::snprintf(line, sizeof line,
                "  last run: kernels %llu + dispatch %llu = %llu cycles (%.3f us)%s\n  %-9s %-8s %12s %12s %6s\n",
                static_cast<unsigned long long>(r.kernel_cycles), static_cast<unsigned long long>(r.dispatch_cycles),
                static_cast<unsigned long long>(r.device_cycles), r.device_us(),
                r.stopped ? ", up to where it stopped" : "", "core", "RISC", "busy", "wait", "wait%");
  out += line;
  for (const RiscTiming& x : r.riscs) {
    const uint64_t total = x.total_cycles();
    std::snprintf(line, sizeof line, "  %-9s %-8s %12llu %12llu %5.1f%%\n", x.core.str().c_str(), x.risc.c_str(),
                  static_cast<unsigned long long>(x.busy_cycles), static_cast<unsigned long long>(x.wait_cycles),
                  total ? 100.0 * double(x.wait_cycles) / double(total) : 0.0);
    out += line;
  }
  return out;
}

std::string format_timing_summary(const TimingReport& r) {
  if (r.runs == 0) return "";
  uint64_t busy = 0, wait = 0;
  for (const RiscTiming& x : r.riscs)
    busy += x.busy_cycles, wait += x.wait_cycles;
  char line[512];
  std::snprintf(line, sizeof line,
                "tessel: estimated timing (TESSEL_TIMING=1; a cost model's estimate, not a measurement: "
                "docs/timing.md): %llu run%s on this device; the last%s: kernels %llu + dispatch %llu = %llu cycles "
                "(%.3f us at %.0f MHz), its RISCs busy %.1f%% and waiting %.1f%% of their time\n",
                static_cast<unsigned long long>(r.runs), r.runs == 1 ? "" : "s",
                r.stopped ? ", up to where it stopped" : "", static_cast<unsigned long long>(r.kernel_cycles),
                static_cast<unsigned long long>(r.dispatch_cycles), static_cast<unsigned long long>(r.device_cycles),
                r.device_us(), r.clock_mhz, busy + wait ? 100.0 * double(busy) / double(busy + wait) : 0.0,
                busy + wait ? 100.0 * double(wait) / double(busy + wait) : 0.0);
  return line;
}

} // namespace tessel
