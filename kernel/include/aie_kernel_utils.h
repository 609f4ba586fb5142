// <aie_kernel_utils.h>: the kernels' loop hints (aie_kernels/aie_kernel_utils.h).
#include "aie_kernels/aie_kernel_utils.h"
