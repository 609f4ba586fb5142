// A kernel_main that never enters the persistent loop (see reader.cpp).
#include "compute_kernel_api.h"

void kernel_main() {}
