// TT-Metalium spelling of the compute kernel API.
#pragma once
#include "tessel/sfpu_state.h"
