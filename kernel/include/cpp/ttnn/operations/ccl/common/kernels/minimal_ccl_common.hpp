// ttnn's spelling of its collective kernels' fabric helpers: tessel/ccl_fabric_helpers.h.
#pragma once
#include "tessel/ccl_fabric_helpers.h"
