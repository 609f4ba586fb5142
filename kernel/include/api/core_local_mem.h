// TT-Metalium spelling of CoreLocalMem.
#pragma once
#include "tessel/core_local_mem.h"
