// TT-Metalium spelling of the data-movement kernel API.
#pragma once
#include "tessel/dataflow.h"
#include "tessel/dataflow_state.h"
