// The progress line of a long run: a run that has gone on for more than 2 s
// shows, on stderr and only when stderr is a terminal, how long it has run
// and how many CB pages its kernels have pushed, with the rate over the last
// half second. The watchdog's thread (watchdog.cpp) samples the running
// threads' slots; the line is rewritten in place and erased when the last
// running thread's run ends. TESSEL_PROGRESS=0 turns it off, =1 shows it even
// when stderr is not a terminal.
#pragma once

#include <cstdint>
#include <span>

namespace tessel::sim {

struct WatchSlot;

int64_t steady_ns();

// Throws ValidationError if TESSEL_PROGRESS is set to something else than 1 or 0.
void check_progress_setting();

// Called by the watchdog's thread at every sample, under its registry lock.
void sample_progress(std::span<const WatchSlot* const> running, int64_t now_ns);
// Whether a progress line is on the terminal now.
bool progress_line_shown();
// Erases the line (under the watchdog's registry lock).
void end_progress_line();

} // namespace tessel::sim
