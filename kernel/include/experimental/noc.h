// The older TT-Metalium spelling of the NoC object: experimental::Noc.
#pragma once
#include "tessel/noc_object.h"
