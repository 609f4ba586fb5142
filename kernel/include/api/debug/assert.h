// TT-Metalium spelling: ASSERT(condition) (tessel/kernel_common.h), which
// stops the kernel with the condition and its line, as the watcher's does.
#pragma once
#include "tessel/kernel_common.h"
#ifndef ASSERT_ENABLED
#define ASSERT_ENABLED 1
#endif
