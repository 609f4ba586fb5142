// TT-Metalium spelling of TT-Fabric's routing-plane connection manager: tessel/fabric.h.
#pragma once
#include "tessel/fabric.h"
