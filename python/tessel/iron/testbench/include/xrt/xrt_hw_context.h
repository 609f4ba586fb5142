// tessel's XRT (tessel/xrt_api.h): XRT's xrt_hw_context.h names.
#pragma once
#include "tessel/xrt_api.h"
