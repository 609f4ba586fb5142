// Ends its process with exit(3) instead of returning.
#include "tessel/x280.h"

#include <cstdlib>

static uint32_t run() {
  x280::log("exiting");
  std::exit(3);
}

TESSEL_X280_THREAD(run)
