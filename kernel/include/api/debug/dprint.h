// TT-Metalium spelling of the DPRINT header.
#pragma once
#include "tessel/kernel_common.h"
#include "tessel/dprint.h"
