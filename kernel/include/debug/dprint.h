// TT-Metalium spelling of the DPRINT header.
#pragma once
#include "tessel/dprint.h"
#include "tessel/kernel_common.h"
