// A programming example's kernel that includes one of ttnn's helpers by its
// path from the checkout's root, as tt-metal's matmul examples do.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"
#include "ttnn/cpp/ttnn/kernel/scale_common.hpp"

void kernel_main() {
  const uint32_t tiles = get_arg_val<uint32_t>(0);
  cb_reserve_back(0, scale_tiles(tiles));
  cb_push_back(0, scale_tiles(tiles));
}
