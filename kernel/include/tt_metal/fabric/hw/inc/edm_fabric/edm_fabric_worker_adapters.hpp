// TT-Metalium spelling of TT-Fabric's worker API: tessel/fabric.h.
#pragma once
#include "tessel/fabric.h"
