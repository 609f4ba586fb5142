// TT-Metalium spelling: WAYPOINT(x), the watcher's progress marker
// (tessel/kernel_common.h; tessel reports a stuck kernel's line itself).
#pragma once
#include "tessel/kernel_common.h"
