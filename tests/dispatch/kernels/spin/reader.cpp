#include "tessel/persistent.h"

// A loop that never reaches a kernel API call: only the watchdog can stop it.
void forever() {
  for (volatile uint32_t i = 0;; i = i + 1) {
  }
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(1, forever))
