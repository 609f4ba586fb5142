// Stopping a run from outside: the host's Ctrl-C.
//
// request_interrupt() asks every simulated run in progress (and the next one
// to start, until clear_interrupt()) to stop. A run that sees the request
// stops within milliseconds, throws tessel::Interrupted and leaves its device
// usable, as any failed run does. The request stays until clear_interrupt():
// a caller clears it before starting the work it wants to be able to stop.
//
// request_interrupt is async-signal-safe (one atomic store), so a SIGINT
// handler may call it; the Python package installs such a handler. A run is
// stopped at its next fiber switch; a kernel that does not switch (a raw spin
// loop, a long stretch of work on one RISC) is stopped by the watchdog thread
// within about 50 ms, the way the watchdog stops a stalled kernel.
#pragma once

namespace tessel {

void request_interrupt() noexcept;
void clear_interrupt() noexcept;
bool interrupt_requested() noexcept;

// A signal the host program handles itself (the Python package's SIGTERM
// handler, which closes dispatch sessions) arrived while a native wait may
// be running: note_host_signal records it (async-signal-safe), and the waits
// that can take long (a dispatch run's wait, wait_any, drain) return early
// with tessel::Interrupted so that the host's handler runs now, not when the
// wait ends. host_signal() is the signal number, 0 when none.
void note_host_signal(int signal) noexcept;
int host_signal() noexcept;
void clear_host_signal() noexcept;

} // namespace tessel
