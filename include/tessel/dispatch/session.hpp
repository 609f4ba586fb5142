// Session: one simulated card (a device plus the dispatcher that plays its
// X280 cluster 0), and the one persistent run loaded on it at a time
// (spec: Session).
//
// Ownership: Session::open returns a unique_ptr; the Run it loads is owned by
// the session and stays valid until the next load or close() (run_ptr() shares
// it beyond that: a stopped run keeps its results). A session that
// opened its device closes it; one given a device (SessionConfig::device)
// leaves it open. Closing (or destroying) a session with a loaded run aborts
// the run first (Run::abort).
// Thread-safety: one host thread at a time; the card runs on its own thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "tessel/device.hpp"
#include "tessel/dispatch/program.hpp"
#include "tessel/dispatch/result.hpp"

namespace tessel::dispatch {

class Run;

struct SessionConfig {
  int card = -1;                               // which simulated card (-1: card 0); held per process (CardBusy)
  std::shared_ptr<Device> device;              // use this device instead (kept open at close)
  uint32_t pll_mhz = 1000;                     // the X280 clock: 200, 800, 1000 or 1750
  std::function<void(const std::string&)> log; // one line per step
  double grid_timeout_s = 10.0;
  uint32_t kernel_bytes = 0; // 0: 70,656; else a multiple of 64 from 64 to 1,531,712
  // The scheduling policy of the device the session opens (unset:
  // deterministic); with `device`, that device's own (set_policy).
  std::optional<std::string> policy;
};

struct LoadOptions {
  uint32_t trace = 0;         // sequence numbers traced per core
  double deadline_s = 1.0;    // submit to the group's completion
  double wait_s = 2.0;        // the cores' timeout on a wait for another core
  double idle_s = 120.0;      // the cores' timeout on a wait for the next command
  double kernel_idle_s = 0.0; // the dispatcher's own idle timeout; 0: off
  double start_s = 10.0;      // READY within this
  uint32_t host_depth = 64;   // command ring slots: a power of two, at most 64
  uint32_t event_depth = 128; // event ring entries: a power of two, at most 128
  uint32_t batch = 64;        // commands stored per batch (then one fence)
  double settle_us = 1.0;     // pause after a fence before the next store
  // A program's X280 threads: "card" builds them before the launch and starts
  // them after READY; "host" runs none of them (the caller runs its fallbacks).
  std::string thread = "card";
};

class Session {
public:
  static constexpr uint32_t kDefaultKernelBytes = 70656;
  static constexpr uint32_t kMaxKernelBytes = 1531712;
  static constexpr uint32_t kL1Budget = 1531776; // kernel buffer + L1 left

  static std::unique_ptr<Session> open(const SessionConfig& config = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Device& device();
  std::shared_ptr<Device> device_ptr();
  CoreCoord grid() const;
  // (kernel buffer, L1 left for circular buffers and L1 tensors) per core.
  std::pair<uint32_t, uint32_t> l1() const;
  uint32_t pll_mhz() const;

  // Builds the program (compile errors raise ProgramError before anything
  // runs), launches its kernels on every core, starts the dispatcher and
  // waits for READY. Aborts a run still loaded first.
  Run& load(const ProgramSpec& program, const LoadOptions& options = {});
  Run* run();                     // the loaded run, or null
  std::shared_ptr<Run> run_ptr(); // the same, shared (it outlives a later load)

  // Stops a loaded run (Run::stop on a normal close; abort when `aborting`),
  // then closes the device it opened. Idempotent.
  void close(bool aborting = false);
  bool closed() const;

  void log(const std::string& line) const;
  // Replaces the log callback (empty: none).
  void set_log(std::function<void(const std::string&)> log);

  struct Impl;
  Impl& impl() { return *impl_; }

private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tessel::dispatch
