// TT-Metalium spelling: FORCE_INLINE, tt_l1_ptr, tt_reg_ptr.
#pragma once
#include "tessel/kernel_common.h"
