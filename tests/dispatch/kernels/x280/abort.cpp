// Calls abort().
#include "tessel/x280.h"

#include <cstdio>
#include <cstdlib>

static uint32_t run() {
  std::fprintf(stderr, "about to abort\n");
  std::abort(); // the abort
}

TESSEL_X280_THREAD(run)
