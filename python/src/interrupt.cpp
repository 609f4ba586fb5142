#include <signal.h>

#include "bindings.hpp"
#include "tessel/error.hpp"
#include "tessel/interrupt.hpp"

namespace tessel::python {

namespace {

struct sigaction g_previous {};

// Async-signal-safe: an atomic store, then Python's own handler (which only
// notes the signal for the interpreter's main loop).
void on_sigint(int sig, siginfo_t* info, void* context) {
  request_interrupt();
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  }
}

} // namespace

void install_interrupt_handler() {
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigint) return;
  struct sigaction ours {};
  ours.sa_sigaction = on_sigint;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  g_previous = current;
  sigaction(SIGINT, &ours, nullptr);
}

void check_signals_before_blocking() {
  clear_interrupt();
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

void raise_interrupted() {
  // Back under the GIL: let Python's handler raise what it raises for SIGINT.
  clear_interrupt();
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw nb::python_error();
}

} // namespace tessel::python
