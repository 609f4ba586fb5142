#include "../basic.hpp"
#include "dataflow_api.h"
#include "tessel/persistent.h"

void spin() { cb_wait_front(kScratchCb, 1); }

uint32_t count() {
  static uint32_t commands = 0;
  return ++commands;
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerSpin, spin), TESSEL_HANDLER(kHandlerCount, count))
