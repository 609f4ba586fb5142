// map, writer: the core's result tile from CB 16 to the output tensor.
#include "api/dataflow/dataflow_api.h"
#include "map.hpp"
#include "tessel/persistent.h"

void map_tile(const persistent::Command& c) {
  constexpr auto args = TensorAccessorArgs<0>();
  const auto out = TensorAccessor(args, c.arg(1), get_tile_size(kCbOut));
  cb_wait_front(kCbOut, 1);
  noc_async_write_page(c.arg(2) + c.index, out, get_read_ptr(kCbOut));
  noc_async_write_barrier();
  cb_pop_front(kCbOut, 1);
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerMap, map_tile))
