// Loops forever. With word(0) != 0 it checks stop_requested() and returns 5
// when asked to stop; else it never returns. With a region "pid" it first
// writes its process id there.
#include "tessel/x280.h"

#include <unistd.h>

static uint32_t run() {
  const bool cooperative = x280::word(0) != 0;
  if (x280::Region pid = x280::region("pid"); pid.size_bytes >= 4)
    *reinterpret_cast<volatile uint32_t*>(pid.data) = uint32_t(getpid());
  for (volatile uint64_t n = 0;; n = n + 1)
    if (cooperative && x280::stop_requested()) return 5;
}

TESSEL_X280_THREAD(run)
