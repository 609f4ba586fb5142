// The nanobind extension `tessel._tessel`: a thin, strictly typed layer over
// the C++ host API. The Python package (python/tessel/) checks the types and
// values users pass and gives the messages; these functions take exact types.
#pragma once

#include <algorithm>
#include <chrono>

#include <nanobind/nanobind.h>

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/error.hpp"

namespace tessel::python {

namespace nb = nanobind;

// Cores cross the binding as (x0, y0, x1, y1) rectangles.
using Rect = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
CoreRangeSet ranges_of(const std::vector<Rect>& rects);

void bind_errors(nb::module_& m);
void bind_device(nb::module_& m);
void bind_program(nb::module_& m);
void bind_formats(nb::module_& m);
void bind_examples(nb::module_& m);
void bind_ops(nb::module_& m);
void bind_operation(nb::module_& m);
void bind_dispatch(nb::module_& m);
void bind_mesh_capsule(nb::module_& m);
void bind_flow(nb::module_& m);
void bind_trace(nb::module_& m);
void bind_ranks(nb::module_& m);

// Installs tessel's SIGINT handler in front of the current one (see blocking()).
void install_interrupt_handler();

// Runs fn with the GIL released, so that Ctrl-C stops it: a pending
// KeyboardInterrupt is raised before starting, and a SIGINT during fn stops
// the simulated run (tessel::Interrupted) and raises KeyboardInterrupt (or
// whatever Python's SIGINT handler raises) once the device is usable again.
void raise_interrupted();
void check_signals_before_blocking();
template <typename Fn>
auto blocking(Fn&& fn) -> decltype(fn()) {
  check_signals_before_blocking();
  try {
    nb::gil_scoped_release release;
    return fn();
  } catch (const Interrupted&) {
    raise_interrupted();
    throw;
  }
}

// Puts a handler in front of sig's current one (a Python handler: not the
// default action, not ignored) that notes the signal for the native waits
// (tessel::note_host_signal) before Python's own runs; again after Python
// replaced it. Used for SIGTERM, which closes dispatch sessions.
void forward_signal(int sig);
// After a wait gave up for a signal: runs the host's handlers and raises what
// they raise (KeyboardInterrupt for Ctrl-C); returns when the wait may go on.
void handle_wait_signals();

// blocking() for a wait with a timeout that signals may end early: fn(left)
// waits at most `left` seconds; a signal whose Python handler returns lets
// the wait go on for what is left of timeout_s.
template <typename Fn>
auto blocking_wait(double timeout_s, Fn&& fn) -> decltype(fn(timeout_s)) {
  check_signals_before_blocking();
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s));
  for (double left = timeout_s;;) {
    try {
      nb::gil_scoped_release release;
      return fn(left);
    } catch (const Interrupted&) {
    }
    handle_wait_signals();
    left = std::max(0.0, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
  }
}

} // namespace tessel::python
