#include "dispatch/card_clock.hpp"

#include <x86intrin.h>

#include <fstream>
#include <string>
#include <thread>

#include "tessel/persistent_abi.h"

namespace tessel::dispatch {

namespace {
bool invariant_tsc() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0)
      return line.find(" constant_tsc") != std::string::npos && line.find(" nonstop_tsc") != std::string::npos;
  return false;
}

// TSC counts per 50 MHz tick, measured over 5 ms (once per process).
double measured_ticks_per_tsc() {
  static const double rate = [] {
    if (!invariant_tsc()) return 0.0;
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t c0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const uint64_t c1 = __rdtsc();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    return c1 > c0 ? ns / 1000.0 * KM_TIMER_MHZ / double(c1 - c0) : 0.0;
  }();
  return rate;
}
} // namespace

CardClock::CardClock() : start_(std::chrono::steady_clock::now()), tsc_start_(__rdtsc()) {
  ticks_per_tsc_ = measured_ticks_per_tsc();
}

uint64_t CardClock::ticks() const {
  if (ticks_per_tsc_ > 0) return uint64_t(double(__rdtsc() - tsc_start_) * ticks_per_tsc_);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_);
  return uint64_t(ns.count()) / (1000 / KM_TIMER_MHZ);
}

} // namespace tessel::dispatch
