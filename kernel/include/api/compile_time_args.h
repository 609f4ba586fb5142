// TT-Metalium spelling: get_compile_time_arg_val and
// get_named_compile_time_arg_val, which every kernel has (kernel_prelude.h).
#pragma once
#include "tessel/kernel_common.h"
