#include "compute_kernel_api.h"
#include "tessel/persistent.h"

// A float division: the Tensix cores have no float divide instruction.
uint32_t scale(uint32_t a, uint32_t b) {
  const float x = float(a) / float(b);
  return uint32_t(x);
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(1, scale))
