// TT-Metalium spelling of TT-Fabric's packet headers: tessel/fabric.h.
#pragma once
#include "tessel/fabric.h"
