// map, compute: y = x + x on the core's tile.
#include "api/compute/common.h"
#include "api/compute/eltwise_binary.h"
#include "map.hpp"
#include "tessel/persistent.h"

void map_tile() {
  binary_op_init_common(kCbIn, kCbIn, kCbOut);
  add_tiles_init(kCbIn, kCbIn);
  cb_wait_front(kCbIn, 1);
  tile_regs_acquire();
  add_tiles(kCbIn, kCbIn, 0, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(kCbOut, 1);
  pack_tile(0, kCbOut);
  cb_push_back(kCbOut, 1);
  cb_pop_front(kCbIn, 1);
  tile_regs_release();
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerMap, map_tile))
