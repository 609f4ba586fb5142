// TT-Metalium spelling: the NoC address fields (NOC_XY_ADDR,
// NOC_UNICAST_ADDR_X/Y, NOC_LOCAL_ADDR_OFFSET, NOC_ADDR_LOCAL_BITS, ...) and
// NOC_MAX_BURST_SIZE (tessel/dataflow.h).
#pragma once
#include "tessel/dataflow.h"
