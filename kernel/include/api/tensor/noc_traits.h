// TT-Metalium spelling of the TensorAccessor NoC traits, which tessel defines with the Noc object.
#pragma once
#include "tessel/noc_object.h"
