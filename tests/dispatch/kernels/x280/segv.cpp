// Stores to the address word(0) names (a small one: nothing is mapped there).
#include "tessel/x280.h"

static uint32_t run() {
  auto* p = reinterpret_cast<volatile uint32_t*>(uintptr_t(x280::word(0)));
  *p = 1; // the fault
  return 0;
}

TESSEL_X280_THREAD(run)
