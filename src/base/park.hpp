// Parking a thread that waits for another: a word the sleeper sets to 1,
// re-checks what it waits for, then futex-waits on; the waker, after
// publishing, swaps the word to 0 and wakes the sleeper if it was 1. Used by
// the card threads of src/dispatch and src/flow and the host threads that
// talk to them.
#pragma once

#include <atomic>
#include <cstdint>

namespace tessel::base {

struct alignas(64) ParkWord {
  std::atomic<uint32_t> parked{0};
};

// Sleeps while w.parked == 1, at most timeout_us.
void park(ParkWord& w, uint32_t timeout_us);
// Wakes a sleeper of w, if there is one.
void unpark(ParkWord& w);

} // namespace tessel::base
