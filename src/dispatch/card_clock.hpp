// The card's clock: KM_TIMER_MHZ (50 MHz) ticks since a start, as the X280's
// timer counts. It is read on every command, so it reads the CPU's time-stamp
// counter (a few ns) where that counter is invariant (constant_tsc and
// nonstop_tsc), scaled by a rate measured once per process against
// steady_clock; elsewhere it reads steady_clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

namespace tessel::dispatch {

class CardClock {
public:
  static constexpr uint64_t kTimerMhz = 50; // KM_TIMER_MHZ

  CardClock();
  uint64_t ticks() const;
  // The steady_clock time (ns since its epoch) at which ticks() reads `ticks`.
  // Ticks beyond centuries (a deadline of inf) read as a time never reached.
  int64_t steady_ns_at(uint64_t ticks) const {
    constexpr uint64_t kFar = uint64_t(1) << 57;
    if (ticks >= kFar) return std::numeric_limits<int64_t>::max();
    return std::chrono::duration_cast<std::chrono::nanoseconds>(start_.time_since_epoch()).count() +
           int64_t(ticks * (1000 / kTimerMhz));
  }

private:
  std::chrono::steady_clock::time_point start_;
  uint64_t tsc_start_ = 0;
  double ticks_per_tsc_ = 0; // 0: use steady_clock
};

} // namespace tessel::dispatch
