#include "../probe.hpp"
#include "dataflow_api.h"
#include "tessel/persistent.h"

uint32_t opt_level() {
#ifdef KM_OPT_LEVEL
  return KM_OPT_LEVEL;
#else
  return kNoOptLevel;
#endif
}

uint32_t own_arg() { return persistent::arg(0); }

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerReaderOpt, opt_level), TESSEL_HANDLER(kHandlerReaderArg, own_arg))
