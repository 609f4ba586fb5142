// The older TT-Metalium spelling of CoreLocalMem: experimental::CoreLocalMem.
#pragma once
#include "tessel/core_local_mem.h"
