// TT-Metalium spelling of the TensorAccessor NoC traits (as api/tensor/noc_traits.h), which tessel defines with the
// Noc object.
#pragma once
#include "api/tensor/tensor_accessor.h"
#include "tessel/noc_object.h"
