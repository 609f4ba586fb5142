#include "../probe.hpp"
#include "../probe_build.hpp"
#include "dataflow_api.h"
#include "tessel/persistent.h"

#ifndef PROBE_VALUE
#define PROBE_VALUE 0
#endif

uint32_t define_value() { return PROBE_VALUE; }

uint32_t opt_level() {
#ifdef KM_OPT_LEVEL
  return KM_OPT_LEVEL;
#else
  return kNoOptLevel;
#endif
}

uint32_t compile_arg() { return get_compile_time_arg_val(0); }
uint32_t own_arg() { return persistent::arg(0); }
uint32_t core_index() { return persistent::core_index(); }

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerDefine, define_value), TESSEL_HANDLER(kHandlerWriterOpt, opt_level),
                         TESSEL_HANDLER(kHandlerCompileArg, compile_arg), TESSEL_HANDLER(kHandlerWriterArg, own_arg),
                         TESSEL_HANDLER(kHandlerCoreIndex, core_index),
                         TESSEL_HANDLER(kHandlerWriterBuild, build_flags))
