// TT-Metalium spelling of the compute kernel API's CB calls (cb_wait_front,
// cb_pop_front, cb_reserve_back, cb_push_back, get_tile_address,
// read_tile_value).
#pragma once
#include "tessel/compute.h"
