// TT-Metalium spelling of ScratchpadBindingToken (tessel/scratchpad.h).
#pragma once
#include "tessel/scratchpad_binding_token.h"
