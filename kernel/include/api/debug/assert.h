// TT-Metalium spelling: ASSERT(cond), which fails the kernel at its line.
#pragma once
#include "tessel/kernel_common.h"
