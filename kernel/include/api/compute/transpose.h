// TT-Metalium spelling: transpose_init, transpose_tile, transpose_block (the
// older transpose_wh.h names the same op transpose_wh_*).
#pragma once
#include "tessel/compute.h"
