// The measure program's kernel: the runtime's loop and no handler of its
// own, so every command is a NOP through the whole protocol.
#include "tessel/persistent.h"

TESSEL_PERSISTENT_KERNEL()
