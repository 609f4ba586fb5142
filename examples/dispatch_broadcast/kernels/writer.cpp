// broadcast: the reader does the whole job; this kernel takes part in the
// protocol only.
#include "tessel/persistent.h"

TESSEL_PERSISTENT_KERNEL()
