// A kernel_main that never enters the persistent loop: it returns at once,
// so the dispatcher never sees READY (StartError).
#include "dataflow_api.h"

void kernel_main() {}
