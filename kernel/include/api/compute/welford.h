// TT-Metalium spelling: Welford's online mean and variance on the SFPU
// (welford_init, welford_update, welford_finalize_to_row, ...).
#pragma once
#include "tessel/welford.h"
