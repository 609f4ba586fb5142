// TT-Metalium spelling: get_local_cb_interface(cb) (LocalCBInterface),
// cb_addr_shift, CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT (tessel/cb_interface.h).
#pragma once
#include "tessel/kernel_common.h"
