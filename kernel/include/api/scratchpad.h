// TT-Metalium spelling of Scratchpad<T> (tessel/scratchpad.h).
#pragma once
#include "tessel/scratchpad.h"
