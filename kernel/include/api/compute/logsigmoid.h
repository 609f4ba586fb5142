// TT-Metalium spelling of the compute kernel API (the older path of
// eltwise_unary/logsigmoid.h).
#pragma once
#include "tessel/sfpu_special.h"
