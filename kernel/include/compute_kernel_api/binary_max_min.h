// TT-Metalium spelling of the compute kernel API (api/compute/binary_max_min.h).
#pragma once
#include "api/compute/binary_max_min.h"
