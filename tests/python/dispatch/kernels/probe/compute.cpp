#include "../probe.hpp"
#include "../probe_build.hpp"
#include "compute_kernel_api.h"
#include "tessel/persistent.h"

uint32_t own_arg() { return persistent::arg(0); }

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerComputeArg, own_arg), TESSEL_HANDLER(kHandlerComputeBuild, build_flags))
