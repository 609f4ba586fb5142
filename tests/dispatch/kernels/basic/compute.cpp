#include "../basic.hpp"
#include "compute_kernel_api.h"
#include "tessel/persistent.h"

void fault() {
  volatile uint32_t* p = nullptr;
  *p = 1;
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerFault, fault))
