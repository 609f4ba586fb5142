// TT-Metalium spelling: fast_untilize_init, fast_untilize_init_skip_remap,
// fast_untilize_block, fast_untilize_uninit (tessel/tilize.h).
#pragma once
#include "tessel/compute.h"
