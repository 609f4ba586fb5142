// TT-Metalium spelling: TensorBindingToken, the type of `tensor::<name>` (tessel/dataflow.h).
#pragma once
#include "tessel/dataflow.h"
