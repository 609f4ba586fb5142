// graph: the reader does every handler's work; this kernel takes part in the loop only.
#include "tessel/persistent.h"

TESSEL_PERSISTENT_KERNEL()
