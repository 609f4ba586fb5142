// Submits one command and waits for it: returns 77 when the wait ends
// because the host asked it to stop, 1 when the command completed.
#include "tessel/x280.h"

static uint32_t run() {
  const uint32_t ticket = x280::submit(3, 0, 1, nullptr, 0);
  uint32_t result = 0;
  if (x280::wait(ticket, &result)) return 1;
  return x280::stop_requested() ? 77 : 2;
}

TESSEL_X280_THREAD(run)
