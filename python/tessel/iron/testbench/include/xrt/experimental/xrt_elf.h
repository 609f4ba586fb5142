// tessel's XRT (tessel/xrt_api.h): XRT's experimental/xrt_elf.h names.
#pragma once
#include "tessel/xrt_api.h"
