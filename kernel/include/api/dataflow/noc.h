// TT-Metalium spelling of the NoC object (Noc, NocOptions, noc_traits_t).
#pragma once
#include "tessel/noc_object.h"
