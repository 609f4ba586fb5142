// Parking a thread that waits for another: a word the sleeper sets to 1,
// re-checks what it waits for, then futex-waits on; the waker, after
// publishing, swaps the word to 0 and wakes the sleeper if it was 1. Used by
// the card threads of src/dispatch and src/flow and the host threads that
// talk to them.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace tessel::base {

struct alignas(64) ParkWord {
  std::atomic<uint32_t> parked{0};
};

// Sleeps while w.parked == 1, at most timeout_us.
void park(ParkWord& w, uint32_t timeout_us);
// Wakes a sleeper of w, if there is one.
void unpark(ParkWord& w);

// One step of waiting for ready(): for the first spin_checks steps a check
// (yielding the core at every 64th, so a waiter sharing a core with the
// other side lets it run), after that a park of at most park_us. A futex
// round trip costs tens of microseconds on a VM, so an answer that comes
// soon is not parked for. Returns ready().
template <typename Ready>
bool spin_or_park(ParkWord& w, uint32_t& checks, uint32_t spin_checks, uint32_t park_us, Ready ready) {
  if (ready()) return true;
  if (++checks < spin_checks) {
    if (checks % 64 == 0) std::this_thread::yield();
    return false;
  }
  w.parked.store(1);
  if (!ready()) park(w, park_us);
  w.parked.store(0);
  return ready();
}

} // namespace tessel::base
