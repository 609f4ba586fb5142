// TT-Metalium spelling of the compute kernel API (api/compute/eltwise_unary/negative.h).
#pragma once
#include "api/compute/eltwise_unary/negative.h"
