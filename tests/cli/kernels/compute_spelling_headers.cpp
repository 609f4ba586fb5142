// Compute-API headers TT-Metalium's operation kernels include by their
// operation's name: each must bring the calls those kernels make.
#include "api/compute/layernorm.h"
#include "api/compute/softmax.h"
#include "compute_kernel_api/layernorm.h"
#include "compute_kernel_api/softmax.h"

void kernel_main() {
  rsqrt_tile_init();
  rsqrt_tile(0);
  exp_tile_init();
  exp_tile(0);
  recip_tile_init();
  recip_tile(0);
}
