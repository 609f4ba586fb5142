// One misuse of the API, chosen by word(0).
#include "tessel/x280.h"

static uint32_t run() {
  const uint32_t args[11] = {};
  switch (x280::word(0)) {
  case 0: x280::submit(1, 0, 1, args, 11); break;
  case 1: return x280::word(5);
  case 2: x280::wait(9, nullptr); break;
  case 3: x280::submit(1, 0, 1, args, 1, 0x1); break;
  case 4: x280::fail("the thread's own failure");
  }
  return 0;
}

TESSEL_X280_THREAD(run)
