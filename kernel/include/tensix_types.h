// TT-Metalium spelling: DataFormat (Metalium's numbering).
#pragma once
#include "tessel/kernel_common.h"
