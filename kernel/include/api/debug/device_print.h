// TT-Metalium spelling of the DEVICE_PRINT header: DEVICE_PRINT("x = {}\n", x),
// the function-style DPRINT.
#pragma once
#include "tessel/dprint.h"
#include "tessel/kernel_common.h"
