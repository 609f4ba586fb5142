// A kernel laid out as a TT-Metalium checkout lays out ttnn's operation
// kernels: it includes helpers by paths from the checkout's root, from
// ttnn/ and from ttnn/cpp/.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"
#include "ttnn/cpp/ttnn/kernel/scale_common.hpp"
#include "cpp/ttnn/operations/scale/device/kernels/scale_helpers.hpp"
#include "ttnn/operations/scale/device/kernels/scale_helpers.hpp"

void kernel_main() {
  constexpr uint32_t cb_in = get_compile_time_arg_val(0);
  const uint32_t tiles = get_arg_val<uint32_t>(0);
  cb_reserve_back(cb_in, scale_tiles(tiles));
  cb_push_back(cb_in, scale_tiles(tiles));
}
