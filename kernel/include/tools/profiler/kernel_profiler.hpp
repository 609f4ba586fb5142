// TT-Metalium spelling of the device profiler header (kernel_prelude.h
// includes it before every kernel already).
#pragma once
#include "tessel/profiler.h"
