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
  clear_host_signal();
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

namespace {
// The handlers forward_signal put in front, by signal number.
struct sigaction g_forwarded[NSIG] {};

void on_forwarded(int sig, siginfo_t* info, void* context) {
  note_host_signal(sig);
  const struct sigaction& previous = g_forwarded[sig];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  }
}
} // namespace

void forward_signal(int sig) {
  if (sig <= 0 || sig >= NSIG || sig == SIGINT) return; // SIGINT has its own (install_interrupt_handler)
  struct sigaction current {};
  if (sigaction(sig, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_forwarded) return;
  // The default action or an ignored signal needs nothing from a wait.
  if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) return;
  struct sigaction ours {};
  ours.sa_sigaction = on_forwarded;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  g_forwarded[sig] = current;
  sigaction(sig, &ours, nullptr);
}

void handle_wait_signals() {
  // Back under the GIL, the wait unwound: the host's handlers run now.
  const bool interrupted = interrupt_requested();
  clear_interrupt();
  clear_host_signal();
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
  if (interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw nb::python_error();
  }
  // A handler ran and returned: the wait goes on.
}

void raise_interrupted() {
  // Back under the GIL: let Python's handler raise what it raises for SIGINT.
  clear_interrupt();
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw nb::python_error();
}

} // namespace tessel::python
