// map, reader: each core of the job's group reads its tile (first + its
// index in the group) of the input tensor into CB 0.
#include "api/dataflow/dataflow_api.h"
#include "map.hpp"
#include "tessel/persistent.h"

void map_tile(const persistent::Command& c) {
  constexpr auto args = TensorAccessorArgs<0>();
  const auto in = TensorAccessor(args, c.arg(0), get_tile_size(kCbIn));
  cb_reserve_back(kCbIn, 1);
  noc_async_read_page(c.arg(2) + c.index, in, get_write_ptr(kCbIn));
  noc_async_read_barrier();
  cb_push_back(kCbIn, 1);
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerMap, map_tile))
