#include "../basic.hpp"
#include "dataflow_api.h"
#include "tessel/persistent.h"

void spin() { cb_wait_front(kScratchCb, 1); }

uint32_t count() {
  static uint32_t commands = 0;
  return ++commands;
}

// Spins on the card's clock for arg0 milliseconds.
void nap(const persistent::Command& c) {
  const uint64_t end = persistent::ticks() + uint64_t(c.arg(0)) * KM_TIMER_MHZ * 1000;
  while (persistent::ticks() < end) {
  }
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerSpin, spin), TESSEL_HANDLER(kHandlerCount, count),
                         TESSEL_HANDLER(kHandlerNap, nap))
