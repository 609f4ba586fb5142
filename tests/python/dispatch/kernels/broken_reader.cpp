// A reader that does not compile: Session.load raises ProgramError with the
// compiler's message, before anything runs.
#include "dataflow_api.h"
#include "tessel/persistent.h"

uint32_t broken() { return 1 + ; }

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(1, broken))
