// LoadedDesign: a DesignSpec running on a device (spec: runtime data
// movement). Loading builds the workers' and movers' kernels, lays out the
// cores' tables and pools, and starts the grid on the card's own thread: the
// workers are persistent (they keep their place between calls, as IRON's
// cores do), and the card runs the recorded sequence once per call.
//
// A call binds the host buffers (copied to the device buffers the design
// owns; task descriptors are patched with their addresses), runs the stream
// in order, and ends only when the grid is quiescent: every task queue empty,
// every mover idle, every pool back at its initial counts. Anything else is
// an error naming what was left.
//
// Failures. A deadlock (DeadlockError), a kernel error or fault, or a
// sequence error (FlowError: descriptors exhausted, a task left unfreed)
// stops the grid; the design stays loaded and the next call starts its grid
// afresh. Thread-safety: one host thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/flow/design.hpp"

namespace tessel::flow {

// A runtime sequence that cannot go on: what, where (the sequence line), and
// the holders or leftovers involved.
class FlowError : public Error {
public:
  using Error::Error;
};

struct HostSpan {
  void* data = nullptr;
  uint64_t bytes = 0;
};

struct CallStats {
  uint64_t objects_moved = 0; // by every channel, this call
  uint64_t tasks = 0;         // pushed this call
  uint64_t ops = 0;           // stream ops executed
  // What the call left on the grid when its stream ended (data filled and
  // never taken, objects held, descriptors never freed), one line each; empty
  // when the grid is back at its starting state. Silicon ends such a call
  // (the host waits only for its awaited tasks), so this is a warning for
  // the caller to give, not a failure: the next call starts from it.
  std::string leftovers;
};

class LoadedDesign {
public:
  // Validates the spec, builds every kernel (ProgramError on a compile
  // error), then starts the grid. Nothing runs until the first call.
  static std::unique_ptr<LoadedDesign> load(std::shared_ptr<Device> device, DesignSpec spec);
  ~LoadedDesign();
  LoadedDesign(const LoadedDesign&) = delete;
  LoadedDesign& operator=(const LoadedDesign&) = delete;

  // One call: buffers[i] binds args[i] (bytes must match); parameters are
  // the DispatchTime registers. Buffers whose tasks drain are written back.
  CallStats call(std::span<const HostSpan> buffers, std::span<const int64_t> parameters, double timeout_s = 60.0);

  // Stops the grid (idempotent).
  void close();

  const DesignSpec& spec() const;
  uint64_t calls() const;
  uint64_t launches() const; // grid starts: 1 + one per failed call

  struct Impl;

private:
  explicit LoadedDesign(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tessel::flow
