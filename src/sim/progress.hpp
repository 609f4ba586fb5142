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
// Whether a run starting now should show the line (TESSEL_PROGRESS, else
// whether stderr is a terminal; false for an invalid setting).
bool progress_wanted();

// Called by the watchdog's thread at every sample, under its registry lock.
void sample_progress(std::span<const WatchSlot* const> running, int64_t now_ns);
// Whether a progress line is on the terminal now.
bool progress_line_shown();
// Erases the line (under the watchdog's registry lock).
void end_progress_line();

// The progress line of a host thread's long wait for a persistent-dispatch
// card (whose run lasts its whole session, so the watchdog shows none for
// it): past 2 s, "[tessel] waiting 4.5 s: 1.23 k commands done (250
// commands/s)", under the same rules. Made when the wait starts; update() is
// called from the wait's loop (at least every 10 ms) with the commands the
// run has done; the line is erased when the object goes.
class WaitProgress {
public:
  explicit WaitProgress(uint64_t done);
  ~WaitProgress();
  WaitProgress(const WaitProgress&) = delete;
  WaitProgress& operator=(const WaitProgress&) = delete;
  void update(uint64_t done) {
    if (steady_ns() >= next_ns_) show(done);
  }

private:
  void show(uint64_t done);
  int64_t start_ns_, next_ns_;
  uint64_t first_, last_;
  int64_t last_ns_ = 0;
  bool shown_ = false;
};

} // namespace tessel::sim
