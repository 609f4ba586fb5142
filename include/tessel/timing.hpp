// The cycle estimate of a device's last run (DeviceConfig::timing,
// TESSEL_TIMING=1; docs/timing.md). Estimates from a cost model of the chip
// (NoC, DRAM, CB and semaphore waits, per-tile compute latencies), not
// measurements: use them to compare programs, not as silicon's times.
//
// A TimingReport is a plain value, copied out of the device; it does not
// refer to it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"

namespace tessel {

// One RISC of one core in a run: cycles its clock advanced while it worked
// (busy) and while it waited (CB, semaphore, NoC barrier); busy + wait is
// the RISC's total.
struct RiscTiming {
  CoreCoord core;   // logical
  std::string risc; // "BRISC", "NCRISC", "COMPUTE"
  uint64_t busy_cycles = 0;
  uint64_t wait_cycles = 0;
  uint64_t total_cycles() const { return busy_cycles + wait_cycles; }
};

struct TimingReport {
  double clock_mhz = 0;          // the arch clock the cycles are counted at
  uint64_t kernel_cycles = 0;    // first start to last end of the run's RISCs
  uint64_t dispatch_cycles = 0;  // the program launch's estimated dispatch overhead
  uint64_t device_cycles = 0;    // kernel + dispatch: the estimated device time
  uint64_t runs = 0;             // runs timed on this device so far; 0: none yet
  bool stopped = false;          // the run stopped (deadlock, error, fault, interrupt): its estimate up to the stop
  std::vector<RiscTiming> riscs; // by core (row-major), then RISC
  double device_us() const { return clock_mhz > 0 ? double(device_cycles) / clock_mhz : 0.0; }
};

// Every timed run of any device of this process (for tools that run
// programs opening their own devices: tessel run --timing): the latest
// run's report and the sum of the runs' device times.
struct ProcessTimingReport {
  TimingReport last_run;
  uint64_t runs = 0;
  uint64_t device_cycles = 0;
  double device_us() const { return last_run.clock_mhz > 0 ? double(device_cycles) / last_run.clock_mhz : 0.0; }
};
ProcessTimingReport process_timing();

// The report as the CLI prints it: a header saying these are estimates, the
// device time, and busy/wait per RISC.
std::string format_timing_report(const ProcessTimingReport& report);

// One line for a device's timed runs, as compat devices print it when they
// close under TESSEL_TIMING=1: how many runs, the last one's device time, and
// how its RISCs' time splits into busy and waiting. Empty when nothing ran.
std::string format_timing_summary(const TimingReport& last_run);

} // namespace tessel
