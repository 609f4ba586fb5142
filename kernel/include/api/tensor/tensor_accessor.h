// TT-Metalium spelling: TensorAccessor and TensorAccessorArgs (tessel/dataflow.h).
#pragma once
#include "tessel/dataflow.h"
