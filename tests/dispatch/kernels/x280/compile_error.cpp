#include "tessel/x280.h"

static uint32_t run() {
  return undeclared_name + 1; // the error
}

TESSEL_X280_THREAD(run)
