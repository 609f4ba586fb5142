// The card's clock: KM_TIMER_MHZ (50 MHz) ticks since a start, as the X280's
// timer counts. It is read on every command, so it reads the CPU's time-stamp
// counter (a few ns) where that counter is invariant (constant_tsc and
// nonstop_tsc), scaled by a rate measured once per process against
// steady_clock; elsewhere it reads steady_clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace tessel::dispatch {

class CardClock {
public:
  CardClock();
  uint64_t ticks() const;

private:
  std::chrono::steady_clock::time_point start_;
  uint64_t tsc_start_ = 0;
  double ticks_per_tsc_ = 0; // 0: use steady_clock
};

} // namespace tessel::dispatch
