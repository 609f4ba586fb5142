// TT-Metalium spelling: DataflowBuffer and DFBAccessor (tessel/dataflow_buffer_object.h).
#pragma once
#include "tessel/dataflow_buffer_object.h"
